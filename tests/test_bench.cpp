// `mmtune bench`: every subject side by side, verified, stored; through the library and the CLI.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/bench.hpp"
#include "bench/roofline.hpp"
#include "core/cpu_load.hpp"
#include "store/queries.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

TEST(Bench, EverySubjectIsMeasuredVerifiedAndStored) {
  test::TempDir dir;
  Store store(dir / "t.db");
  const ParameterLookup lookup;  // no tuned parameters: the tuned row says so
  BenchOptions o;
  o.shapes = {GemmShape::square(64), {96, 8, 40}};  // a square and a skinny problem
  o.min_rounds = 2;
  o.max_rounds = 3;
  const auto rows = run_bench(test::pocl_device("pthread"), store, lookup, o);
  ASSERT_EQ(rows.size(), 14u);
  std::map<std::string, int> ok;
  for (const auto& r : rows) {
    if (r.status == "Ok") {
      ++ok[r.subject];
      EXPECT_GE(r.samples_ms.size(), 1u);
      EXPECT_DOUBLE_EQ(r.gflops, r.flops() / (r.median_ms * 1e6));
      EXPECT_LE(r.min_ms, r.median_ms);
      EXPECT_LE(r.median_ms, r.max_ms);
      // mmtune's subjects have a kernel time within the whole call; the libraries have none.
      if (r.subject == "host-blas" || r.subject == "clblast" || r.subject == "fma-peak") {
        EXPECT_EQ(r.kernel_gflops, 0.0);
      } else {
        EXPECT_GT(r.kernel_median_ms, 0.0) << r.subject;
        EXPECT_LE(r.kernel_median_ms, r.max_ms) << r.subject;
      }
    }
    if (r.subject == "tuned") {
      EXPECT_NE(r.note.find("no tuned parameters"), std::string::npos);
    }
  }
  for (const char* s : {"tuned", "default", "naive", "classic", "fma-peak"}) {
    EXPECT_EQ(ok[s], 2) << s;
  }
  EXPECT_EQ(ok["clblast"], have_clblast() ? 2 : 0);
  EXPECT_EQ(ok["host-blas"], have_host_blas() ? 2 : 0);  // PoCL is the host CPU
  auto q = store.db().prepare("SELECT COUNT(*), COUNT(DISTINCT run_id) FROM bench");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.integer(0), 14);
  EXPECT_EQ(q.integer(1), 1);
}

// Subjects are called in rounds, one call each, until each has enough samples; statistics come
// from each subject's own samples. Fake calls: no device, no clock.
TEST(Bench, TimesSubjectsInRoundsUntilEachHasEnough) {
  BenchOptions o;
  o.min_rounds = 3;
  o.max_rounds = 5;
  o.max_seconds = 1.0;
  std::string order;
  BenchRow fast, medium, slow;
  for (BenchRow* r : {&fast, &medium, &slow}) r->problem.m = r->problem.n = r->problem.k = 100;
  double fast_ms = 9;
  const auto subject = [&](BenchRow& row, char name, std::function<double()> wall) {
    return TimedSubject{&row, [&order, name, wall] {
                          order += name;
                          return std::pair{wall(), name == 'f' ? 4.0 : 0.0};
                        }};
  };
  time_side_by_side(
      {subject(fast, 'f', [&] { return fast_ms += 1; }), subject(medium, 'm', [] { return 400.0; }),
       subject(slow, 's', [] { return 2000.0; })},
      o);
  // slow: its first call is over max_seconds; medium: 3 calls reach max_seconds; fast: max_rounds.
  // After its first round, fast (under kWarmUpBelowMs) is called twice in a row, the first untimed.
  EXPECT_EQ(order, "fmsffmffmffff");
  EXPECT_EQ(fast.samples_ms, (std::vector<double>{10, 12, 14, 16, 18}));
  EXPECT_DOUBLE_EQ(fast.median_ms, 14);
  EXPECT_DOUBLE_EQ(fast.min_ms, 10);
  EXPECT_DOUBLE_EQ(fast.max_ms, 18);
  EXPECT_DOUBLE_EQ(fast.gflops, 2e6 / (14 * 1e6));
  EXPECT_DOUBLE_EQ(fast.kernel_median_ms, 4);
  EXPECT_EQ(medium.samples_ms.size(), 3u);
  EXPECT_EQ(medium.kernel_median_ms, 0.0);
  EXPECT_EQ(slow.samples_ms, (std::vector<double>{2000}));
  EXPECT_DOUBLE_EQ(slow.median_ms, 2000);
}

// A call shorter than kTurnMs is timed back to back until its turn adds up to kTurnMs, so a fast
// subject gets many samples while the rounds still alternate the subjects.
TEST(Bench, TimesShortCallsInTurnsOfTurnMs) {
  BenchOptions o;
  o.min_rounds = o.max_rounds = 2;
  std::string order;
  BenchRow quick, slow;
  for (BenchRow* r : {&quick, &slow}) r->problem.m = r->problem.n = r->problem.k = 100;
  const double quick_ms = kTurnMs / 3.5;  // four calls reach kTurnMs
  time_side_by_side({{&quick,
                      [&] {
                        return order += 'q', std::pair{quick_ms, 0.0};
                      }},
                     {&slow,
                      [&] {
                        return order += 's', std::pair{2 * kTurnMs, 0.0};
                      }}},
                    o);
  // Round two: each one untimed warm-up call, then quick's four timed calls and slow's one.
  EXPECT_EQ(order, "qqqqsqqqqqss");
  EXPECT_EQ(quick.samples_ms.size(), 8u);
  EXPECT_EQ(slow.samples_ms.size(), 2u);
  EXPECT_DOUBLE_EQ(quick.median_ms, quick_ms);
  // One median per round and turn; a subject timed alone shares no rounds and records none.
  EXPECT_EQ(quick.round_ms, (std::vector<double>{quick_ms, quick_ms}));
  EXPECT_EQ(slow.round_ms, (std::vector<double>{2 * kTurnMs, 2 * kTurnMs}));
  BenchRow alone;
  alone.problem = quick.problem;
  time_side_by_side({{&alone, [&] { return std::pair{quick_ms, 0.0}; }}}, o);
  EXPECT_FALSE(alone.samples_ms.empty());
  EXPECT_TRUE(alone.round_ms.empty());
  // A call the clock barely sees ends its turn after kMaxCallsPerTurn calls, not kTurnMs.
  BenchRow tiny;
  tiny.problem = quick.problem;
  time_side_by_side({{&tiny, [&] { return std::pair{1e-6, 0.0}; }}}, o);
  EXPECT_EQ(tiny.samples_ms.size(), 2 * kMaxCallsPerTurn);
}

// The machine slows down between rounds (6 ms, then 8-11 ms a call): b is 10 % slower than a in
// every round, which the pairing finds however the rounds' samples fall; the ratio of the two
// medians, a subject timed apart, or no time at all are told apart.
TEST(Bench, GflopsRatioPairsTheRoundsSoThatDriftDropsOut) {
  BenchRow a, b;
  for (BenchRow* r : {&a, &b}) r->problem.m = r->problem.n = r->problem.k = 100;
  a.round_ms = {6, 6, 8, 11, 11, 6};
  for (const double t : a.round_ms) b.round_ms.push_back(t * 1.1);
  // Medians over all samples that the drift sets apart: b's fell more in the slow rounds.
  a.gflops = a.flops() / 6e6, b.gflops = b.flops() / 10e6;
  const GflopsRatio r = gflops_ratio(a, b);
  EXPECT_TRUE(r.paired);
  EXPECT_NEAR(r.value, 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(gflops_ratio(b, a).value, 1 / r.value);  // an even count: still reciprocal
  b.round_ms[3] = 11 * 2.0;                                 // one disturbed round moves nothing
  EXPECT_NEAR(gflops_ratio(a, b).value, 1.1, 1e-12);
  b.round_ms.resize(3);  // stopped early: the rounds both ran
  EXPECT_NEAR(gflops_ratio(a, b).value, 1.1, 1e-12);
  // The peak kernel does other work per call: each side's own flops count.
  BenchRow peak = b;
  peak.call_flops = 4 * b.flops();
  EXPECT_NEAR(gflops_ratio(peak, a).value, 4 / 1.1, 1e-12);

  b.round_ms.clear();  // timed apart
  const GflopsRatio apart = gflops_ratio(a, b);
  EXPECT_FALSE(apart.paired);
  EXPECT_NEAR(apart.value, 10.0 / 6.0, 1e-12);
  b.gflops = 0;  // not timed
  EXPECT_EQ(gflops_ratio(a, b).value, 0.0);
}

// OpenBLAS on a kernel set below the CPU's vector width is flagged, in the host row and on stderr.
TEST(BenchCli, FlagsAHostBlasOnGenericKernels) {
  if (!have_host_blas()) GTEST_SKIP() << "built without a CBLAS";
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "a CPU without AVX2";
#else
  GTEST_SKIP() << "the check knows OpenBLAS's x86 kernel sets only";
#endif
  test::TempDir dir;
  const auto host_note = [&](const std::string& core, std::string& err) {
    const auto r = test::run_mmtune(
        {"bench", "--device", "pthread", "--n", "32", "--db", dir / "t.db", "--json"},
        {{"OPENBLAS_CORETYPE", core}});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    err = r.err;
    const auto rows = nlohmann::json::parse(r.out);
    return rows.back()["subject"] == "host-blas" ? rows.back()["note"].get<std::string>() : "";
  };
  std::string err;
  const std::string generic = host_note("Prescott", err);
  EXPECT_NE(generic.find("OpenBLAS runs its Prescott kernels"), std::string::npos) << generic;
  EXPECT_NE(err.find("set OPENBLAS_CORETYPE"), std::string::npos) << err;
  const std::string avx2 = host_note("Haswell", err);
  EXPECT_NE(avx2.find("core Haswell"), std::string::npos) << avx2;
  EXPECT_EQ(avx2.find("OPENBLAS_CORETYPE"), std::string::npos) << avx2;
}

TEST(BenchCli, UsesTunedParametersAndPrintsJson) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  auto tuned = test::run_mmtune({"--device", "pthread", "--n", "64", "--kernel", "tiled", "--space",
                                 "quick", "--budget", "4", "--db", db, "-q"});
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const auto r =
      test::run_mmtune({"bench", "--device", "pthread", "--n", "64", "--db", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0]["subject"], "tuned");
  // The peak kernel ran in the same rounds, after mmtune's subjects; its flops are its own.
  EXPECT_EQ(rows[4]["subject"], "fma-peak");
  EXPECT_EQ(rows[4]["status"], "Ok") << rows[4]["note"];
  EXPECT_GT(rows[4]["flops"].get<double>(), rows[0]["flops"].get<double>());
  EXPECT_DOUBLE_EQ(rows[4]["gflops"].get<double>(),
                   rows[4]["flops"].get<double>() / (rows[4]["median_ms"].get<double>() * 1e6));
  EXPECT_NE(rows[0]["note"].get<std::string>().find("exact"), std::string::npos) << rows[0]["note"];
  // Each row against the tuned one, paired by the rounds they shared (CLBlast is timed apart).
  EXPECT_EQ(rows[0]["vs_tuned"], 1.0);
  for (const auto& row : rows) {
    if (row["status"] != "Ok") continue;
    const bool apart = row["subject"] == "clblast";
    EXPECT_EQ(row["vs_tuned_paired"], !apart) << row["subject"];
    EXPECT_EQ(row["round_ms"].empty(), apart) << row["subject"];
    EXPECT_GT(row["vs_tuned"].get<double>(), 0.0) << row["subject"];
  }
  EXPECT_GE(rows[4]["round_ms"].size(), 3u);  // min_rounds
  const auto bad = test::run_mmtune({"bench", "--device", "pthread", "--n", "64,abc"});
  EXPECT_EQ(bad.exit_code, 2);

  // Only the shapes asked for when --n is not given; each row names its shape.
  const auto skinny = test::run_mmtune({"bench", "--device", "pthread", "--shape",
                                        "8x64x40,64x1x64", "--db", db, "--json", "--no-baselines"});
  ASSERT_EQ(skinny.exit_code, 0) << skinny.err;
  const auto shapes = nlohmann::json::parse(skinny.out);
  ASSERT_EQ(shapes.size(), 10u) << "tuned, default, FMA peak, CLBlast, host BLAS per shape";
  for (const auto& row : shapes) EXPECT_NE(row["subject"], "naive");
  EXPECT_EQ(shapes[0]["m"], 8);
  EXPECT_EQ(shapes[0]["n"], 64);
  EXPECT_EQ(shapes[0]["k"], 40);
  EXPECT_EQ(shapes[0]["status"], "Ok") << shapes[0]["note"];
  EXPECT_EQ(shapes[5]["n"], 1);
  EXPECT_EQ(shapes[5]["status"], "Ok") << shapes[5]["note"];
  const auto text = test::run_mmtune(
      {"bench", "--device", "pthread", "--n", "64", "--shape", "8x64x40", "--db", db});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\n            64  tuned"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\n       8x64x40  tuned"), std::string::npos) << text.out;
}

// A subject the device cannot launch is a row, as in a tune: on a device whose largest
// work-group is 128, the classic baseline's 16 x 16 failed the launch and ended the whole bench
// (exit 1, OpenCL error -54, nothing stored).
TEST(BenchCli, ASubjectOverTheDevicesLimitsIsARow) {
  test::TempDir dir;
  const auto r = test::run_mmtune(
      {"bench", "--device", "pthread", "--n", "32", "--db", dir / "t.db", "--json"},
      {{"POCL_MAX_WORK_GROUP_SIZE", "128"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> by_subject;
  for (const auto& row : rows) by_subject[row["subject"]] = row;
  ASSERT_TRUE(by_subject.count("classic")) << r.out;
  EXPECT_EQ(by_subject["classic"]["status"], "ExceedsLimits");
  for (const char* figure : {"vs_tuned", "median_ms", "gflops", "kernel_median_ms"}) {
    EXPECT_TRUE(by_subject["classic"][figure].is_null()) << figure << ": not timed, not 0";
  }
  EXPECT_NE(by_subject["classic"]["note"].get<std::string>().find("exceeds the device's 128"),
            std::string::npos)
      << by_subject["classic"]["note"];
  EXPECT_EQ(by_subject["naive"]["status"], "Ok") << by_subject["naive"]["note"];
  EXPECT_EQ(by_subject["tuned"]["status"], "Ok") << by_subject["tuned"]["note"];
  EXPECT_EQ(
      test::count_rows(dir / "t.db", "SELECT COUNT(*) FROM bench WHERE status = 'ExceedsLimits'"),
      1);
}

// An interrupt (SIGTERM) ends a bench after the size being measured, as it ends a tune: exit
// 130, and the rows measured are printed as stored (it died at 143 with nothing printed).
TEST(BenchCli, AnInterruptKeepsAndPrintsWhatWasMeasured) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  // Sizes enough for a fast machine to be still measuring when the first row is stored.
  auto bg = test::spawn_mmtune({"bench", "--device", "pthread", "--n",
                                "32,48,64,80,96,112,128,144,160,176,192,208,224,240,256,384,512",
                                "--db", db, "--json", "--no-baselines"},
                               dir.path);
  for (int i = 0; i < 600; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (test::count_rows_if_ready(db, "SELECT COUNT(*) FROM bench") > 0) break;
  }
  kill(bg.pid, SIGTERM);
  const auto r = bg.wait();
  ASSERT_EQ(r.exit_code, 130) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(std::int64_t(rows.size()), test::count_rows(db, "SELECT COUNT(*) FROM bench"));
  EXPECT_LT(rows.back()["n"].get<int>(), 512) << "it stopped before the last size";
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
}

TEST(BenchCli, ClblastWithTunerFileParameters) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  const std::string fixtures = std::string(MMTUNE_KERNELS_DIR) + "/../tests/data/clblast/";
  const std::string fast = fixtures + "clblast_xgemm_12_32.json";  // 40.7 ms, the fastest
  const std::string slow = fixtures + "clblast_xgemm_1_32.json";   // 64.0 ms
  const auto r = test::run_mmtune({"bench", "--device", "pthread", "--n", "64", "--db", db,
                                   "--json", "--clblast-tuned", slow, fast});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 8u);
  const auto& row = rows[6];
  EXPECT_EQ(row["subject"], "clblast-tuned");
  if (have_clblast()) {
    EXPECT_EQ(row["status"], "Ok") << row["note"];
    EXPECT_NE(row["note"].get<std::string>().find("clblast_xgemm_12_32.json"), std::string::npos)
        << row["note"];
    EXPECT_GT(row["gflops"].get<double>(), 0.0);
  } else {
    EXPECT_EQ(row["status"], "NotAvailable");
  }
  // Files for another precision, and files that are not tuner output, are usage errors.
  const auto fp64 = test::run_mmtune({"bench", "--device", "pthread", "--n", "64", "--db", db,
                                      "--precision", "64", "--clblast-tuned", fast});
  EXPECT_EQ(fp64.exit_code, 2);
  EXPECT_NE(fp64.err.find("no file holds fp64"), std::string::npos) << fp64.err;
  const auto junk = test::run_mmtune({"bench", "--device", "pthread", "--n", "64", "--db", db,
                                      "--clblast-tuned", MMTUNE_KERNELS_DIR "/common.cl"});
  EXPECT_EQ(junk.exit_code, 2);
  EXPECT_NE(junk.err.find("--clblast-tuned"), std::string::npos) << junk.err;
}

// Roofs and bench figures measured while other processes took the CPUs are said to be likely
// low: they were printed (and the roofs stored) as if from an idle machine.
TEST(BenchCli, ABusyMachineIsSaid) {
  test::TempDir dir;
  const test::CpuHogs hogs;
  const auto roof = test::run_mmtune({"roofline", "--device", "pthread", "--db", dir / "t.db"});
  ASSERT_EQ(roof.exit_code, 0) << roof.err;
  EXPECT_NE(roof.err.find("busy machine: other processes used"), std::string::npos) << roof.err;
  const auto bench = test::run_mmtune({"bench", "--device", "pthread", "--n", "32",
                                       "--no-baselines", "--json", "--db", dir / "t.db"});
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_NE(bench.err.find("while 32 was timed; its GFLOPS are likely low"), std::string::npos)
      << bench.err;
  const auto rows = nlohmann::json::parse(bench.out);
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) {
    if (row["status"] != "Ok") continue;  // CLBlast's rows too: they are timed on their own
    EXPECT_GT(row["other_load"].get<double>(), kBusyShare) << row;
    // The note is stored: the report's bench tables show it.
    EXPECT_NE(row["note"].get<std::string>().find("busy machine: others used"), std::string::npos)
        << row;
  }
  const auto run = test::run_mmtune({"run", "--device", "pthread", "--n", "64", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("during the run; its times are likely long"), std::string::npos)
      << run.err;
  const auto m = nlohmann::json::parse(run.out)["measurement"];
  EXPECT_GT(m["other_load"].get<double>(), kBusyShare) << m;
}

class RooflineTest : public test::BackendTest {};
MMTUNE_INSTANTIATE_BACKENDS(RooflineTest);

TEST_P(RooflineTest, MeasuresAndStoresBothRoofs) {
  const std::string db = fresh_db("t.db");
  Store store(db);
  const Device& dev = test::pocl_device("pthread");
  const Roofline r32 = measure_roofline(dev, store, Precision::kSingle);
  const Roofline r64 = measure_roofline(dev, store, Precision::kDouble);
  // Physically plausible for any device: above a naive kernel, below exaflops.
  EXPECT_GT(r32.peak_gflops, 1.0);
  EXPECT_LT(r32.peak_gflops, 1e6);
  EXPECT_GT(r32.bandwidth_gbs, 0.1);
  EXPECT_GT(r64.peak_gflops, 0.5);
  auto q = store.db().prepare("SELECT precision, peak_gflops FROM roofline ORDER BY precision");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.integer(0), 32);
  EXPECT_DOUBLE_EQ(q.real(1), r32.peak_gflops);
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.integer(0), 64);
  EXPECT_EQ(r32.stored_peak_gflops, r32.peak_gflops);
  // A roof is the fastest measured: a slower run (a busy machine) left a roof half as high and
  // the report's shares of the peak at up to 200 %; a faster one raises it.
  const auto stored_fp32 = [&] {
    for (const rows::Roof& roof : rows::roofs(store)) {
      if (roof.precision == 32) return std::pair{roof.peak, roof.bandwidth};
    }
    return std::pair{0.0, 0.0};
  };
  // put_roof returns what it left stored (the command's stored_* figures).
  const auto put = [&](double peak, double bandwidth, bool replace = false) {
    const rows::Roof kept = rows::put_roof(store, {dev.info.key, 32, peak, bandwidth, ""}, replace);
    EXPECT_EQ(std::pair(kept.peak, kept.bandwidth), stored_fp32());
  };
  put(r32.peak_gflops / 2, r32.bandwidth_gbs / 2);
  EXPECT_EQ(stored_fp32(), std::pair(r32.peak_gflops, r32.bandwidth_gbs));
  put(r32.peak_gflops / 2, r32.bandwidth_gbs * 2);
  EXPECT_EQ(stored_fp32(), std::pair(r32.peak_gflops, r32.bandwidth_gbs * 2));
  put(r32.peak_gflops, r32.bandwidth_gbs, true);
  EXPECT_EQ(stored_fp32(), std::pair(r32.peak_gflops, r32.bandwidth_gbs)) << "--replace";
  // The command line measures fp32 once more, after fp64: a busy spell over the first fp32
  // measurement alone must not decide the comparison.
  const auto cli = test::run_mmtune({"roofline", "--device", "pthread", "--db", db, "--json"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  const auto j = nlohmann::json::parse(cli.out);
  EXPECT_GT(j["bandwidth_gbs"].get<double>(), 0.1);
  EXPECT_GE(j["stored_peak_gflops"].get<double>(),
            std::max(r32.peak_gflops, j["peak_gflops"].get<double>()));
  EXPECT_GE(j["stored_bandwidth_gbs"].get<double>(),
            std::max(r32.bandwidth_gbs, j["bandwidth_gbs"].get<double>()));
  const double p32 = std::max(r32.peak_gflops, j["peak_gflops"].get<double>());
  EXPECT_LT(r64.peak_gflops, p32 * 1.5) << "fp64 is not faster than fp32";
}

}  // namespace
}  // namespace mmtune
