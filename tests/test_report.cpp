// mmtune report: every file it writes, their structure and escaping, and numbers equal to the
// database's (the pieces it is made of: test_report_parts.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "mmtune/error.hpp"
#include "report/report.hpp"
#include "report_fixture.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;

using report_test::add_bench;
using report_test::device;
using report_test::measurement;
using report_test::square;
using report_test::tiled;
using report_test::well_formed;
using test::slurp;

// Three devices: one with bench rows, sessions and a roofline; one tuned only; one imported.
struct Fixture {
  test::TempDir dir;
  std::string db_path = dir / "tuning.db";
  Store store{db_path};
  DeviceInfo a = device("Vendor <One> & Co", "GPU <A> & \"B\" 'c'");
  DeviceInfo b = device("Vendor Two", "Second Device | pipes * stars");
  DeviceInfo c = device("Vendor Three", "Imported CLBlast GPU");

  Fixture() {
    for (const auto* d : {&a, &b, &c}) store.upsert_device(*d);
    auto mark = store.db().prepare("UPDATE devices SET source = 'imported:clblast' WHERE key = ?");
    mark.bind(1, c.key);
    mark.run();

    const Status statuses[] = {Status::kBuildFailed, Status::kTimeout, Status::kWrongResult};
    for (const auto* d : {&a, &b}) {
      const double scale = d == &a ? 1.0 : 2.5;
      for (const std::size_t n : {256, 512, 1024}) {
        if (d == &b && n == 1024) continue;
        SessionRecord s;
        s.device_key = d->key, s.command_line = "mmtune --n " + std::to_string(n);
        s.strategy = "model", s.kernels = "tiled,direct", s.space = "full";
        s.seed = 1, s.budget = 40, s.time_limit_s = 540;
        s.problem = square(n);
        const auto id = store.begin_session(s);
        const GemmProblem p = square(n);
        store.add_measurement(measurement(d->key, id, NaiveConfig{}, p, Status::kOk, 40 * scale));
        store.add_measurement(measurement(d->key, id, ClassicConfig{}, p, Status::kOk, 10 * scale));
        store.add_measurement(
            measurement(d->key, id, default_config(KernelKind::kTiled), p, Status::kOk, 5 * scale));
        int i = 0;
        for (const int mwg : {32, 64, 128}) {
          for (const int nwg : {32, 64, 128}) {
            for (const int vwm : {1, 2, 4}) {
              const double ms = scale * (8.0 - mwg / 32.0 - nwg / 64.0 + vwm * 0.1) *
                                double(n * n * n) / (512.0 * 512 * 512);
              const Status st = i % 7 == 3 ? statuses[i % 3] : Status::kOk;
              store.add_measurement(measurement(d->key, id, tiled(mwg, nwg, vwm), p, st, ms));
              ++i;
            }
          }
        }
        DirectConfig dc;
        dc.WGD = 32;
        store.add_measurement(measurement(d->key, id, dc, p, Status::kOk, 6 * scale));
        if (n != 1024) store.end_session(id, "completed");  // the 1024 one was killed
      }
    }
    // Imported results: no session.
    for (const std::size_t n : {512, 1024, 2048}) {
      store.add_measurement(
          measurement(c.key, 0, tiled(64, 128, 2), square(n), Status::kOk, 0.3 * double(n) / 512));
    }

    for (const std::size_t n : {256, 512, 1024}) {
      const GemmProblem p = square(n);
      const double f = double(n * n * n) / (512.0 * 512 * 512);
      add_bench(store, a.key, "tuned", "tiled", to_string(tiled(128, 128, 4)), p, "Ok", 2.0 * f);
      add_bench(store, a.key, "default", "tiled", "", p, "Ok", 5.0 * f);
      add_bench(store, a.key, "naive", "naive", "", p, "Ok", 40.0 * f);
      // At 1024 the bench refused its own figure (above the device's peak): a status, no number.
      add_bench(store, a.key, "classic", "classic", "TILE=16", p,
                n == 1024 ? "MeasurementError" : "Ok", (n == 1024 ? 0.001 : 10.0) * f);
      add_bench(store, a.key, "clblast", "", "", p, n == 256 ? "Failed" : "Ok",
                n == 256 ? std::nullopt : std::optional<double>(2.5 * f));
      add_bench(store, a.key, "host-blas", "", "", p, "NotAvailable", std::nullopt);
    }
    // An older run of the same subject and size: the report takes the latest.
    auto older = store.db().prepare("UPDATE bench SET id = id + 1000");
    older.run();
    add_bench(store, a.key, "tuned", "tiled", to_string(tiled(128, 128, 4)), square(256), "Ok",
              99.0);
    auto fix = store.db().prepare("UPDATE bench SET id = 1 WHERE median_ms = 99.0");
    fix.run();

    auto roof = store.db().prepare(
        "INSERT INTO roofline (device_id, precision, peak_gflops, bandwidth_gbs, measured_at) "
        "VALUES ((SELECT id FROM devices WHERE key = ?), ?, ?, ?, ?)");
    roof.bind(1, a.key).bind(2, 32).bind(3, 1234.5).bind(4, 321.25).bind(5, "2024-05-01T09:00:00Z");
    roof.run();
  }
};

// A minimal RFC 4180 reader.
std::vector<std::vector<std::string>> read_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"', ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      rows.back().push_back(field), field.clear();
    } else if (ch == '\r') {
      continue;
    } else if (ch == '\n') {
      rows.back().push_back(field), field.clear();
      rows.emplace_back();
    } else {
      field += ch;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

std::map<std::string, std::size_t> columns(const std::vector<std::string>& head) {
  std::map<std::string, std::size_t> c;
  for (std::size_t i = 0; i < head.size(); ++i) c[head[i]] = i;
  return c;
}

// The text content of <text> elements.
std::vector<std::string> svg_texts(const std::string& svg) {
  std::vector<std::string> out;
  static const std::regex text_re("<text[^>]*>([^<]*)(<title>[^<]*</title>)?([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re);
       it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str() + (*it)[3].str());
  }
  return out;
}

TEST(ReportWrite, EveryFileWithEveryDeviceAndTheDatabasesNumbers) {
  Fixture f;
  const std::string out = f.dir / "report out";
  ReportOptions options;
  options.out_dir = out;
  const ReportSummary sum = write_report(f.store, options);
  EXPECT_EQ(sum.devices, 3u);
  ASSERT_FALSE(sum.files.empty());
  EXPECT_EQ(sum.files.front(), out + "/report.html");
  for (const char* name : {"report.html", "report.md", "bench.csv", "best.csv", "measurements.csv",
                           "sessions.csv", "roofline.csv"}) {
    EXPECT_TRUE(fs::is_regular_file(fs::path(out) / name)) << name;
  }
  for (const auto& file : sum.files) EXPECT_TRUE(fs::is_regular_file(file)) << file;

  const std::string html = slurp(out + "/report.html");
  const std::string md = slurp(out + "/report.md");
  for (const auto* d : {&f.a, &f.b, &f.c}) {
    EXPECT_NE(html.find(html_escape(d->name)), std::string::npos) << d->name;
    EXPECT_NE(md.find(markdown_escape(d->name)), std::string::npos) << d->name;
  }
  EXPECT_EQ(html.find("<A>"), std::string::npos);  // never unescaped
  EXPECT_NE(html.find("<span class=\"badge\">imported: clblast</span>"), std::string::npos);
  EXPECT_TRUE(well_formed(html, {"meta"}));

  // Self-contained: no URL, no script, nothing loaded from elsewhere.
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  for (std::size_t at = html.find("url("); at != std::string::npos;
       at = html.find("url(", at + 1)) {
    EXPECT_EQ(html[at + 4], '#') << html.substr(at, 30);
  }

  // Charts: inline in the HTML, as files for the Markdown, all well-formed with unit labels.
  const std::size_t inline_charts = [&] {
    std::size_t n = 0;
    for (std::size_t at = html.find("<svg"); at != std::string::npos;
         at = html.find("<svg", at + 1)) {
      ++n;
    }
    return n;
  }();
  EXPECT_EQ(inline_charts, sum.charts);
  EXPECT_GE(sum.charts, 10u);
  std::set<std::string> kinds;
  static const std::regex unit(R"(\[(GFLOPS|FLOP/byte|%|elements|ratio)\])");
  for (const auto& entry : fs::directory_iterator(fs::path(out) / "charts")) {
    const std::string svg = slurp(entry.path().string());
    const std::string name = entry.path().filename().string();
    kinds.insert(name.substr(name.find('-') + 1));
    EXPECT_EQ(svg.rfind("<svg", 0), 0u) << name;
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n") << name;
    EXPECT_TRUE(well_formed(svg)) << name;
    std::size_t labels = 0;
    for (const auto& t : svg_texts(svg)) labels += std::regex_search(t, unit);
    EXPECT_GE(labels, 1u) << name << " has no axis label with a unit";
    EXPECT_EQ(svg.find(">no data<"), std::string::npos) << name << " is empty";
    // The Markdown shows it, by a relative path.
    EXPECT_NE(md.find("](charts/" + name + ")"), std::string::npos) << name;
  }
  for (const char* kind : {"gflops-fp32.svg", "peak-fp32.svg", "roofline-fp32.svg",
                           "convergence.svg", "parameters.svg", "fp32.svg"}) {
    EXPECT_TRUE(kinds.count(kind)) << kind;
  }

  // best.csv: every best row, numbers exactly the database's.
  const auto best = read_csv(slurp(out + "/best.csv"));
  ASSERT_GT(best.size(), 1u);
  const auto bc = columns(best[0]);
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<double, double>> expected;
  auto q = f.store.db().prepare(
      "SELECT d.key, b.kernel, b.n, b.median_ms, b.gflops FROM best b "
      "JOIN devices d ON d.id = b.device_id");
  while (q.step()) {
    expected[{q.text(0), q.text(1), q.text(2)}] = {q.real(3), q.real(4)};
  }
  ASSERT_EQ(best.size() - 1, expected.size());
  for (std::size_t i = 1; i < best.size(); ++i) {
    const auto& r = best[i];
    ASSERT_EQ(r.size(), best[0].size());
    const auto it = expected.find({r[bc.at("device_key")], r[bc.at("kernel")], r[bc.at("n")]});
    ASSERT_NE(it, expected.end());
    EXPECT_EQ(std::strtod(r[bc.at("median_ms")].c_str(), nullptr), it->second.first);
    EXPECT_EQ(std::strtod(r[bc.at("gflops")].c_str(), nullptr), it->second.second);
  }

  // bench.csv: every row, by id.
  const auto bench = read_csv(slurp(out + "/bench.csv"));
  const auto hc = columns(bench[0]);
  std::size_t rows = 0;
  auto b = f.store.db().prepare(
      "SELECT id, subject, status, note, median_ms, gflops, kernel_gflops FROM bench");
  std::map<std::string, std::vector<std::string>> by_id;
  for (std::size_t i = 1; i < bench.size(); ++i) by_id[bench[i][hc.at("id")]] = bench[i];
  while (b.step()) {
    ++rows;
    const auto it = by_id.find(std::to_string(b.integer(0)));
    ASSERT_NE(it, by_id.end());
    const auto& r = it->second;
    EXPECT_EQ(r[hc.at("subject")], b.text(1));
    EXPECT_EQ(r[hc.at("status")], b.text(2));
    EXPECT_EQ(r[hc.at("note")], b.text(3));
    for (const auto& [col, idx] :
         {std::pair{"median_ms", 4}, std::pair{"gflops", 5}, std::pair{"kernel_gflops", 6}}) {
      if (b.is_null(idx)) {
        EXPECT_EQ(r[hc.at(col)], "");
      } else {
        EXPECT_EQ(std::strtod(r[hc.at(col)].c_str(), nullptr), b.real(idx)) << col;
      }
    }
  }
  EXPECT_EQ(rows, bench.size() - 1);

  // measurements.csv and sessions.csv: one row per database row; the messages survive quoting.
  const auto meas = read_csv(slurp(out + "/measurements.csv"));
  auto count = f.store.db().prepare("SELECT COUNT(*) FROM measurements");
  count.step();
  EXPECT_EQ(meas.size() - 1, std::size_t(count.integer(0)));
  const auto mc = columns(meas[0]);
  bool message_seen = false;
  for (std::size_t i = 1; i < meas.size(); ++i) {
    message_seen |= meas[i][mc.at("message")] == "error: <bad> & \"worse\", line 1\nline 2";
  }
  EXPECT_TRUE(message_seen);
  const auto sessions = read_csv(slurp(out + "/sessions.csv"));
  EXPECT_EQ(sessions.size() - 1, f.store.sessions().size());
  const auto sc = columns(sessions[0]);
  EXPECT_EQ(sessions[1][sc.at("evaluations")], "31");  // 3 baselines + 27 tiled + 1 direct
  EXPECT_NE(sessions[1][sc.at("failures")].find("BuildFailed="), std::string::npos);

  // The latest bench run per subject and size is shown (2 * 256^3 FLOP in 0.25 ms), not the
  // older one (in 99 ms).
  EXPECT_NE(html.find(">134.2 ("), std::string::npos);
  EXPECT_EQ(html.find(">0.3389"), std::string::npos);
  // Subjects that were not built in get no column; failed runs show their status.
  EXPECT_EQ(html.find("host-blas [GFLOPS]"), std::string::npos);
  EXPECT_NE(html.find("clblast [GFLOPS]"), std::string::npos);
  EXPECT_NE(html.find(">Failed<"), std::string::npos);
  EXPECT_NE(html.find(">MeasurementError<"), std::string::npos);
  EXPECT_EQ(html.find(">268435"), std::string::npos);  // 2 * 1024^3 FLOP in 8 us
}

TEST(ReportWrite, DeviceFiltersSelectByKeyOrName) {
  Fixture f;
  ReportOptions options;
  options.out_dir = f.dir / "one";
  options.devices = {"second device"};
  const ReportSummary sum = write_report(f.store, options);
  EXPECT_EQ(sum.devices, 1u);
  const std::string html = slurp(options.out_dir + "/report.html");
  EXPECT_NE(html.find(html_escape(f.b.name)), std::string::npos);
  EXPECT_EQ(html.find(html_escape(f.a.name)), std::string::npos);
  const auto best = read_csv(slurp(options.out_dir + "/best.csv"));
  const auto bc = columns(best[0]);
  for (std::size_t i = 1; i < best.size(); ++i) EXPECT_EQ(best[i][bc.at("device_key")], f.b.key);

  options.out_dir = f.dir / "two";
  options.devices = {f.a.key, "imported"};
  EXPECT_EQ(write_report(f.store, options).devices, 2u);

  options.devices = {"no such device"};
  EXPECT_THROW(write_report(f.store, options), UsageError);
}

// A batch is a problem of its own: 64^3 batch 10 is neither merged with nor hidden by 64^3.
TEST(ReportWrite, ABatchIsAProblemOfItsOwn) {
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo d = device("Vendor", "Batched GPU");
  store.upsert_device(d);
  GemmProblem batch = square(64);
  batch.batch = 10;
  for (const auto& [p, ms] : {std::pair{square(64), 0.02}, std::pair{batch, 0.05}}) {
    store.add_measurement(measurement(d.key, 0, tiled(32, 32, 1), p, Status::kOk, ms * 2));
    store.add_measurement(measurement(d.key, 0, tiled(64, 64, 2), p, Status::kOk, ms));
  }
  ReportOptions options;
  options.out_dir = dir / "r";
  write_report(store, options);
  const std::string md = slurp(options.out_dir + "/report.md");
  EXPECT_NE(md.find("| 64x64x64 fp32 row NN | tiled |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 64x64x64 fp32 row NN batch 10 | tiled |"), std::string::npos) << md;
  // The parameters' influence is of one problem's measurements.
  EXPECT_EQ(md.find("From 4 Ok measurements"), std::string::npos) << md;
  // The files that hold the numbers tell the two apart too.
  const auto best = read_csv(slurp(options.out_dir + "/best.csv"));
  ASSERT_EQ(best.size(), 3u);
  const auto bc = columns(best[0]);
  std::set<std::string> batches = {best[1][bc.at("batch")], best[2][bc.at("batch")]};
  EXPECT_EQ(batches, (std::set<std::string>{"1", "10"}));
}

// The charts are named by position (d2-...): an earlier report's in the same place showed other
// devices than this one's. Files the report did not write there are not its to remove.
TEST(ReportWrite, AnEarlierReportsChartsAreRemoved) {
  Fixture f;  // devices with charts of their own
  const std::string out = f.dir / "r";
  ReportOptions options;
  options.out_dir = out;
  write_report(f.store, options);
  ASSERT_TRUE(fs::exists(out + "/charts/d2-convergence.svg"));
  std::ofstream(out + "/charts/mine.svg") << "<svg/>";
  options.devices = {f.a.key};  // one device: no d2 charts now
  write_report(f.store, options);
  EXPECT_FALSE(fs::exists(out + "/charts/d2-convergence.svg"));
  EXPECT_TRUE(fs::exists(out + "/charts/d1-convergence.svg"));
  EXPECT_TRUE(fs::exists(out + "/charts/mine.svg"));
}

TEST(ReportWrite, EmptyDatabase) {
  test::TempDir dir;
  Store store(dir / "empty.db");
  ReportOptions options;
  options.out_dir = dir / "r";
  const ReportSummary sum = write_report(store, options);
  EXPECT_EQ(sum.devices, 0u);
  EXPECT_TRUE(well_formed(slurp(options.out_dir + "/report.html"), {"meta"}));
}

// A session's best is its search's: a naive baseline faster than every searched variant (a tune
// whose tiled variants all failed) was its best, and its convergence. SlowerEarlyStop is no
// failure, as the tune counts it.
TEST(ReportWrite, ASessionsBestIsItsSearchsNotABaselines) {
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo a = device("Vendor", "A");
  store.upsert_device(a);
  SessionRecord s;
  s.device_key = a.key, s.command_line = "mmtune --n 256", s.strategy = "model";
  s.kernels = "tiled", s.space = "full", s.seed = 1, s.budget = 3, s.time_limit_s = 60;
  s.problem = square(256);
  const auto id = store.begin_session(s);
  const GemmProblem p = square(256);
  store.add_measurement(measurement(a.key, id, NaiveConfig{}, p, Status::kOk, 1.0));
  store.add_measurement(measurement(a.key, id, tiled(64, 64, 2), p, Status::kOk, 10.0));
  store.add_measurement(measurement(a.key, id, tiled(32, 64, 2), p, Status::kSlowerEarlyStop, 0));
  store.end_session(id, "budget");
  ReportOptions options;
  options.out_dir = dir / "r";
  write_report(store, options);
  const auto sessions = read_csv(slurp(options.out_dir + "/sessions.csv"));
  ASSERT_EQ(sessions.size(), 2u);
  const auto sc = columns(sessions[0]);
  EXPECT_NEAR(std::stod(sessions[1][sc.at("best_gflops")]), p.flops() / 10e6, 1e-6);
  EXPECT_EQ(sessions[1][sc.at("ok")], "2");
  EXPECT_EQ(sessions[1][sc.at("stopped_early")], "1");
  EXPECT_EQ(sessions[1][sc.at("failures")], "");
  const std::string md = slurp(options.out_dir + "/report.md");
  EXPECT_EQ(md.find("SlowerEarlyStop 1"), std::string::npos) << md;
}

// The report says where to open it; --open without a browser opener says so and still succeeds.
TEST(ReportCli, SaysWhereToOpenItAndOpenWithoutABrowserIsAWarning) {
  test::TempDir dir;
  { Store store(dir / "t.db"); }
  const auto r = test::run_mmtune({"report", "-o", dir / "r", "--open"},
                                  {{"MMTUNE_DB", dir / "t.db"}, {"PATH", "/nonexistent"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Open " + (dir / "r/report.html")), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("no browser opener (xdg-open) here"), std::string::npos) << r.err;
  // --device, as every other command spells it, is --devices here too (it was "not expected").
  const auto named = test::run_mmtune({"report", "-o", dir / "r", "--device", "nosuch"},
                                      {{"MMTUNE_DB", dir / "t.db"}});
  EXPECT_EQ(named.exit_code, 2);
  EXPECT_NE(named.err.find("no stored device matches 'nosuch'"), std::string::npos) << named.err;
}

}  // namespace
}  // namespace mmtune
