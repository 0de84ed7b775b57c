// Kernel Tuner cache files (tests/data/gpu-landscapes: measured on GPUs, public data of
// Schoonhoven et al., IEEE TEVC 2022): import, export, replay, and the replay benchmark's gate on
// the default strategy.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "exchange/exchange.hpp"
#include "mmtune/error.hpp"
#include "search/simulate.hpp"
#include "store/store.hpp"
#include "test_support.hpp"
#include "tune/replay.hpp"

namespace mmtune {
namespace {

std::string landscape(const std::string& file) {
  return std::string(MMTUNE_LANDSCAPES_DIR) + "/" + file;
}

GemmProblem square(std::size_t n) {
  GemmProblem p;
  p.m = p.n = p.k = n;
  return p;
}

// CLBlast's layout of the Xgemm landscapes, as the importer stores them.
GemmProblem xgemm_problem() {
  GemmProblem p = square(4096);
  p.layout = Layout::kColMajor, p.trans_b = true;
  return p;
}

std::size_t distinct_configs(const std::vector<MeasurementRecord>& records) {
  std::set<std::string> s;
  for (const auto& r : records) s.insert(r.config);
  return s.size();
}

TEST(KernelTunerImport, XgemmMapsOntoTiledAndOtherKernelsAreRecordedKernels) {
  test::TempDir dir;
  Store store(dir / "kt.db");
  // An Xgemm file is CLBlast's layout: another one stated is refused, a defaulted one replaced.
  EXPECT_THROW(
      import_file(store, landscape("GEMM_A100_run1.json"), ImportProblem{square(4096), true}),
      UsageError);
  EXPECT_EQ(test::count_rows(dir / "kt.db", "SELECT COUNT(*) FROM measurements"), 0);
  const auto a = import_file(store, landscape("GEMM_A100_run1.json"), square(4096));
  EXPECT_EQ(a.format, "kerneltuner");
  const auto dev = find_stored_device(store, "A100");
  const auto tiled = store.measurements(dev.key, xgemm_problem(), "tiled");
  // 17,956 CLBlast configurations; unused parameters pinned as the tiled space pins them.
  EXPECT_EQ(distinct_configs(tiled), 9180u);
  // Configurations that fold into one tiled kernel with the same time are stored once: they
  // were counted as "already stored" in a database that did not have them.
  EXPECT_EQ(a.measurements_added + a.measurements_repeated, 17956u);
  EXPECT_EQ(a.measurements_known, 0u);
  EXPECT_GT(a.measurements_repeated, 0u);
  EXPECT_EQ(
      import_file(store, landscape("GEMM_A100_run1.json"), ImportProblem{xgemm_problem(), true})
          .measurements_known,
      17956u);  // CLBlast's layout, stated
  for (const auto& r : tiled) {
    ASSERT_TRUE(constraint_violations(parse_config(KernelKind::kTiled, r.config)).empty());
  }
  import_file(store, landscape("convolution_A100_run1.json"), square(4096));
  const auto conv = store.measurements(dev.key, square(4096), "kt:convolution_kernel");
  EXPECT_EQ(conv.size(), 5776u);
  EXPECT_EQ(conv.front().config.rfind("filter_width=15 filter_height=15 block_size_x=", 0), 0u);
  // A second import adds nothing.
  const auto again = import_file(store, landscape("convolution_A100_run1.json"), square(4096));
  EXPECT_EQ(again.measurements_added, 0u);
  EXPECT_EQ(again.measurements_known, 5776u);

  // Exported in Kernel Tuner's format and imported elsewhere, the landscape is the same.
  const auto exported = export_kerneltuner(store, dev.key, square(4096), "kt:convolution_kernel");
  EXPECT_EQ(exported["kernel_name"], "convolution_kernel");
  EXPECT_EQ(exported["cache"].size(), 5776u);
  Store other(dir / "other.db");
  // Sizes given beside the file's problem_size were taken silently (a mislabelled landscape).
  EXPECT_THROW(import_text(other, exported.dump(), "exported.json", "", square(2048)), UsageError);
  EXPECT_EQ(other.measurements(dev.key, square(2048), "kt:convolution_kernel").size(), 0u);
  import_text(other, exported.dump(), "exported.json");  // its problem_size names the problem
  const auto back = other.measurements(dev.key, square(4096), "kt:convolution_kernel");
  ASSERT_EQ(back.size(), conv.size());
  const auto fastest = [](const std::vector<MeasurementRecord>& rs) {
    double best = 1e300;
    for (const auto& r : rs) best = std::min(best, *observed_time(r.result));
    return best;
  };
  EXPECT_EQ(fastest(back), fastest(conv));
  Store same(dir / "same.db");  // sizes given that are the file's own are taken
  EXPECT_EQ(
      import_text(same, exported.dump(), "exported.json", "", square(4096)).measurements_added,
      5776u);
}

TEST(KernelTunerImport, MalformedOrHostileFilesAreRejectedAndTheDatabaseIsUntouched) {
  test::TempDir dir;
  const nlohmann::json good = {
      {"device_name", "GPU"},
      {"kernel_name", "k"},
      {"tune_params_keys", {"a", "b"}},
      {"tune_params", {{"a", {1, 2}}, {"b", {8, 16}}}},
      {"cache",
       {{"1,8", {{"time", 2.0}}},
        {"2,16", {{"time", "CompilationFailedConfig"}}},
        {"2,8", {{"time", 1e20}}}}}};  // Kernel Tuner's numeric error value
  {
    Store store(dir / "t.db");
    const auto s = import_text(store, good.dump(), "good.json", "", square(64));
    EXPECT_EQ(s.measurements_added, 3u);
    const auto rows = store.measurements(find_stored_device(store, "GPU").key, square(64), "kt:k");
    ASSERT_EQ(rows.size(), 3u);
    std::map<std::string, Status> status;
    for (const auto& r : rows) status[r.config] = r.result.status;
    EXPECT_EQ(status["a=1 b=8"], Status::kOk);
    EXPECT_EQ(status["a=2 b=16"], Status::kBuildFailed);
    EXPECT_EQ(status["a=2 b=8"], Status::kLaunchFailed);
  }
  const auto edited = [&](const char* what, auto edit) {
    nlohmann::json j = good;
    edit(j);
    Store store(dir / "t.db");
    const auto before = test::count_rows(dir / "t.db", "SELECT COUNT(*) FROM measurements");
    EXPECT_THROW(import_text(store, j.dump(), "bad.json", "", square(64)), UsageError) << what;
    EXPECT_EQ(test::count_rows(dir / "t.db", "SELECT COUNT(*) FROM measurements"), before);
  };
  using json = nlohmann::json;
  edited("key with too few values", [](json& j) { j["cache"]["1"] = {{"time", 1.0}}; });
  edited("value not in tune_params", [](json& j) { j["cache"]["3,8"] = {{"time", 1.0}}; });
  edited("non-canonical key", [](json& j) { j["cache"]["01,16"] = {{"time", 1.0}}; });
  edited("huge unsigned value", [](json& j) {
    j["tune_params"]["a"] = {1, 2, std::uint64_t(18446744073709551615ull)};
  });
  edited("negative time", [](json& j) { j["cache"]["1,16"] = {{"time", -1.0}}; });
  // A recorded kernel has no rate to bound its time: a picosecond was its best.
  edited("time of a picosecond", [](json& j) { j["cache"]["1,16"] = {{"time", 1e-9}}; });
  edited("unknown failure", [](json& j) { j["cache"]["1,16"] = {{"time", "Whatever"}}; });
  edited("non-integer values", [](json& j) { j["tune_params"]["a"] = {1.5, 2}; });
  edited("kernel name with blanks", [](json& j) { j["kernel_name"] = "rm -rf"; });
  edited("parameter name injection", [](json& j) {
    j["tune_params_keys"] = {"a", "b c"};
    j["tune_params"]["b c"] = {8, 16};
  });
  edited("repeated parameter", [](json& j) { j["tune_params_keys"] = {"a", "a"}; });
  // Nothing measured: it stored a device with no data, and "1 devices added".
  edited("no result", [](json& j) { j["cache"] = json::object(); });
  {  // no problem size at all
    Store store(dir / "t.db");
    EXPECT_THROW(import_text(store, good.dump(), "good.json"), UsageError);
  }
}

TEST(KernelTunerImport, T4ResultsAreALandscapeNamedAfterTheirFile) {
  using json = nlohmann::json;
  const auto result = [](int x, int y, const char* invalidity, double time, const char* unit) {
    return json{{"configuration", {{"block_x", x}, {"block_y", y}}},
                {"times", json::object()},
                {"invalidity", invalidity},
                {"correctness", 1},
                {"measurements", {{{"name", "time"}, {"value", time}, {"unit", unit}}}}};
  };
  json t4 = {{"schema_version", "1.0.0"},
             {"results",
              {result(16, 1, "correct", 2.5, "ms"), result(32, 1, "correct", 0.004, "s"),
               result(32, 2, "compile", 0, "ms"), result(16, 2, "constraints", 0, "ms"),
               // Run again: a failure does not replace a correct time, a faster time does.
               result(16, 1, "runtime", 0, "ms"), result(32, 1, "correct", 0.003, "s")}}};
  test::TempDir dir;
  Store store(dir / "t.db");
  import_text(store, t4.dump(), "/some/where/my-kernel.json", "", square(256));
  const auto dev = find_stored_device(store, "T4");
  std::map<std::string, MeasurementRecord> rows;
  for (auto& r : store.measurements(dev.key, square(256), "kt:my_kernel")) rows[r.config] = r;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows["block_x=16 block_y=1"].result.median_ms, 2.5);
  EXPECT_EQ(rows["block_x=32 block_y=1"].result.median_ms, 3.0);  // seconds become ms
  EXPECT_EQ(rows["block_x=32 block_y=2"].result.status, Status::kBuildFailed);
  EXPECT_EQ(rows["block_x=16 block_y=2"].result.status, Status::kExceedsLimits);
  // The JSON export of a database holding a recorded kernel imports elsewhere.
  Store other(dir / "other.db");
  EXPECT_THROW(import_text(other, export_json(store).dump(), "export.json", "", square(256)),
               UsageError);  // an export names its problems
  import_text(other, export_json(store).dump(), "export.json");
  EXPECT_EQ(other.measurements(dev.key, square(256), "kt:my_kernel").size(), 4u);
  // Imported again at another size (in the same second): another session, of that problem.
  import_text(store, t4.dump(), "/some/where/my-kernel.json", "", square(512));
  const auto sessions = store.sessions();
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_NE(sessions[0].problem.n, sessions[1].problem.n);
  t4["results"][1]["invalidity"] = "fine";
  EXPECT_THROW(import_text(store, t4.dump(), "bad.json", "", square(256)), UsageError);
  t4["results"][1]["invalidity"] = 7;
  EXPECT_THROW(import_text(store, t4.dump(), "bad.json", "", square(256)), UsageError);
  t4["results"][1]["invalidity"] = "correct";
  t4["results"][1]["configuration"]["block_x"] = "32";
  EXPECT_THROW(import_text(store, t4.dump(), "bad.json", "", square(256)), UsageError);
  // -2^63 passed the range check through llabs (undefined behaviour there) and was refused
  // later under another name.
  t4["results"][1]["configuration"]["block_x"] = std::numeric_limits<std::int64_t>::min();
  try {
    import_text(store, t4.dump(), "bad.json", "", square(256));
    ADD_FAILURE() << "-2^63 imported";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("within +-1e9"), std::string::npos) << e.what();
  }
}

TEST(KernelTunerCli, ImportSimulateCurveAndExport) {
  test::TempDir dir;
  const std::string db = dir / "kt.db";
  // Problem options that would be ignored are refused: a layout without a size, and any problem
  // for a JSON export or a replay of the most measured problem.
  auto r = test::run_mmtune(
      {"import", landscape("convolution_A100_run1.json"), "--db", db, "--layout", "col"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("go with --n for a Kernel Tuner file"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db)) << "refused before the database is opened";
  // --trans-b alone states a row-major layout, which an Xgemm file is not.
  r = test::run_mmtune(
      {"import", landscape("GEMM_V100_run1.json"), "--db", db, "--n", "4096", "--trans-b"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("an Xgemm file is CLBlast's layout"), std::string::npos) << r.err;
  r = test::run_mmtune({"import", landscape("convolution_A100_run1.json"), "--db", db});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.out << r.err;  // the file names no problem size
  EXPECT_NE(r.err.find("--n"), std::string::npos) << r.err;
  r = test::run_mmtune(
      {"import", landscape("convolution_A100_run1.json"), "--db", db, "--n", "4096"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The default kernel (tiled) has no measurements there: the refusal names the one it has.
  const std::string named = "A100-PCIE-40GB; it has measurements of kt:convolution_kernel\n";
  r = test::run_mmtune({"simulate", "--db", db});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("no tiled measurements stored for " + named), std::string::npos) << r.err;
  r = test::run_mmtune({"export", "--db", db, "--format", "kerneltuner", "--n", "4096"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("no stored tiled measurements for"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" on " + named), std::string::npos) << r.err;
  // At another problem it names the problem the kernel has.
  const std::string stored = "its kt:convolution_kernel measurements are of 4096x4096x4096 fp32";
  r = test::run_mmtune({"export", "--db", db, "--format", "kerneltuner", "--kernel",
                        "kt:convolution_kernel", "--n", "1024"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("no stored kt:convolution_kernel measurements for 1024x1024x1024"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(stored), std::string::npos) << r.err;
  r = test::run_mmtune(
      {"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--n", "1024", "--seeds", "1"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find(stored), std::string::npos) << r.err;
  r = test::run_mmtune({"best", "--db", db, "--n", "1024"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  // Without --kernel, best picks among mmtune's own kernels: the hint names the recorded one
  // (its problem would read as a contradiction at --n 4096).
  EXPECT_NE(r.err.find("no stored result for 1024x1024x1024 fp32 row NN on A100-PCIE-40GB; it "
                       "has measurements of kt:convolution_kernel (name one with --kernel)\n"),
            std::string::npos)
      << r.err;
  // A recorded kernel's flops are unknown: its best is a time, not "0.0 GFLOPS".
  r = test::run_mmtune({"best", "--db", db, "--kernel", "kt:convolution_kernel", "--n", "4096"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0.799 ms\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("GFLOPS"), std::string::npos) << r.out;
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--curve",
                        "--strategy", "random", "--seeds", "3", "--json", "--svg",
                        dir / "curve.svg"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["configurations"], 5776);
  EXPECT_EQ(j[0]["mean_fraction"].size(), 5u);
  // The checkpoints in the order they run, as the text shows them (sorted as text: 100 first).
  EXPECT_LT(r.out.find("\"25\""), r.out.find("\"100\"")) << r.out;
  EXPECT_LE(j[0]["mean_fraction"]["25"].get<double>(), j[0]["mean_fraction"]["400"].get<double>());
  // 2 of 5,776 configurations within 5 %: random needs 5777 / 3 evaluations on average.
  EXPECT_NEAR(j[0]["random_expected_evaluations"].get<double>(), 5777.0 / 3.0, 1e-9);
  // A median past the budget is no count of evaluations: it printed budget + 1.
  if (2 * j[0]["reached"].get<int>() > 3) {
    EXPECT_LE(j[0]["median_evaluations"].get<double>(), 400.0);
  } else {
    EXPECT_TRUE(j[0]["median_evaluations"].is_null()) << j[0];
  }
  const auto few = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel",
                                     "--strategy", "random", "--budget", "5", "--seeds", "2"});
  ASSERT_EQ(few.exit_code, 0) << few.err;
  EXPECT_NE(few.out.find(">5       0/2"), std::string::npos) << few.out;
  std::ifstream svg(dir / "curve.svg");
  const std::string chart((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_EQ(chart.rfind("<svg", 0), 0u);
  EXPECT_NE(chart.find(">random<"), std::string::npos);
  // Its shape: the two configurations within 5 % are isolated minima whose basins hold 99 of
  // the 5,776 (counted independently by a script over the cache file's keys).
  r = test::run_mmtune(
      {"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--landscape", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto shape = nlohmann::json::parse(r.out);
  EXPECT_EQ(shape["configurations"], 5776);
  EXPECT_EQ(shape["within_target"], 2);
  EXPECT_EQ(shape["minima_in_target"], 2);
  EXPECT_EQ(shape["local_minima"], 79);
  EXPECT_EQ(shape["descent_to_target"], 99);
  r = test::run_mmtune(
      {"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--landscape", "--seeds", "3"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("--seeds is an option of a replay"), std::string::npos) << r.err;
  // A chart that cannot be written is refused before the replay: no half table, no time lost.
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--curve",
                        "--seeds", "1", "--svg", dir / "missing/curve.svg"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("is missing or not writable"), std::string::npos) << r.err;
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--curve",
                        "--seeds", "1", "--svg", dir.path});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("': a directory"), std::string::npos) << r.err;
  r = test::run_mmtune(
      {"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--landscape", "--batch", "4"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("--batch is an option of a replay"), std::string::npos) << r.err;
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "naive", "--n", "4096"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--precision",
                        "64", "--seeds", "1"});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.out;
  EXPECT_NE(r.err.find("describe a problem: give its size too"), std::string::npos) << r.err;
  r = test::run_mmtune({"export", "--db", db, "--n", "4096"});
  EXPECT_EQ(r.exit_code, kExitUsage) << "a JSON export holds every problem";
  EXPECT_NE(r.err.find("drop the problem options"), std::string::npos) << r.err;
  for (const char* format : {"json", "header", "clblast"}) {
    r = test::run_mmtune({"export", "--db", db, "--format", format, "--kernel", "direct"});
    EXPECT_EQ(r.exit_code, kExitUsage) << format << ": the kernel would be ignored";
    EXPECT_NE(r.err.find("--kernel goes with --format kerneltuner"), std::string::npos) << r.err;
  }
  // A warm start: told half of the 5,774 configurations outside 5 % (2,887), random needs
  // (5776 - 2887 + 1) / 3.
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--strategy",
                        "random", "--seeds", "2", "--told", "0.5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto told = nlohmann::json::parse(r.out);
  EXPECT_EQ(told[0]["told"], 2887);
  EXPECT_NEAR(told[0]["random_expected_evaluations"].get<double>(), 2890.0 / 3.0, 1e-9);
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--strategy",
                        "random", "--seeds", "2", "--budget", "5", "--told", "0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("first told 2887 random recorded results (50 %"), std::string::npos)
      << r.out;
  // 1e-5 of 5,774 rounds to none: not a warm start, whatever a header would say.
  for (const char* bad : {"1.5", "-0.5", "half", "nan", "1e-5"}) {
    r = test::run_mmtune(
        {"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--told", bad});
    EXPECT_EQ(r.exit_code, kExitUsage) << bad;
    EXPECT_EQ(r.out, "") << bad << ": a refusal prints no half table";
  }
  // Replayed in a tune's batches; such replays are not the report's.
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--strategy",
                        "annealing", "--seeds", "2", "--batch", "8", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)[0]["seeds"], 2);
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--curve",
                        "--save", "--batch", "2"});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--curve",
                        "--save", "--told", "0.5"});
  EXPECT_EQ(r.exit_code, kExitUsage) << "the report's replays start from nothing";
  // A chart that cannot be written stores no replay (the report below counts them); an export
  // over the database itself is refused (it would destroy every result the tests below read).
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--curve",
                        "--save", "--seeds", "2", "--svg", dir / "missing/curve.svg"});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  for (const char* format : {"json", "header"}) {
    r = test::run_mmtune({"export", "--db", db, "--format", format, "-o", db});
    EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
    EXPECT_NE(r.err.find("is the database"), std::string::npos) << r.err;
  }
  std::filesystem::create_symlink(db, dir / "link.db");
  r = test::run_mmtune({"export", "-o", dir / "link.db"}, {{"MMTUNE_DB", db}});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  // A report into the database's own directory must not write over a database it reads.
  std::filesystem::create_directories(dir / "rep");
  std::filesystem::copy_file(db, dir / "rep/report.md");
  const auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string before = bytes(dir / "rep/report.md");
  r = test::run_mmtune({"report", "--db", dir / "rep/report.md", "--out", dir / "rep"});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("is the database"), std::string::npos) << r.err;
  EXPECT_EQ(bytes(dir / "rep/report.md"), before);
  EXPECT_FALSE(std::filesystem::exists(dir / "rep/report.html")) << "nothing is written";

  // Saved replays are the report's: a table and a chart per landscape. The latest replay of a
  // strategy with the same options replaces the earlier one; other options are another row.
  r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--save"});
  EXPECT_EQ(r.exit_code, kExitUsage) << "--save needs --curve";
  for (const char* seeds : {"2", "3"}) {
    r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--curve",
                          "--save", "--strategy", "random", "--seeds", seeds});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // Options that differ past six digits are other options: a row each.
  for (const char* t : {"start_temperature=0.1", "start_temperature=0.1000001"}) {
    r = test::run_mmtune({"simulate", "--db", db, "--kernel", "kt:convolution_kernel", "--curve",
                          "--save", "--strategy", "annealing", "--seeds", "2", "--strategy-option",
                          t});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // A default given by name is the same replay as none given: one row (it was two).
  for (const std::string t : {"", "start_temperature=0.05"}) {
    std::vector<std::string> args = {
        "simulate", "--db",   db,           "--kernel",  "kt:convolution_kernel",
        "--curve",  "--save", "--strategy", "annealing", "--seeds",
        "2"};
    if (!t.empty()) args.insert(args.end(), {"--strategy-option", t});
    r = test::run_mmtune(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  r = test::run_mmtune({"report", "--db", db, "--out", dir / "report"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream md(dir / "report/report.md");
  const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(report.find("Search strategies replayed"), std::string::npos) << report;
  // A section of recorded kernels: their bests and which parameters matter (they appeared only in
  // the sessions table).
  const auto recorded = report.find("### Recorded kernels (imported from Kernel Tuner)");
  ASSERT_NE(recorded, std::string::npos) << report;
  EXPECT_NE(report.find("| kt:convolution\\_kernel | 4096,4096,4096 | 5776 | 5776 | ", recorded),
            std::string::npos)
      << report.substr(recorded, 2000);
  EXPECT_NE(report.find("Which parameters matter for kt:convolution\\_kernel (5776 Ok", recorded),
            std::string::npos)
      << report.substr(recorded, 2000);
  EXPECT_NE(report.find("5776 recorded configurations"), std::string::npos);
  EXPECT_NE(report.find("79 local minima, 2 of them within 5 %; steepest descent over "
                        "neighbouring values ends within 5 % from 99 of 5776 timed"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("| random |  | "), std::string::npos) << report;
  EXPECT_NE(report.find("start\\_temperature=0.1 "), std::string::npos);
  EXPECT_NE(report.find("start\\_temperature=0.1000001"), std::string::npos);
  EXPECT_NE(report.find("replay-1.svg"), std::string::npos);
  std::ifstream csv(dir / "report/replays.csv");
  std::size_t random_points = 0, lines = 0;
  for (std::string line; std::getline(csv, line); ++lines) {
    random_points += line.find(",random,,5776,3,") != std::string::npos;
  }
  EXPECT_EQ(random_points, 5u) << "one row per checkpoint of the latest random replay";
  EXPECT_EQ(lines, 1u + 5u + 5u + 5u + 5u);  // random, two annealing options, its defaults
  r = test::run_mmtune({"export", "--db", db, "--format", "kerneltuner", "--kernel",
                        "kt:convolution_kernel", "--n", "4096", "-o", dir / "out.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir / "out.json");
  EXPECT_EQ(nlohmann::json::parse(in)["cache"].size(), 5776u);
}

// The gate of the replay benchmark (bench/replay_benchmark.sh is the full run, 100 seeds): the
// default strategy on the real GPU landscapes, a few seeds. Thresholds: docs/exchange.md.
TEST(ReplayBenchmark, DefaultStrategyMeetsItsThresholdsOnGpuLandscapes) {
  test::TempDir dir;
  Store store(dir / "kt.db");
  SimulationOptions o;
  o.seeds = 8;
  o.budget = 200;
  o.checkpoints = {100, 200};
  double gemm100 = 0, gemm200 = 0;
  for (const char* f : {"GEMM_A100_run1.json", "GEMM_V100_run1.json", "GEMM_MI50_run1.json"}) {
    import_file(store, landscape(f), square(4096));
  }
  for (const char* name : {"A100", "V100", "gfx906"}) {
    const DeviceInfo d = find_stored_device(store, name);
    const auto land = load_landscape("tiled", store.measurements(d.key, xgemm_problem(), "tiled"));
    const auto r = simulate(land.table.space, land.table.times, default_strategy(), o);
    gemm100 += r.mean_fraction[0] / 3, gemm200 += r.mean_fraction[1] / 3;
    std::cout << d.name << ": " << r.mean_fraction[0] << " after 100, " << r.mean_fraction[1]
              << " after 200\n";
  }
  EXPECT_GE(gemm100, 0.97);
  EXPECT_GE(gemm200, 0.99);
  import_file(store, landscape("convolution_A100_run1.json"), square(4096));
  const auto dev = find_stored_device(store, "A100");
  const auto conv = load_landscape(
      "kt:convolution_kernel", store.measurements(dev.key, square(4096), "kt:convolution_kernel"));
  const auto r = simulate(conv.table.space, conv.table.times, default_strategy(), o);
  std::cout << "convolution: " << r.mean_fraction[0] << " after 100\n";
  EXPECT_GE(r.mean_fraction[0], 0.85);
}

}  // namespace
}  // namespace mmtune
