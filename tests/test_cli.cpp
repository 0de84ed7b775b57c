// The mmtune binary's command-line contract: exit codes and one-line errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

using test::run_mmtune;

void expect_usage_error(const std::vector<std::string>& args, const std::string& needle) {
  const auto r = run_mmtune(args);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  EXPECT_EQ(r.exit_code, 2) << joined << "\n" << r.err;
  EXPECT_EQ(test::line_count(r.err), 1) << joined << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << joined << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << joined;
}

TEST(Cli, VersionAndHelp) {
  auto r = run_mmtune({});  // nothing asked: usage, exit 2, stdout left for output
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("Usage: mmtune"), std::string::npos) << r.err;
  r = run_mmtune({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  // "mmtune 0.1.0 (commit 0123456789ab)", "+changes" for a modified tree, "unknown" without git.
  EXPECT_EQ(r.out.rfind("mmtune " MMTUNE_VERSION " (commit ", 0), 0u) << r.out;
  const auto open = r.out.find("(commit "), close = r.out.find(')');
  ASSERT_NE(close, std::string::npos) << r.out;
  std::string commit = r.out.substr(open + 8, close - open - 8);
  if (commit.size() > 12 && commit.substr(12) == "+changes") commit.resize(12);
  EXPECT_TRUE(
      commit == "unknown" ||
      (commit.size() == 12 && commit.find_first_not_of("0123456789abcdef") == std::string::npos))
      << r.out;
  r = run_mmtune({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("\nUsage: mmtune [OPTIONS]"), std::string::npos) << r.out.substr(0, 200);
  EXPECT_NE(r.out.find("Examples:"), std::string::npos);
  EXPECT_NE(r.out.find("devices"), std::string::npos);
  r = run_mmtune({"tune", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--time-limit"), std::string::npos);
}

// Shell completion and the CLI reference come from the option definitions: the completion
// completes commands and their options in bash; docs/cli.md is what `cli-reference` prints.
TEST(Cli, CompletionAndTheCliReferenceFollowTheOptions) {
  test::TempDir dir;
  auto r = run_mmtune({"completion", "bash"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ofstream(dir / "mmtune.bash") << r.out;
  const auto complete = [&](const std::string& words, int cword) {
    const std::string script = "source '" + (dir / "mmtune.bash") + "'; COMP_WORDS=(" + words +
                               "); COMP_CWORD=" + std::to_string(cword) +
                               "; _mmtune; echo \"${COMPREPLY[*]}\"";
    std::ofstream(dir / "complete.sh") << script;
    FILE* p = popen(("bash '" + (dir / "complete.sh") + "'").c_str(), "r");
    std::string out;
    char buf[256];
    while (p && std::fgets(buf, sizeof buf, p)) out += buf;
    if (p) pclose(p);
    return out;
  };
  EXPECT_EQ(complete("mmtune tu", 1), "tune\n");
  EXPECT_EQ(complete("mmtune tune --time", 2), "--time-limit\n");
  EXPECT_EQ(complete("mmtune report --op", 2), "--open\n");
  EXPECT_NE(complete("mmtune --", 1).find("--verbose"), std::string::npos);
  // Before any command, the default command's (tune's) options: "mmtune --n 2048" is tune.
  EXPECT_EQ(complete("mmtune --time", 1), "--time-limit\n");

  r = run_mmtune({"cli-reference"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(std::string(MMTUNE_KERNELS_DIR) + "/../docs/cli.md");
  const std::string committed((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
  EXPECT_EQ(r.out, committed) << "docs/cli.md is stale: mmtune cli-reference > docs/cli.md";
  EXPECT_NE(r.out.find("## mmtune tune"), std::string::npos);
}

TEST(Cli, DevicesListsBothPoclDevices) {
  const auto r = run_mmtune({"devices"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pthread-"), std::string::npos);
  EXPECT_NE(r.out.find("basic-"), std::string::npos);
  EXPECT_NE(r.out.find("key "), std::string::npos);
  EXPECT_NE(r.out.find("fp64 yes"), std::string::npos);
  const auto j = run_mmtune({"devices", "--json"});
  ASSERT_EQ(j.exit_code, 0);
  const auto list = nlohmann::json::parse(j.out);
  for (const char* field :
       {"index", "key", "platform", "vendor", "name", "type", "driver_version", "opencl_c_version",
        "compute_units", "max_clock_mhz", "global_mem_bytes", "local_mem_bytes",
        "max_work_group_size", "preferred_vector_widths", "native_vector_widths", "fp64", "fp16"}) {
    EXPECT_TRUE(list[0].contains(field)) << field;
  }
  // The default device (no --device): the most capable, said in the listing.
  EXPECT_NE(r.out.find(": the default device"), std::string::npos) << r.out;
  int defaults = 0;
  for (const auto& d : list) {
    defaults += d["default"].get<bool>() ? 1 : 0;
    if (d["default"].get<bool>()) {
      EXPECT_NE(d["name"].get<std::string>().find("pthread"), std::string::npos);
    }
  }
  EXPECT_EQ(defaults, 1);

  // The timing facts the text shows are in the JSON: null until a device is calibrated (by a
  // tune, bench or roofline), then whether its events are usable and its fp32 peak.
  test::TempDir cache;
  const std::map<std::string, std::string> env = {{"XDG_CACHE_HOME", cache.path}};
  ASSERT_EQ(run_mmtune({"roofline", "--device", "pthread", "--db", cache / "r.db"}, env).exit_code,
            0);
  const auto after = nlohmann::json::parse(run_mmtune({"devices", "--json"}, env).out);
  for (const auto& d : after) {
    ASSERT_TRUE(d.contains("peak_gflops") && d.contains("events_usable")) << d;
    const bool pthread = d["name"].get<std::string>().find("pthread-") == 0;
    EXPECT_EQ(d["peak_gflops"].is_number(), pthread) << d;
    if (pthread) {
      EXPECT_GT(d["peak_gflops"].get<double>(), 0) << d;
      EXPECT_TRUE(d["events_usable"].get<bool>()) << d;  // PoCL's are (llvmpipe's are not)
    }
  }
}

TEST(Cli, PinsPoclWorkersUnlessTheUserChose) {
  // Unpinned, PoCL's two workers often shared one core for a whole process (half speed).
  const char* before = std::getenv("POCL_AFFINITY");
  const std::string saved = before ? before : "";
  unsetenv("POCL_AFFINITY");
  const auto pinned = run_mmtune({"-v", "devices"});
  const auto chosen = run_mmtune({"-v", "devices"}, {{"POCL_AFFINITY", "0"}});
  if (before) setenv("POCL_AFFINITY", saved.c_str(), 1);
  ASSERT_EQ(pinned.exit_code, 0) << pinned.err;
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  EXPECT_NE(pinned.err.find("POCL_AFFINITY=1"), std::string::npos) << pinned.err;
  EXPECT_EQ(chosen.err.find("POCL_AFFINITY"), std::string::npos) << chosen.err;
}

TEST(Cli, BadSizesAreUsageErrors) {
  expect_usage_error({"--device", "0", "--n", "0"}, "--n: must be a positive integer");
  expect_usage_error({"--device", "0", "--n", "-5"}, "-5");
  expect_usage_error({"--device", "0", "--n", "abc"}, "--n: must be a positive integer, got 'abc'");
  expect_usage_error({"--device", "0", "--n", "99999999999"}, "GiB");
  expect_usage_error({"--device", "0", "--n", "99999999999999999999999"}, "too large");
  expect_usage_error({"tune", "--device", "0"}, "give the problem size");
  expect_usage_error({"run", "--n", "64", "--m", "x"}, "--m: must be a positive integer");
  // Without --n no size is its default: --m 5 alone ran 5x5x5.
  expect_usage_error({"run", "--device", "pthread", "--m", "5"}, "--m and --k need --n");
  expect_usage_error({"--device", "0", "--k", "5", "--m", "7"}, "--m and --k need --n");
}

TEST(Cli, BadOptionsAreUsageErrors) {
  expect_usage_error({"--device", "0", "--n", "64", "--bogus"}, "--bogus");
  expect_usage_error({"--n", "64", "--precision", "12"}, "precision");
  expect_usage_error({"--n", "64", "--strategy", "magic"}, "strategy");
  expect_usage_error({"--n", "64", "--time-limit", "soon"}, "not a duration");
  expect_usage_error({"--n", "64", "--kernel", "fastest"}, "unknown kernel");
  // An option's value that names a command is a value: "best" turned the default command off.
  expect_usage_error({"--n", "64", "--kernel", "best"}, "unknown kernel 'best'");
  // What was not expected, in the order given (CLI11 listed it backwards).
  expect_usage_error({"history", "--foo", "bar", "baz"}, "not expected: --foo bar baz");
  expect_usage_error({"--n", "64", "--strategy", "annealing", "--strategy-option", "heat=1"},
                     "has no option 'heat'");
  expect_usage_error({"--n", "64", "--strategy-option", "kappa=much"}, "not NAME=NUMBER");
  // Given twice, the first value was dropped without a word.
  expect_usage_error({"--n", "64", "--strategy", "annealing", "--strategy-option",
                      "start_temperature=2", "--strategy-option", "start_temperature=3"},
                     "strategy option 'start_temperature' is given twice");
  expect_usage_error({"run", "--n", "64", "--config", "MWG=3"}, "MWG");
  expect_usage_error({"run", "--n", "64", "--config", "MWG=64 -DEVIL=1"}, "unknown parameter");
  // An empty value ("--db $UNSET") read as the option left out: the shared database, the first
  // device.
  expect_usage_error({"--n", "64", "--db", ""}, "--db: an empty value");
  expect_usage_error({"--n", "64", "--device", ""}, "--device: an empty value");
  expect_usage_error({"history", "--db", ""}, "--db: an empty value");
  expect_usage_error({"--kernels-dir", "", "run", "--n", "64"}, "--kernels-dir: an empty value");
}

TEST(Cli, UnknownDeviceNamesWhatExists) {
  const auto r = run_mmtune({"--device", "no-such-gpu", "--n", "64"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("no-such-gpu"), std::string::npos);
  EXPECT_NE(r.err.find("pthread-"), std::string::npos);
  EXPECT_EQ(run_mmtune({"--device", "42", "--n", "64"}).exit_code, 3);
  EXPECT_EQ(run_mmtune({"--device", "basic", "--platform", "nowhere", "--n", "64"}).exit_code, 3);
  // Under --platform, the devices said available are that platform's (it listed every device,
  // the one asked for among them).
  const auto other = run_mmtune(
      {"run", "--platform", "Portable", "--device", "llvmpipe", "--n", "8", "--kernel", "naive"});
  EXPECT_EQ(other.exit_code, 3) << other.err;
  const auto available = other.err.find("available: on platform 'Portable': ");
  ASSERT_NE(available, std::string::npos) << other.err;
  EXPECT_EQ(other.err.find("llvmpipe", available), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("pthread-", available), std::string::npos) << other.err;
  // An unknown platform alone is refused too, not ignored.
  EXPECT_EQ(run_mmtune({"space", "--kernel", "tiled", "--platform", "nowhere"}).exit_code, 3);
  EXPECT_EQ(
      run_mmtune({"space", "--spec", std::string(MMTUNE_EXAMPLES_DIR) + "/kernels/transpose.toml",
                  "--size", "64,64", "--platform", "nowhere"})
          .exit_code,
      3);
  // A spec tune takes one device: --device all is said to be GEMM's.
  const auto all =
      run_mmtune({"tune", "--spec", std::string(MMTUNE_EXAMPLES_DIR) + "/kernels/transpose.toml",
                  "--size", "64,64", "--device", "all", "-q"});
  EXPECT_EQ(all.exit_code, 2) << all.err;
  EXPECT_NE(all.err.find("a spec tune takes one device"), std::string::npos) << all.err;
}

// What a run does not know is null, as in best --json: a batch run one launch per item has no
// kernel time of its own (it printed 0), and a GEMM states no bytes.
TEST(Cli, RunJsonSaysWhatIsUnknownAsNull) {
  const auto r = run_mmtune(
      {"run", "--device", "pthread", "--n", "9", "--batch", "2", "--kernel", "naive", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto m = nlohmann::json::parse(r.out)["measurement"];
  EXPECT_EQ(m["status"], "Ok") << m;
  EXPECT_GT(m["median_ms"].get<double>(), 0) << m;
  EXPECT_GT(m["gflops"].get<double>(), 0) << m;
  EXPECT_TRUE(m["kernel_median_ms"].is_null()) << m;
  EXPECT_TRUE(m["kernel_gflops"].is_null()) << m;
  EXPECT_TRUE(m["gbps"].is_null()) << m;
}

TEST(Cli, NoOpenClPlatformIsExitThree) {
  // An empty vendor directory leaves the ICD loader without any platform.
  const auto r = run_mmtune({"devices"}, {{"OCL_ICD_VENDORS", "/nonexistent-mmtune"}});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("no OpenCL platform"), std::string::npos) << r.err;
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
}

TEST(Cli, DeviceSelectionByNameWorksForBothDevices) {
  for (const char* name : {"pthread", "basic"}) {
    const auto r = run_mmtune({"run", "--device", name, "--n", "40", "--kernel", "naive"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(std::string("on ") + name), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Ok:"), std::string::npos) << r.out;
  }
}

TEST(Cli, SpaceCountsConfigurations) {
  const auto r = run_mmtune({"space", "--kernel", "tiled", "--device", "pthread", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["before_constraints"].get<double>(), j["after_constraints"].get<double>());
  EXPECT_GE(j["after_constraints"].get<double>(), j["after_device_limits"].get<double>());
  EXPECT_GE(j["after_device_limits"].get<double>(), 10000);
  const auto q = run_mmtune({"space", "--kernel", "tiled", "--space", "quick", "--json"});
  const auto jq = nlohmann::json::parse(q.out);
  EXPECT_GE(jq["after_constraints"].get<int>(), 100);
  EXPECT_LE(jq["after_constraints"].get<int>(), 1000);
  EXPECT_EQ(j["precision"], 32);
  // A precision the device lacks is refused (it counted 0 without a reason), and without a
  // device the precision changes nothing (it was ignored).
  const DeviceInfo& info = test::pocl_device("pthread").info;
  if (!info.fp16 || !info.fp64) {
    const std::string lacking = !info.fp16 ? "16" : "64";
    const auto refused =
        run_mmtune({"space", "--kernel", "tiled", "--device", "pthread", "--precision", lacking});
    EXPECT_EQ(refused.exit_code, 3) << refused.out;
    EXPECT_NE(refused.err.find("has no fp" + lacking + " support"), std::string::npos)
        << refused.err;
  }
  for (const char* bits : {"32", "64"}) {
    const auto alone = run_mmtune({"space", "--kernel", "tiled", "--precision", bits});
    EXPECT_EQ(alone.exit_code, 2) << alone.out;
    EXPECT_NE(alone.err.find("it needs --device"), std::string::npos) << alone.err;
  }
}

TEST(Cli, KernelsDirIsUsedAndChecked) {
  auto r =
      run_mmtune({"--kernels-dir", MMTUNE_KERNELS_DIR, "run", "--n", "33", "--kernel", "classic"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_mmtune({"--kernels-dir", "/nonexistent", "run", "--n", "33"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a directory"), std::string::npos);
}

}  // namespace
}  // namespace mmtune

namespace mmtune {
namespace {

// A best slower than a reference (a search too short to beat the naive kernel at a tiny size on
// llvmpipe) printed "0.27x faster than"; a rate under 0.05 GFLOPS printed as 0.0.
TEST(TuneSummaryText, ABestSlowerThanAReferenceSaysSlowerAndSmallRatesKeepTheirDigits) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  const std::vector<std::string> tune = {"tune",     "--device", "pthread", "--n", "48",
                                         "--budget", "3",        "--db",    db};
  const auto first = run_mmtune(tune);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // Its drift line read "timed again 1 times ... at 100%-100% of its speed".
  EXPECT_EQ(first.out.find(" 1 times"), std::string::npos) << first.out;
  EXPECT_EQ(first.out.find("100%-100%"), std::string::npos) << first.out;
  // The stored references as another machine might have timed them: the naive kernel 100x
  // faster than it ran, the classic one 1000x slower.
  Store(db).db().exec(
      "UPDATE measurements SET median_ms = median_ms / 100, min_ms = min_ms / 100, "
      "max_ms = max_ms / 100, gflops = gflops * 100 WHERE kernel = 'naive';"
      "UPDATE measurements SET median_ms = median_ms * 1000, min_ms = min_ms * 1000, "
      "max_ms = max_ms * 1000, gflops = gflops / 1000 WHERE kernel = 'classic'");
  const auto r = run_mmtune(tune);  // a resume: the stored references are kept
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("x slower than the naive kernel"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("x faster than the naive kernel"), std::string::npos) << r.out;
  const auto classic = r.out.find("x faster than the classic 16x16 kernel (0.00");
  EXPECT_NE(classic, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(0.0 GFLOPS)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace mmtune
