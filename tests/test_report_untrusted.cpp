// What a report cannot know it does not print: figures a bench refused, single times imported
// from files, a host CPU against a device's peak, parameters a kernel does not have.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "exchange/exchange.hpp"
#include "exchange_fixture.hpp"
#include "report/report.hpp"
#include "report_fixture.hpp"
#include "store/queries.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

using report_test::add_bench;
using report_test::device;
using report_test::measurement;
using report_test::square;
using report_test::tiled;
using test::slurp;

std::string write_markdown(Store& store, const std::string& dir) {
  ReportOptions options;
  options.out_dir = dir;
  write_report(store, options);
  return slurp(dir + "/report.md");
}

TEST(ReportUntrusted, APrecisionWithOnlyARefusedBenchFigureIsNotCompared) {
  // Its one fp64 row was a MeasurementError: the comparison listed fp64 for it, found no
  // device to show and read the first of none (SIGSEGV).
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A"), b = device("Vendor", "B");
  for (const auto* d : {&a, &b}) {
    store.upsert_device(*d);
    store.add_measurement(measurement(d->key, 0, tiled(64, 64, 2), square(256), Status::kOk, 1.0));
  }
  add_bench(store, a.key, "tuned", "tiled", "", square(256, Precision::kDouble), "MeasurementError",
            1e-6);
  const std::string md = write_markdown(store, dir / "r");
  EXPECT_NE(md.find("Best GFLOPS per problem (fp32)"), std::string::npos) << md;
  EXPECT_EQ(md.find("Best GFLOPS per problem (fp64)"), std::string::npos) << md;
}

TEST(ReportUntrusted, AMedianPastTheBudgetIsNoCount) {
  // One run of three reached the target within 400: the median counted the others as 401, an
  // evaluation no run made.
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A");
  store.upsert_device(a);
  store.add_measurement(measurement(a.key, 0, tiled(64, 64, 2), square(256), Status::kOk, 1.0));
  rows::Replay r;
  r.key = a.key, r.kernel = "tiled", r.p = square(256), r.strategy = "random";
  r.configurations = 5776, r.seeds = 3, r.budget = 400, r.reached = 1;
  r.median_evaluations = 401, r.random_expected = 1925.7;
  r.curve = {{25, 0.7}, {400, 0.9}};
  r.measured_at = "2024-05-01T10:00:00Z";
  rows::put_replay(store, r);
  const std::string md = write_markdown(store, dir / "r");
  EXPECT_NE(md.find("| \\>400 | 1/3 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("401"), std::string::npos) << md;
  const std::string csv = slurp(dir / "r/replays.csv");
  EXPECT_NE(csv.find(",1,>400,"), std::string::npos) << csv;  // reached, median
  EXPECT_EQ(csv.find("401"), std::string::npos) << csv;
}

TEST(ReportUntrusted, HostBlasIsNoShareOfTheDevicesPeak) {
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A");
  store.upsert_device(a);
  const GemmProblem p = square(1024);
  add_bench(store, a.key, "tuned", "tiled", "", p, "Ok", p.flops() / 50e6);  // 50 GFLOPS
  add_bench(store, a.key, "host-blas", "", "", p, "Ok", p.flops() / 300e6);  // 300 GFLOPS
  auto roof = store.db().prepare(
      "INSERT INTO roofline (device_id, precision, peak_gflops, bandwidth_gbs, measured_at) "
      "VALUES ((SELECT id FROM devices WHERE key = ?), 32, 100, 10, '2024-05-01T10:00:00Z')");
  roof.bind(1, a.key);
  roof.run();
  const std::string md = write_markdown(store, dir / "r");
  EXPECT_NE(md.find("50 (50.0 %)"), std::string::npos) << md;
  EXPECT_EQ(md.find("300 ("), std::string::npos) << md;  // was "300 (300.0 %)"
  EXPECT_NE(md.find("| 300 |"), std::string::npos) << md;
}

TEST(ReportUntrusted, NoShareOfTheRoofPastItsRoof) {
  // llvmpipe's naive kernel at n = 128 ran from its caches: 137.8 % of the roof "there", a
  // figure the model itself rules out. Here: a slow bandwidth roof, and a peak a busy machine
  // measured low.
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A");
  store.upsert_device(a);
  const GemmProblem p = square(1024);
  add_bench(store, a.key, "naive", "", "", p, "Ok", p.flops() / 5e6);      // 5 GFLOPS
  add_bench(store, a.key, "tuned", "", "", p, "Ok", p.flops() / 150e6);    // 150 GFLOPS
  add_bench(store, a.key, "default", "", "", p, "Ok", p.flops() / 0.5e6);  // 0.5 GFLOPS
  rows::put_roof(store, {a.key, 32, 100, 0.01, "2024-05-01T10:00:00Z"});
  const std::string md = write_markdown(store, dir / "r");
  EXPECT_NE(md.find("n/a (cache reuse)"), std::string::npos) << md;
  EXPECT_NE(md.find("n/a (above the peak)"), std::string::npos) << md;
  EXPECT_NE(md.find("read its data from caches more than once"), std::string::npos) << md;
  EXPECT_NE(md.find("faster than the stored peak"), std::string::npos) << md;  // the roofline's
  EXPECT_NE(md.find("Above the peak, the roof was measured"), std::string::npos) << md;
  EXPECT_NE(md.find("| 150 (n/a (above the peak)) |"), std::string::npos) << md;
  // No share of the peak or roof above 100 %: each is below it or not given.
  // (No std::regex here: GCC 12 warns inside it in the sanitizer build.)
  for (std::size_t at = md.find(" %"); at != std::string::npos; at = md.find(" %", at + 1)) {
    std::size_t start = at;
    while (start > 0 &&
           (std::isdigit(static_cast<unsigned char>(md[start - 1])) || md[start - 1] == '.')) {
      --start;
    }
    if (start == at) continue;
    EXPECT_LE(std::stod(md.substr(start, at - start)), 100.0) << md.substr(start, 40);
  }
  // Nor in the chart of the shares: its axis ended at 150 %, for the point the table refuses.
  std::size_t charts = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "r/charts")) {
    if (entry.path().filename().string().find("-peak-") == std::string::npos) continue;
    ++charts;
    const std::string svg = slurp(entry.path().string());
    for (std::size_t at = svg.find("<text"); at != std::string::npos;
         at = svg.find("<text", at + 1)) {
      const std::size_t from = svg.find('>', at) + 1, to = svg.find('<', from);
      // The y axis's tick labels are the texts that end at the axis.
      if (svg.substr(at, from - at).find("text-anchor=\"end\"") == std::string::npos) continue;
      const std::string label = svg.substr(from, to - from);
      char* end = nullptr;
      const double value = std::strtod(label.c_str(), &end);
      if (!label.empty() && end == label.c_str() + label.size()) {
        EXPECT_LE(value, 100.0) << entry.path();
      }
    }
  }
  EXPECT_EQ(charts, 1u);
}

// The text of the section whose heading holds `heading`, up to the next heading.
std::string section(const std::string& md, const std::string& heading) {
  const std::size_t at = md.find(heading);
  if (at == std::string::npos) return "";
  return md.substr(at, md.find("\n#", at) - at);
}

TEST(ReportUntrusted, NoValueIsTheOddOneOutWhenTheMostCommonValuesTie) {
  // Two devices with MWG 64 and 32: the larger was highlighted as differing from the "most
  // common" value, which the smaller had become by the order of a map.
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A"), b = device("Vendor", "B"), c = device("Vendor", "C");
  const auto add = [&](const DeviceInfo& d, int mwg) {
    store.upsert_device(d);
    store.add_measurement(measurement(d.key, 0, tiled(mwg, 64, 2), square(256), Status::kOk, 1.0));
  };
  add(a, 64);
  add(b, 32);
  const std::string two = section(write_markdown(store, dir / "r2"), "Best parameters per device");
  ASSERT_NE(two.find("| 64 |"), std::string::npos) << two;
  EXPECT_EQ(two.find("**64**"), std::string::npos) << two;
  EXPECT_EQ(two.find("**32**"), std::string::npos) << two;
  add(c, 64);
  const std::string three =
      section(write_markdown(store, dir / "r3"), "Best parameters per device");
  EXPECT_NE(three.find("**32**"), std::string::npos) << three;
  EXPECT_EQ(three.find("**64**"), std::string::npos) << three;
}

// A recorded kernel's best has no rate (its flops are unknown): best.csv wrote 0 GFLOPS where
// measurements.csv, the report and `best --json` say nothing.
TEST(ReportUntrusted, AnUnknownRateIsEmptyInBestCsv) {
  test::TempDir dir;
  Store store(dir / "t.db");
  import_text(store, exchange_test::small_cache("two").dump(), "two.json", "", square(64));
  write_markdown(store, dir / "r");
  const std::string csv = slurp(dir / "r/best.csv");
  const auto row = csv.find("kt:two");
  ASSERT_NE(row, std::string::npos) << csv;
  // ...,measurement_id,config,median_ms,gflops,kernel_gflops,updated_at
  EXPECT_NE(csv.find(",a=1,1,,,", row), std::string::npos) << csv;
}

TEST(ReportUntrusted, ImportedDevicesAreNoImplementationsOfThisMachine) {
  // The comparison of implementations counts the platforms of devices measured here, but its
  // tables listed imported ones (a Kernel Tuner or CLBlast file's, of no implementation here).
  test::TempDir dir;
  Store store(dir / "t.db");
  DeviceInfo a = device("Vendor", "A"), b = device("Vendor", "B"), c = device("Vendor", "Far GPU");
  a.platform_name = "One", b.platform_name = "Two", c.platform_name = "Three";
  for (const auto* d : {&a, &b, &c}) {
    store.upsert_device(*d);
    SessionRecord s;
    s.device_key = d->key, s.problem = square(256);
    const auto id = store.begin_session(s);
    store.add_measurement(measurement(d->key, id, tiled(64, 64, 2), square(256), Status::kOk, 1.0));
    store.end_session(id, "completed");
  }
  auto mark =
      store.db().prepare("UPDATE devices SET source = 'imported:kerneltuner' WHERE key = ?");
  mark.bind(1, c.key);
  mark.run();
  const std::string md = write_markdown(store, dir / "r");
  const std::size_t at = md.find("Implementations side by side");
  const std::string compared = md.substr(at, md.find("\n## ", at) - at);  // its subsections too
  ASSERT_NE(compared.find("What each best asks of the hardware"), std::string::npos) << compared;
  EXPECT_NE(compared.find("| One |"), std::string::npos) << compared;
  EXPECT_EQ(compared.find("Far GPU"), std::string::npos) << compared;
}

TEST(ReportUntrusted, AConfigurationMeasuredAgainCountsOnceForItsParameters) {
  // The default, timed again as the drift reference, made its values the medians: "worst
  // value" was the default's in every row. Here MWG=64 is fast once (timed 5 times) and slow
  // twice; MWG=32 in between.
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A");
  store.upsert_device(a);
  const auto add = [&](const TiledConfig& c, double ms) {
    store.add_measurement(measurement(a.key, 0, c, square(256), Status::kOk, ms));
  };
  for (int i = 0; i < 5; ++i) add(tiled(64, 64, 2), 1.0);
  add(tiled(64, 64, 4), 10.0);
  add(tiled(64, 32, 4), 10.0);
  add(tiled(32, 64, 2), 3.0);
  const std::string md = section(write_markdown(store, dir / "r"), "Which parameters matter");
  EXPECT_NE(md.find("From 8 Ok measurements of 4 configurations"), std::string::npos) << md;
  // Best value 32, worst 64: | MWG | 2 | spread | 32 | median | 64 | median |
  const std::size_t row = md.find("| MWG | 2 | ");
  ASSERT_NE(row, std::string::npos) << md;
  std::vector<std::string> cells;
  std::istringstream line(md.substr(row + 1, md.find('\n', row) - row - 1));
  for (std::string cell; std::getline(line, cell, '|');) cells.push_back(cell);
  ASSERT_GE(cells.size(), 6u) << md;
  EXPECT_EQ(cells[3], " 32 ") << md;
  EXPECT_EQ(cells[5], " 64 ") << md;
}

// A parameter at its default is left out of a configuration's text (PACK=1): the report left it
// out of "which parameters matter", where PACK alone made a 3x difference, and left the best
// table's cell empty.
TEST(ReportUntrusted, AParameterLeftOutOfTheTextIsAtItsDefault) {
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A");
  store.upsert_device(a);
  for (const int pack : {0, 1}) {
    for (const int vwm : {1, 2, 4, 8}) {
      TiledConfig c = tiled(64, 64, vwm);
      c.PACK = pack;
      store.add_measurement(
          measurement(a.key, 0, c, square(256), Status::kOk, (pack ? 3.0 : 1.0) + 0.01 * vwm));
    }
  }
  ASSERT_EQ(to_string(KernelConfig(tiled(64, 64, 2))).find("PACK"), std::string::npos);
  const std::string md = write_markdown(store, dir / "r");
  const std::string matter = section(md, "Which parameters matter");
  EXPECT_NE(matter.find("| PACK | 2 | "), std::string::npos) << matter;
}

TEST(ReportUntrusted, BuiltInDefaultsAreNotShownAsTuned) {
  // A bench on a device never tuned times the library's built-in defaults as its "tuned"
  // subject; the report showed them as tuned, in the tables, the roofline and across devices.
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A");
  store.upsert_device(a);
  const GemmProblem p = square(1024);
  // The bench adds to the note what else it saw (a busy machine, the wall clock's timing).
  add_bench(
      store, a.key, "tuned", "tiled", to_string(KernelConfig(tiled(64, 64, 2))), p, "Ok",
      p.flops() / 5e6,
      std::string(rows::kBuiltInDefaultsNote) + "; busy machine: others used 40% of the CPUs");
  add_bench(store, a.key, "naive", "", "", p, "Ok", p.flops() / 1e6);
  rows::put_roof(store, {a.key, 32, 1000, 100, "2024-05-01T10:00:00Z"});
  const std::string md = write_markdown(store, dir / "r");
  EXPECT_NE(md.find("| naive (naive) |"), std::string::npos) << md;  // the roofline's table
  EXPECT_NE(md.find("| tuned (built-in defaults) \\[GFLOPS\\] |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| tuned \\[GFLOPS\\] |"), std::string::npos) << md;
  EXPECT_EQ(md.find("tuned (tiled)"), std::string::npos) << md;   // not placed as tuned
  EXPECT_EQ(md.find("Above the peak"), std::string::npos) << md;  // said only where one is
  // The CSV files hold the database's values: its subject is "tuned".
  const std::string csv = slurp(dir / "r/bench.csv");
  EXPECT_EQ(csv.find("tuned (built-in defaults)"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",tuned,"), std::string::npos) << csv;
  // Tuned later: the tuned run replaces the defaults, which are no column of their own then.
  add_bench(store, a.key, "tuned", "tiled", to_string(KernelConfig(tiled(64, 64, 2))), p, "Ok",
            p.flops() / 9e6, "parameters: exact");
  const std::string later = write_markdown(store, dir / "r2");
  EXPECT_NE(later.find("| tuned \\[GFLOPS\\] |"), std::string::npos) << later;
  EXPECT_EQ(later.find("built-in defaults"), std::string::npos) << later;
}

TEST(ReportUntrusted, TwoDevicesOfOneNameAreToldApartByTheirDriver) {
  // After a driver upgrade the same GPU is two devices: their headings, columns and legends
  // were the same name.
  test::TempDir dir;
  Store store(dir / "t.db");
  DeviceInfo before = device("Vendor", "GPU X"), after = before, other = device("Vendor", "Y");
  after.driver_version = "2.0";
  after.key = device_key(after.vendor, after.name, after.driver_version);
  for (const auto* d : {&before, &after, &other}) {
    store.upsert_device(*d);
    store.add_measurement(measurement(d->key, 0, tiled(64, 64, 2), square(256), Status::kOk, 1.0));
  }
  const std::string md = write_markdown(store, dir / "r");
  EXPECT_NE(md.find("## GPU X (driver 1.0)"), std::string::npos) << md;
  EXPECT_NE(md.find("## GPU X (driver 2.0)"), std::string::npos) << md;
  EXPECT_NE(md.find("| GPU X (driver 2.0) |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Y\n"), std::string::npos) << md;  // a name of its own stays as it is
}

TEST(ReportUntrusted, ADeviceWithOnlyARoofShowsIt) {
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A");
  store.upsert_device(a);
  rows::put_roof(store, {a.key, 32, 271.8, 46.2, "2024-05-01T10:00:00Z"});
  const std::string md = write_markdown(store, dir / "r");
  EXPECT_EQ(md.find("No results are stored for this device"), std::string::npos) << md;
  EXPECT_NE(md.find("peak 271.8 GFLOPS, bandwidth 46.2 GB/s"), std::string::npos) << md;
}

TEST(ReportUntrusted, ImportedSingleTimesHaveNoSpreadAndTookNoTimeHere) {
  // A CLBlast tuner file holds one time per configuration, and its session the import's time:
  // the best's noise said "spread 0.0 %" and the session's wall time 0 s.
  test::TempDir dir;
  Store store(dir / "t.db");
  import_file(store,
              std::string(MMTUNE_KERNELS_DIR) + "/../tests/data/clblast/clblast_xgemm_1_32.json");
  auto measured = store.db().prepare("UPDATE devices SET source = 'measured'");
  measured.run();  // as on a device also tuned here: shown like any
  const std::string md = write_markdown(store, dir / "r");
  EXPECT_NE(md.find("| 1024x1024x1024 fp32 col NT | tiled |"), std::string::npos) << md;
  EXPECT_EQ(md.find("spread 0"), std::string::npos) << md;
  EXPECT_NE(md.find("Z |  | 3 | 3 | 0 | none | imported |"), std::string::npos) << md;
  // sessions.csv as the HTML: its wall_s empty, not 0.
  const std::string csv = slurp(dir / "r/sessions.csv");
  EXPECT_NE(csv.find(",imported,"), std::string::npos) << csv;
  // evaluations, Ok, stopped early, failures, wall
  EXPECT_NE(csv.find(",3,3,0,,,"), std::string::npos) << csv;
  auto q = store.db().prepare("SELECT key FROM devices");
  ASSERT_TRUE(q.step());
  GemmProblem p = square(1024);
  p.layout = Layout::kColMajor, p.trans_b = true;
  const auto best = store.best(q.text(0), p);
  ASSERT_TRUE(best);
  EXPECT_LT(best->spread, 0);  // unknown, as `mmtune best` then prints none
}

TEST(ReportUntrusted, ACLBlastBestShowsItsWorkGroup) {
  // Read with the direct kernel's names, CLBlast's Xgemm parameters gave a work-group of 0.
  test::TempDir dir;
  Store store(dir / "t.db");
  DeviceInfo a = device("Vendor", "A"), b = device("Vendor", "B");
  a.platform_name = "One", b.platform_name = "Two";
  for (const auto* d : {&a, &b}) store.upsert_device(*d);
  MeasurementRecord r = measurement(a.key, 0, tiled(64, 64, 2), square(512), Status::kOk, 1.0);
  r.kernel = kClblastKernel;
  r.config =
      "MWG=64 NWG=64 KWG=32 MDIMC=16 NDIMC=4 MDIMA=16 NDIMB=4 KWI=2 VWM=2 VWN=4 STRM=0 "
      "STRN=0 SA=1 SB=0";
  store.add_measurement(r);
  store.add_measurement(measurement(b.key, 0, tiled(64, 64, 2), square(512), Status::kOk, 1.0));
  const std::string md = write_markdown(store, dir / "r");
  EXPECT_NE(md.find("| clblast\\_xgemm | 64 | 2 x 4 | yes, no |"), std::string::npos) << md;
}

TEST(ReportUntrusted, AUsersKernelWhoseRunsAllFailedShowsItsSizes) {
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A");
  store.upsert_device(a);
  MeasurementRecord r;
  r.device_key = a.key, r.kernel = "spec:saxpy:0123456789abcdef", r.config = "wg=64";
  r.problem.m = 4096, r.problem.n = 4096, r.problem.k = 15;
  r.result.status = Status::kBuildFailed;
  store.add_measurement(r);
  const std::string md = write_markdown(store, dir / "r");
  EXPECT_NE(md.find("| 4096,4096,15 |"), std::string::npos) << md;
  // Its sizes are no GEMM problem ("4096x4096x15 fp32 row NN") in the session table either.
  SessionRecord s;
  s.device_key = a.key, s.kernels = r.kernel, s.problem = r.problem;
  r.session_id = store.begin_session(s);
  store.add_measurement(r);
  const std::string again = write_markdown(store, dir / "r2");
  EXPECT_EQ(again.find("4096x4096x15"), std::string::npos) << again;
  EXPECT_NE(again.find("| \\#1 | 4096,4096,15 |"), std::string::npos) << again;
}

TEST(ReportUntrusted, AUsersKernelsValuesAreOrderedAsNumbers) {
  // A spec's strings may be digits of any length ("99999999999999999999" made the report throw)
  // or decimals (16.0 came before 2.0 as text, and took a tie for the best value).
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A");
  store.upsert_device(a);
  const auto add = [&](const std::string& config, double ms) {
    MeasurementRecord r;
    r.device_key = a.key, r.kernel = "spec:scale:0123456789abcdef", r.config = config;
    r.problem.m = 4096, r.problem.n = 1, r.problem.k = 1;
    r.result.status = Status::kOk;
    r.result.routine_ms = {ms, ms, ms};
    r.result.median_ms = ms, r.result.min_ms = ms, r.result.max_ms = ms;
    store.add_measurement(r);
  };
  for (int i = 0; i < 3; ++i) {
    add("v=2.0 w=99999999999999999999", 1.0);
    add("v=16.0 w=7", 1.0);
    add("v=x w=7", 4.0);
  }
  const std::string md = section(write_markdown(store, dir / "r"), "Which parameters matter");
  EXPECT_NE(md.find("| v | 3 | 4 | 2.0 | 1 | x | 4 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| w | 2 | 2.5 | 99999999999999999999 | 1 | 7 | 2.5 |"), std::string::npos)
      << md;
}

}  // namespace
}  // namespace mmtune
