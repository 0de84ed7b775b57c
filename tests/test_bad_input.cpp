// Bad input through the real mmtune binary: each is refused with one line naming the problem and
// a documented exit code, and nothing is written.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "store/sql.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::slurp;

// Runs mmtune quietly and checks: `code`, one line on stderr naming `needle`, nothing on stdout.
void expect_refused(std::vector<std::string> args, int code, const std::string& needle) {
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  args.push_back("-q");
  const auto r = test::run_mmtune(args);
  EXPECT_EQ(r.exit_code, code) << joined << "\n" << r.err;
  EXPECT_EQ(test::line_count(r.err), 1) << joined << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << joined << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << joined << "\n" << r.out;
}

// Row counts and contents of every table: equal snapshots mean nothing was written.
std::string snapshot(const std::string& db) {
  sql::Database d(db, sql::OpenMode::kReadWrite);
  std::string out;
  for (const char* table : {"devices", "sessions", "measurements", "best", "bench", "roofline"}) {
    auto q = d.prepare(std::string("SELECT COUNT(*) FROM ") + table);  // constant names
    q.step();
    out += std::string(table) + "=" + std::to_string(q.integer(0)) + " ";
  }
  auto m = d.prepare(
      "SELECT group_concat(kernel || '|' || config || '|' || status || '|' || "
      "COALESCE(median_ms, ''), ';') FROM measurements");
  m.step();
  return out + m.text(0);
}

MeasurementRecord sample(const DeviceInfo& d, KernelKind kind, double ms) {
  MeasurementRecord r;
  r.device_key = d.key;
  r.kernel = kernel_name(kind);
  r.config = to_string(default_config(kind));
  r.problem.m = r.problem.n = r.problem.k = 64;
  r.result.median_ms = r.result.min_ms = r.result.max_ms = r.result.kernel_median_ms = ms;
  r.result.routine_ms = r.result.kernel_ms = {ms};
  r.result.gflops = r.result.kernel_gflops = r.problem.flops() / (ms * 1e6);
  return r;
}

// A database with a device and `n` measurements of the pthread device.
void fill(const std::string& db, int n) {
  Store s(db);
  const DeviceInfo& dev = test::pocl_device("pthread").info;
  s.upsert_device(dev);
  for (int i = 0; i < n; ++i) {
    s.add_measurement(sample(dev, i % 2 ? KernelKind::kTiled : KernelKind::kNaive, 1.0 + i));
  }
}

TEST(BadInputCli, MalformedOptionValues) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  const std::vector<std::string> base = {"tune", "--device", "pthread", "--db", db};
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"--budget", "0", "--budget"},
      {"--budget", "-3", "--budget"},
      {"--budget", "many", "--budget"},
      {"--budget", "99999999999999999999999", "--budget"},
      {"--seed", "-1", "--seed"},
      {"--seed", "x1", "--seed"},
      {"--time-limit", "0", "--time-limit"},
      {"--time-limit", "-5m", "--time-limit"},
      {"--time-limit", ".", "--time-limit"},
      {"--time-limit", "1.2.3s", "--time-limit"},
      {"--time-limit", "5x", "--time-limit"},
      {"--precision", "abc", "--precision"},
      {"--layout", "diagonal", "--layout"},
      {"--space", "huge", "--space"},
      {"--m", "0", "--m"},
      {"--k", "-1", "--k"},
      {"--m", "1e3", "--m"},
      {"--k", "18446744073709551616", "--k"},
      // Empty values read as "not given": --m '' tuned the square n x n x n.
      {"--m", "", "--m: must be a positive integer, got ''"},
      {"--k", "", "--k: must be a positive integer, got ''"},
      {"--batch", "", "--batch: must be a positive integer, got ''"},
      // Counts of work that no budget bounds: 2^64 - 1 finalists hung the tune.
      {"--finalists", "18446744073709551615", "at most 1000"},
      {"--confirm-rounds", "1001", "at most 1000"},
      // The session stores the budget and the seed as signed 64-bit integers: 2^64 - 1 was -1.
      {"--budget", "18446744073709551615", "--budget: must be at most 9223372036854775807"},
      {"--seed", "9223372036854775808", "--seed: must be at most 9223372036854775807"},
  };
  for (const auto& [option, value, needle] : cases) {
    auto args = base;
    args.insert(args.end(), {"--n", "64", option, value});
    expect_refused(args, kExitUsage, needle);
  }
  EXPECT_FALSE(fs::exists(db)) << "a refused command created the database";
  // `--device all` is tune's: another command's is a usage error, not an unknown device (3).
  for (const std::vector<std::string>& args : {std::vector<std::string>{"bench", "--n", "64"},
                                               {"roofline"},
                                               {"run", "--n", "64"},
                                               {"space", "--kernel", "tiled"}}) {
    auto with = args;
    with.insert(with.end(), {"--device", "all", "--db", db});
    if (args.front() == "space") with.resize(with.size() - 2);  // space reads no database
    expect_refused(with, kExitUsage, "all is tune's");
  }
  EXPECT_FALSE(fs::exists(db)) << "a refused command created the database";
}

// Each breaks an early constraint so that a later one's quotient is 0: they crashed mmtune with
// SIGFPE (division by zero) until fuzz_config found the first one.
const char* const kDividesByZero[][2] = {
    {"direct", "WGD=16 MDIMCD=2 NDIMCD=1 MDIMAD=4 NDIMBD=8 KWID=2 VWMD=1 VWND=2 PADA=1 PADB=1"},
    {"tiled",
     "MWG=64 NWG=64 KWG=16 MDIMC=2 NDIMC=1 MDIMA=4 NDIMB=8 KWI=2 VWM=4 VWN=4 STRM=0 STRN=0 SA=1 "
     "SB=1"},
};

TEST(BadInputCli, ConfigurationsWhoseConstraintsWouldDivideByZero) {
  for (const auto& [kernel, config] : kDividesByZero) {
    expect_refused(
        {"run", "--device", "pthread", "--n", "16", "--kernel", kernel, "--config", config},
        kExitUsage, "breaks");
    EXPECT_THROW(parse_config(*parse_kernel_kind(kernel), config), UsageError) << config;
  }
}

// Named file contents for a hostile-file test: raw texts, and the good JSON with one edit each.
struct FileCases {
  explicit FileCases(json good_file) : good(std::move(good_file)) {
    list.reserve(32);  // GCC 12 warns (-Warray-bounds) on the first reallocation otherwise
  }
  void add(const std::string& name, std::string content) {
    list.emplace_back(name, std::move(content));
  }
  template <class Edit>
  void edited(const std::string& name, Edit edit) {
    json j = good;
    edit(j);
    add(name, j.dump());
  }
  // What every reader meets: nothing, half a file, a binary.
  void add_broken(const std::string& text) {
    add("empty", "");
    add("truncated", text.substr(0, text.size() / 2));
    add("binary", std::string("\x7f"
                              "ELF\0\0\xff\xfe",
                              8));
  }

  json good;
  std::vector<std::pair<std::string, std::string>> list;  // name, content
};

TEST(BadInputCli, SizesBeyondTheDevice) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  // Each buffer of 100000 x 100000 floats is 37 GiB: more than PoCL allocates at once.
  expect_refused(
      {"tune", "--device", "pthread", "--m", "100000", "--n", "64", "--k", "100000", "--db", db},
      kExitUsage, "allocates at most");
  expect_refused({"run", "--device", "pthread", "--n", "4000000000"}, kExitUsage, "GiB");
  EXPECT_FALSE(fs::exists(db));
}

TEST(BadInputCli, DatabasePathsThatCannotBeUsed) {
  test::TempDir dir;
  expect_refused({"history", "--db", dir / "missing/dir/t.db"}, kExitUsage, "does not exist");
  expect_refused({"tune", "--device", "pthread", "--n", "64", "--db", dir / "missing/t.db"},
                 kExitUsage, "does not exist");
  expect_refused({"history", "--db", dir.path}, kExitUsage, "is a directory");
  // A directory the process cannot write to: procfs for root (who ignores permissions).
  std::string ro = "/proc/mmtune-test.db";
  if (geteuid() != 0) {
    fs::create_directories(dir / "ro");
    chmod((dir / "ro").c_str(), 0500);
    ro = dir / "ro/t.db";
  }
  expect_refused({"history", "--db", ro}, kExitUsage, ro);
  EXPECT_FALSE(fs::exists(dir / "missing"));
}

TEST(BadInputCli, ReadingCommandsRefuseADatabaseThatDoesNotExist) {
  test::TempDir dir;
  const std::string db = dir / "absent.db";
  const std::vector<std::vector<std::string>> reads = {
      {"history", "--db", db},
      {"best", "--device", "pthread", "--n", "64", "--db", db},
      {"export", "--db", db},
      {"export", "--format", "clblast", "--device", "pthread", "--n", "64", "--db", db},
      {"simulate", "--device", "pthread", "--db", db},
  };
  for (const auto& args : reads) {
    expect_refused(args, kExitUsage, "database '" + db + "' does not exist");
    EXPECT_FALSE(fs::exists(db)) << args[0] << " created the database";
  }
}

TEST(BadInputCli, FilesThatAreNotUsableDatabases) {
  test::TempDir dir;
  // Not a database at all.
  const std::string junk = dir / "junk.db";
  std::ofstream(junk) << std::string(8192, 'x');
  expect_refused({"history", "--db", junk}, kExitUsage, "not a valid mmtune database");
  expect_refused({"tune", "--device", "pthread", "--n", "64", "--db", junk}, kExitUsage,
                 "not a valid mmtune database");
  EXPECT_EQ(slurp(junk), std::string(8192, 'x'));

  // A newer schema is refused and left alone.
  const std::string newer = dir / "newer.db";
  {
    sql::Database d(newer, sql::OpenMode::kCreate);
    d.exec("PRAGMA user_version = 99");
  }
  expect_refused({"history", "--db", newer}, kExitUsage, "newer than this mmtune");
  expect_refused({"bench", "--device", "pthread", "--n", "64", "--db", newer}, kExitUsage,
                 "newer than this mmtune");
  expect_refused({"report", "--db", newer, "--out", dir / "report"}, kExitUsage,
                 "newer than this mmtune");
  EXPECT_EQ(test::count_rows(newer, "PRAGMA user_version"), 99);

  // A real database, then damaged three ways: truncated, its b-tree pages overwritten, its
  // header overwritten. None is read or written further.
  const std::string good = dir / "good.db";
  fill(good, 400);
  const std::string bytes = slurp(good);
  ASSERT_GT(bytes.size(), 16u * 4096);
  const auto damaged = [&](const std::string& name, std::string content) {
    const std::string path = dir / name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  };
  std::string garbage = bytes;
  for (std::size_t i = 4 * 4096; i < 8 * 4096; ++i) garbage[i] = char(0xA5 ^ (i * 31));
  std::string header = bytes;
  for (std::size_t i = 0; i < 100; ++i) header[i] = char(i * 7 + 1);
  const std::vector<std::pair<std::string, std::string>> files = {
      {damaged("truncated.db", bytes.substr(0, bytes.size() / 2)), "damaged"},
      {damaged("pages.db", garbage), "damaged"},
      {damaged("header.db", header), "not a valid mmtune database"},
  };
  for (const auto& [path, needle] : files) {
    const std::string before = slurp(path);
    expect_refused({"history", "--db", path}, kExitUsage, needle);
    expect_refused({"best", "--device", "pthread", "--n", "64", "--db", path}, kExitUsage, needle);
    expect_refused({"tune", "--device", "pthread", "--n", "64", "--db", path}, kExitUsage, needle);
    expect_refused({"export", "--db", path}, kExitUsage, needle);
    expect_refused({"bench", "--device", "pthread", "--n", "64", "--db", path}, kExitUsage, needle);
    expect_refused({"report", "--db", path, "--out", dir / "report"}, kExitUsage, needle);
    EXPECT_EQ(slurp(path), before) << path << " was written";
    EXPECT_FALSE(fs::exists(dir / "report"));
  }
}

TEST(BadInputCli, HostileImportFilesChangeNothing) {
  test::TempDir dir;
  const std::string src = dir / "src.db", db = dir / "target.db";
  fill(src, 4);
  const auto exported = test::run_mmtune({"export", "--db", src, "--out", dir / "good.json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const json good = json::parse(slurp(dir / "good.json"));
  ASSERT_EQ(test::run_mmtune({"import", dir / "good.json", "--db", db}).exit_code, 0);
  const std::string before = snapshot(db);
  ASSERT_NE(before.find("measurements=4"), std::string::npos) << before;

  FileCases cases(good);
  cases.add_broken(good.dump());
  cases.add("deep", std::string(200000, '[') + std::string(200000, ']'));
  std::string objects;
  for (int i = 0; i < 50000; ++i) objects += "{\"a\":";
  cases.add("deep-objects", objects);
  cases.edited("size-as-text", [](json& j) { j["measurements"][0]["problem"]["m"] = "64"; });
  cases.edited("negative-size", [](json& j) { j["measurements"][0]["problem"]["n"] = -64; });
  cases.edited("huge-size", [](json& j) { j["measurements"][0]["problem"]["k"] = 1e300; });
  cases.edited("kernel-as-number", [](json& j) { j["measurements"][1]["kernel"] = 7; });
  cases.edited("unknown-parameter", [](json& j) {
    j["measurements"][1]["config"] = j["measurements"][1]["config"].get<std::string>() + " FOO=1";
  });
  cases.edited("injected-option",
               [](json& j) { j["measurements"][1]["config"] = "MWG=64 -DEVIL=1 -cl-opt-disable"; });
  cases.edited("injected-value", [](json& j) {
    std::string c = j["measurements"][1]["config"];
    c.replace(c.find("MWG=64"), 6, "MWG=64;rm");
    j["measurements"][1]["config"] = c;
  });
  cases.edited("path-in-key", [](json& j) { j["devices"][0]["key"] = "../../etc/passwd"; });
  cases.edited("escape-codes", [](json& j) { j["devices"][0]["name"] = "GPU\x1b]0;pwned\x07"; });
  cases.edited("status-unknown", [](json& j) { j["measurements"][0]["status"] = "Fast"; });
  cases.edited("format", [](json& j) { j["format"] = "other"; });
  cases.edited("divides-by-zero",
               [](json& j) { j["measurements"][1]["config"] = kDividesByZero[1][1]; });
  for (const auto& [name, content] : cases.list) {
    SCOPED_TRACE(name);
    const std::string file = dir / (name + ".json");
    std::ofstream(file, std::ios::binary) << content;
    expect_refused({"import", file, "--db", db}, kExitUsage, name + ".json");
    EXPECT_EQ(snapshot(db), before);
  }
  // Larger than the import limit (sparse: nothing is written to disk).
  const std::string huge = dir / "huge.json";
  std::ofstream(huge).put('{');
  fs::resize_file(huge, 1ull << 32);
  expect_refused({"import", huge, "--db", db}, kExitUsage, "MiB");
  expect_refused({"import", dir / "absent.json", "--db", db}, kExitUsage, "absent.json");
  EXPECT_EQ(snapshot(db), before);
}

TEST(BadInputCli, BenchRefusesBadOptionsSizesAndDatabasesBeforeCreatingAnything) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  const auto bench = [&](std::vector<std::string> extra, const std::string& at = "") {
    std::vector<std::string> args = {"bench", "--device", "pthread", "--db", at.empty() ? db : at};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  expect_refused(bench({"--n", "64", "--frobnicate"}), kExitUsage, "--frobnicate");
  for (const char* n : {"0", "-5", "abc", "1e3", "64,abc", "64,", ",64", "64,,128", "",
                        "99999999999999999999999"}) {
    expect_refused(bench({"--n", n}), kExitUsage, "--n");
  }
  // "": no shape, not the default sweep of squares (minutes).
  for (const char* shape : {"8x64", "8x64x64x2", "0x64x64", "8xax64", "8x64x64,", "x64x64", ""}) {
    expect_refused(bench({"--shape", shape}), kExitUsage, "--shape");
  }
  expect_refused(bench({"--n", "64", "--precision", "12"}), kExitUsage, "--precision");
  expect_refused(bench({"--n", "64", "--batch", ""}), kExitUsage, "--batch");  // ran batch 1
  // A size beyond the device is refused before anything runs, also after a good one (the 64
  // used to be measured and stored first).
  expect_refused(bench({"--n", "64,100000"}), kExitUsage, "allocates at most");
  expect_refused({"bench", "--device", "no-such-gpu", "--n", "64", "--db", db}, kExitNoDevice,
                 "no-such-gpu");
  EXPECT_FALSE(fs::exists(db)) << "a refused bench created the database";

  fs::create_directories(dir / "adir");
  const std::string junk = dir / "junk.db";
  std::ofstream(junk) << std::string(8192, 'x');
  expect_refused(bench({"--n", "64"}, dir / "missing/t.db"), kExitUsage, "does not exist");
  expect_refused(bench({"--n", "64"}, dir / "adir"), kExitUsage, "is a directory");
  expect_refused(bench({"--n", "64"}, junk), kExitUsage, "not a valid mmtune database");
  EXPECT_EQ(slurp(junk), std::string(8192, 'x'));
  EXPECT_FALSE(fs::exists(dir / "missing"));
}

TEST(BadInputCli, BenchRefusesClblastTunerFilesThatCannotBeUsed) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  const std::string fixture =
      slurp(std::string(MMTUNE_KERNELS_DIR) + "/../tests/data/clblast/clblast_xgemm_12_32.json");
  const json good = json::parse(fixture);
  FileCases cases(good);
  cases.add_broken(fixture);
  cases.add("mmtune-export", R"({"format": "mmtune-export", "devices": []})");
  cases.edited("other-family", [](json& j) { j["kernel_family"] = "xgemmdirect_1"; });
  cases.edited("no-best", [](json& j) { j.erase("best_parameters"); });
  cases.edited("bad-parameter", [](json& j) { j["best_parameters"] = "MWG=abc NWG=64"; });
  cases.edited("injected-parameter", [](json& j) {
    j["best_parameters"] = j["best_parameters"].get<std::string>() + " -DEVIL=1";
  });
  cases.edited("negative-time", [](json& j) { j["best_time"] = "-1"; });
  cases.edited("precision", [](json& j) { j["precision"] = "12"; });
  for (const auto& [name, content] : cases.list) {
    SCOPED_TRACE(name);
    const std::string file = dir / (name + ".json");
    std::ofstream(file, std::ios::binary) << content;
    expect_refused(
        {"bench", "--device", "pthread", "--n", "64", "--db", db, "--clblast-tuned", file},
        kExitUsage, "--clblast-tuned '" + file + "'");
  }
  fs::create_directories(dir / "adir");
  const std::string absent = dir / "absent.json", adir = dir / "adir";
  expect_refused(
      {"bench", "--device", "pthread", "--n", "64", "--db", db, "--clblast-tuned", absent},
      kExitUsage, "--clblast-tuned '" + absent + "': cannot read '" + absent + "': no such file");
  expect_refused({"bench", "--device", "pthread", "--n", "64", "--db", db, "--clblast-tuned", adir},
                 kExitUsage,
                 "--clblast-tuned '" + adir + "': cannot read '" + adir + "': not a regular file");
  EXPECT_FALSE(fs::exists(db)) << "a refused bench created the database";
}

TEST(BadInputCli, ReportRefusesBadOptionsDatabasesAndOutputPlaces) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  fill(db, 4);
  const std::string before = snapshot(db);
  const std::string out = dir / "report";
  expect_refused({"report", "--db", db, "--out", out, "--frobnicate"}, kExitUsage, "--frobnicate");
  // A report only reads: a missing database is refused, not created and reported empty.
  expect_refused({"report", "--db", dir / "absent.db", "--out", out}, kExitUsage, "does not exist");
  EXPECT_FALSE(fs::exists(dir / "absent.db"));
  expect_refused({"report", "--db", dir / "missing/t.db", "--out", out}, kExitUsage,
                 "does not exist");
  expect_refused({"report", "--db", dir.path, "--out", out}, kExitUsage, "is a directory");
  const std::string junk = dir / "junk.db";
  std::ofstream(junk) << std::string(8192, 'x');
  expect_refused({"report", "--db", junk, "--out", out}, kExitUsage, "not a valid mmtune database");
  expect_refused({"report", "--db", db, "--out", out, "--devices", "no-such-device"}, kExitUsage,
                 "no stored device matches 'no-such-device'");
  expect_refused({"report", "--db", db, "--out", out, "--devices", ""}, kExitUsage, "--devices");
  EXPECT_FALSE(fs::exists(out)) << "a refused report wrote files";

  // Output places that cannot hold the report: a file, a path below a file, a directory the
  // process cannot write to (procfs for root, who ignores permissions), and a directory where
  // report.html goes.
  const std::string file = dir / "file";
  std::ofstream(file) << "x";
  std::string ro = "/proc/mmtune-report";
  if (geteuid() != 0) {
    fs::create_directories(dir / "ro");
    chmod((dir / "ro").c_str(), 0500);
    ro = dir / "ro/report";
  }
  for (const std::string& place : {file, file + "/report", ro}) {
    expect_refused({"report", "--db", db, "--out", place}, kExitUsage,
                   "cannot create report directory '" + place);
  }
  fs::create_directories(dir / "taken/report.html");
  expect_refused({"report", "--db", db, "--out", dir / "taken"}, kExitUsage,
                 "cannot write '" + (dir / "taken/report.html") + "': Is a directory");
  EXPECT_EQ(slurp(file), "x");
  EXPECT_EQ(snapshot(db), before);

  // The same database and directory work.
  const auto r = test::run_mmtune({"report", "--db", db, "--out", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out + "/report.html"));
}

TEST(BadInputCli, KernelsDirWithoutKernelsOrWithABrokenKernel) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  fs::create_directories(dir / "empty");
  const std::vector<std::string> tune = {"tune",  "--device", "pthread", "--n",  "64", "--kernel",
                                         "tiled", "--budget", "4",       "--db", db};
  auto args = tune;
  args.insert(args.begin(), {"--kernels-dir", dir / "empty"});
  expect_refused(args, kExitUsage, "has no readable common.cl");
  EXPECT_FALSE(fs::exists(db));

  // Every kernel present, but the tiled one does not compile.
  const fs::path kdir = dir / "broken";
  fs::create_directories(kdir);
  for (const auto& e : fs::directory_iterator(MMTUNE_KERNELS_DIR)) {
    fs::copy_file(e.path(), kdir / e.path().filename());
  }
  std::ofstream(kdir / "gemm_tiled.cl", std::ios::app) << "\nthis is not OpenCL C;\n";
  args = tune;
  args.insert(args.begin(), {"--kernels-dir", kdir.string()});
  args.push_back("--json");
  expect_refused(args, kExitUsage, "gemm_tiled.cl) does not compile");
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM measurements"), 0);
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM sessions"), 0);

  // A directory or an empty file in a kernel's place: it read as an empty program, built, and
  // every configuration was LaunchFailed.
  fs::remove(kdir / "gemm_tiled.cl");
  fs::create_directories(kdir / "gemm_tiled.cl");
  args = tune;
  args.insert(args.begin(), {"--kernels-dir", kdir.string()});
  expect_refused(args, kExitUsage, "has no readable gemm_tiled.cl (not a regular file)");
  fs::remove(kdir / "gemm_tiled.cl");
  std::ofstream(kdir / "gemm_tiled.cl") << "\n";
  expect_refused(args, kExitUsage, "gemm_tiled.cl is empty");

  // Edited kernels' results are stored under the built-in kernels' names: not in the database
  // everyone shares (the default one), only in one named for them.
  fs::copy_file(fs::path(MMTUNE_KERNELS_DIR) / "gemm_tiled.cl", kdir / "gemm_tiled.cl",
                fs::copy_options::overwrite_existing);
  std::ofstream(kdir / "gemm_tiled.cl", std::ios::app) << "\n// edited\n";
  const std::vector<std::string> no_db = {
      "--kernels-dir", kdir.string(), "tune", "--device", "pthread", "--n", "64", "--budget", "1"};
  auto r = test::run_mmtune(no_db, {{"MMTUNE_DB", dir / "default.db"}});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("holds edited kernels: name a database of their own with --db"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "default.db"));
  auto named = no_db;  // the default named as --db is the default all the same
  named.insert(named.end(), {"--db", dir / "default.db"});
  r = test::run_mmtune(named, {{"MMTUNE_DB", dir / "default.db"}});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_FALSE(fs::exists(dir / "default.db"));
  // Commands that do not read it ignored the option (bench and roofline time the built-in
  // kernels, space counts from tables, a spec names its own sources).
  expect_refused(
      {"--kernels-dir", kdir.string(), "bench", "--device", "pthread", "--n", "32", "--db", db},
      kExitUsage, "--kernels-dir is an option of run and tune (the GEMM kernels): bench");
  expect_refused({"--kernels-dir", kdir.string(), "roofline", "--device", "pthread", "--db", db},
                 kExitUsage, "roofline does not read it");
  expect_refused({"--kernels-dir", kdir.string(), "space", "--kernel", "tiled"}, kExitUsage,
                 "space does not read it");
  expect_refused({"--kernels-dir", kdir.string(), "run", "--spec",
                  std::string(MMTUNE_EXAMPLES_DIR) + "/kernels/transpose.toml", "--size", "64,32"},
                 kExitUsage, "--kernels-dir and --spec exclude each other");
}

}  // namespace
}  // namespace mmtune
