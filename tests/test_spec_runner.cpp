// A user's kernel from a spec file on a real device (PoCL): build, run, verify, time, and the
// statuses of variants that do not build, compute wrong results or exceed the device.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "family/spec.hpp"
#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "mmtune/spec_lookup.hpp"
#include "opencl/spec_runner.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

const std::string kExamples = MMTUNE_EXAMPLES_DIR "/kernels";

const Device& pthread_device() {
  static const std::vector<Device> devices = list_devices();
  return select_device(devices, "pthread", "");
}

// y = a * x + c, each work-item `per_item` elements `wg * per_item` apart... with two ways to
// fail: `bug` corrupts one element, `broken` does not compile.
const char* const kScaleSource = R"cl(
#ifndef wg
#define wg 1  // work-items per work-group
#endif
#ifndef per_item
#define per_item 1  // elements per work-item
#endif
#ifndef bug
#define bug 0  // 1: a wrong result at element 5
#endif
#ifndef broken
#define broken 0  // 1: a compile error
#endif
__kernel void scale(__global float* y, __global const float* x, const float a, const int n) {
#if broken
  this is not OpenCL;
#endif
  const int base = get_group_id(0) * wg * per_item + get_local_id(0);
  for (int i = 0; i < per_item; ++i) {
    const int e = base + i * wg;
    if (e < n) y[e] = a * x[e] + (bug && e == 5 ? 1.0f : 0.0f);
  }
}
__kernel void scale_reference(__global float* y, __global const float* x, const float a,
                              const int n) {
  const int e = get_global_id(0);
  if (e < n) y[e] = a * x[e];
}
)cl";

std::string scale_spec(const std::string& verification) {
  return R"(name = "scale"
source = "scale.cl"
kernel = "scale"
sizes = ["n"]
constraints = ["wg <= max_work_group_size"]
[parameters]
wg = [1, 4, 16, 64, 8192]
per_item = [1, 3]
bug = [0, 1]
broken = [0, 1]
[launch]
problem = ["n"]
grid_div_x = ["wg", "per_item"]
local = ["wg"]
[[arguments]]
name = "y"
type = "float"
size = "n"
output = true
[[arguments]]
name = "x"
type = "float"
size = "n"
init = "random"
seed = 7
[[arguments]]
name = "a"
kind = "scalar"
type = "float"
value = "2.5"
[[arguments]]
name = "n"
kind = "scalar"
type = "int"
value = "n"
[metrics]
flops = "n"
bytes = "8 * n"
)" + verification;
}

KernelSpec write_spec(const test::TempDir& dir, const std::string& verification) {
  std::ofstream(dir / "scale.cl") << kScaleSource;
  std::ofstream(dir / "scale.toml") << scale_spec(verification);
  return parse_spec_file(dir / "scale.toml");
}

TEST(SpecRunner, VerifiesTimesAndGivesEachFailureItsStatus) {
  test::TempDir dir;
  const KernelSpec spec = write_spec(dir, R"([verification]
reference = "kernel"
kernel = "scale_reference"
global = ["n"]
absolute = 0
relative = 1e-6
)");
  SpecRunner runner(pthread_device(), spec, {1001});
  auto& space = runner.instance();
  for (const char* ok : {"wg=1 per_item=1 bug=0 broken=0", "wg=16 per_item=3 bug=0 broken=0",
                         "wg=64 per_item=1 bug=0 broken=0"}) {
    const Measurement m = runner.evaluate(space.parse(ok));
    ASSERT_EQ(m.status, Status::kOk) << ok << ": " << m.message;
    EXPECT_GT(m.median_ms, 0.0);
    EXPECT_GE(m.routine_ms.size(), 3u);
    EXPECT_NEAR(m.gflops, 1001 / (m.median_ms * 1e6), 1e-9);
    EXPECT_NEAR(m.gbps, 8 * 1001 / (m.median_ms * 1e6), 1e-9);  // from the spec's bytes
    EXPECT_EQ(m.max_error, 0.0);
  }
  const Measurement wrong = runner.evaluate(space.parse("wg=4 per_item=3 bug=1 broken=0"));
  EXPECT_EQ(wrong.status, Status::kWrongResult);
  EXPECT_NE(wrong.message.find("y[5] = "), std::string::npos) << wrong.message;
  const Measurement build = runner.evaluate(space.parse("wg=4 per_item=1 bug=0 broken=1"));
  EXPECT_EQ(build.status, Status::kBuildFailed);
  EXPECT_FALSE(build.message.empty());
  const Measurement big = runner.evaluate(space.parse("wg=8192 per_item=1 bug=0 broken=0"));
  EXPECT_EQ(big.status, Status::kExceedsLimits) << big.message;
}

TEST(SpecRunner, TheFirstConfigurationOrAFileCanBeTheReference) {
  test::TempDir dir;
  {
    const KernelSpec spec = write_spec(dir, "[verification]\nreference = \"first\"\n");
    SpecRunner runner(pthread_device(), spec, {100});
    EXPECT_EQ(runner.evaluate(runner.instance().parse("wg=4 per_item=1 bug=0 broken=0")).status,
              Status::kOk);
    EXPECT_EQ(runner.evaluate(runner.instance().parse("wg=4 per_item=3 bug=1 broken=0")).status,
              Status::kWrongResult);
    // A worker started again after a crash compares with the same first configuration, not
    // with whichever variant it runs first (here a wrong one).
    SpecRunner restarted(pthread_device(), spec, {100});
    EXPECT_EQ(
        restarted.evaluate(restarted.instance().parse("wg=4 per_item=3 bug=1 broken=0")).status,
        Status::kWrongResult);
  }
  // Expected bytes from a file: 2.5 * x computed here with the same seeded contents would need
  // the generator; a constant input makes the expectation plain.
  std::string text = scale_spec("[verification]\nreference = \"file\"\nfile = \"y.bin\"\n");
  text.replace(text.find("init = \"random\""), 15, "init = 2");
  std::vector<float> y(100, 5.0f);
  std::ofstream(dir / "y.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(y.data()), std::streamsize(y.size() * sizeof(float)));
  std::ofstream(dir / "scale.toml") << text;
  const KernelSpec spec = parse_spec_file(dir / "scale.toml");
  SpecRunner runner(pthread_device(), spec, {100});
  EXPECT_EQ(runner.evaluate(runner.instance().parse("wg=16 per_item=3 bug=0 broken=0")).status,
            Status::kOk);
  EXPECT_EQ(runner.evaluate(runner.instance().parse("wg=16 per_item=3 bug=1 broken=0")).status,
            Status::kWrongResult);
  EXPECT_THROW(SpecRunner(pthread_device(), spec, {99}), UsageError);  // the file is for n = 100
  // The expected data is part of the spec: other data is another spec, whose results are not
  // those stored for this one.
  y[0] = 6.0f;
  std::ofstream(dir / "y.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(y.data()), std::streamsize(y.size() * sizeof(float)));
  EXPECT_NE(spec_kernel_name(parse_spec_file(dir / "scale.toml")), spec_kernel_name(spec));

  // An input file that fits some configurations' buffer and not others': a status for those.
  std::string sized = scale_spec("[verification]\nreference = \"first\"\n");
  const std::string random_x = "size = \"n\"\ninit = \"random\"\nseed = 7";
  sized.replace(sized.find(random_x), random_x.size(), "size = \"n * per_item\"\nfile = \"x.bin\"");
  std::vector<float> x(100, 1.0f);
  std::ofstream(dir / "x.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(x.data()), std::streamsize(x.size() * sizeof(float)));
  std::ofstream(dir / "sized.toml") << sized;
  const KernelSpec sized_spec =
      parse_spec_file(dir / "sized.toml");  // the runner keeps a reference
  SpecRunner per_item(pthread_device(), sized_spec, {100});
  EXPECT_EQ(per_item.evaluate(per_item.instance().parse("wg=4 per_item=1 bug=0 broken=0")).status,
            Status::kOk);
  const Measurement misfit =
      per_item.evaluate(per_item.instance().parse("wg=4 per_item=3 bug=0 broken=0"));
  EXPECT_EQ(misfit.status, Status::kLaunchFailed);
  EXPECT_NE(misfit.message.find("x.bin has 400 bytes"), std::string::npos) << misfit.message;
}

TEST(SpecCli, RunsTheConvolutionExampleVerifiedOnBothPoclDevices) {
  for (const char* device : {"pthread", "basic"}) {
    // Odd sizes: partial work-groups and tiles at the right and bottom edges.
    const auto r = test::run_mmtune(
        {"run", "--spec", kExamples + "/convolution.toml", "--size", "67,45,5", "--config",
         "block_size_x=16 block_size_y=4 tile_size_x=3 tile_size_y=2 use_padding=1", "--device",
         device, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["measurement"]["status"], "Ok");
    EXPECT_GT(j["measurement"]["gflops"].get<double>(), 0.0);
  }
  const auto bad =
      test::run_mmtune({"run", "--spec", kExamples + "/convolution.toml", "--size", "67,45,5",
                        "--config", "block_size_x=3", "--device", "pthread"});
  EXPECT_EQ(bad.exit_code, kExitUsage);
  EXPECT_NE(bad.err.find("'3' is not a value of block_size_x"), std::string::npos) << bad.err;
}

TEST(SpecCli, GemmProblemOptionsNextToASpecAreRefused) {
  // A spec's problem is its --size: GEMM problem options next to it are refused, not ignored.
  // "" is the default command, tune.
  for (const char* command : {"run", "tune", "best", ""}) {
    for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
             {"--n", "64"}, {"--layout", "col"}, {"--batch", "2"}}) {
      std::vector<std::string> args = {
          "--spec", kExamples + "/convolution.toml", "--size", "67,45,5", "--device", "pthread"};
      if (*command) args.insert(args.begin(), command);
      args.insert(args.end(), extra.begin(), extra.end());
      const auto r = test::run_mmtune(args);
      EXPECT_EQ(r.exit_code, kExitUsage) << command << " " << extra[0];
      EXPECT_NE(r.err.find("--spec takes its problem from --size"), std::string::npos) << r.err;
    }
  }
}

TEST(SpecCli, OptionsASpecWouldIgnoreAreRefused) {
  // The GEMM paths' options: a spec names its kernel, space and operands' seeds, and its tune has
  // no reference kernels or drift checks; best looks a spec up by its own kernel. "" is the
  // default command.
  const std::vector<std::vector<std::string>> cases = {
      {"space", "--kernel", "tiled"}, {"space", "--space", "quick"}, {"space", "--precision", "64"},
      {"run", "--kernel", "direct"},  {"run", "--seed", "3"},        {"tune", "--kernel", "direct"},
      {"tune", "--space", "quick"},   {"tune", "--no-drift"},        {"tune", "--no-baselines"},
      {"", "--no-baselines"},         {"best", "--kernel", "tiled"}};
  for (const auto& c : cases) {
    std::vector<std::string> args = {
        "--spec", kExamples + "/convolution.toml", "--size", "67,45,5", "--device", "pthread"};
    if (!c[0].empty()) args.insert(args.begin(), c[0]);
    args.insert(args.end(), c.begin() + 1, c.end());
    const auto r = test::run_mmtune(args);
    EXPECT_EQ(r.exit_code, kExitUsage) << c[0] << " " << c[1] << ": " << r.out;
    EXPECT_NE(r.err.find(c[1] + " and --spec exclude each other"), std::string::npos) << r.err;
  }
}

// Every shipped example builds, runs and verifies: its default and two other configurations, on
// odd sizes (partial work-groups), on `device`.
void run_examples(const std::string& device) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"convolution|67,45,5",
       {"", "block_size_x=32 block_size_y=2 tile_size_x=3 tile_size_y=5 use_padding=0"}},
      {"transpose|1000,333", {"", "padding=0 per_item=4 tile=32", "padding=1 per_item=8 tile=8"}},
      {"reduction|1000003",
       {"", "per_item=16 unroll_loads=4 vw=16 wg=128", "per_item=1 unroll_loads=2 vw=1 wg=16"}},
  };
  for (const auto& [what, configs] : cases) {
    const std::string name = what.substr(0, what.find('|')),
                      sizes = what.substr(what.find('|') + 1);
    for (const auto& config : configs) {
      std::vector<std::string> args = {"run",    "--spec", kExamples + "/" + name + ".toml",
                                       "--size", sizes,    "--device",
                                       device,   "--json"};
      if (!config.empty()) args.insert(args.end(), {"--config", config});
      const auto r = test::run_mmtune(args);
      ASSERT_EQ(r.exit_code, 0) << name << " [" << config << "] on " << device << ": " << r.out
                                << r.err;
      EXPECT_EQ(nlohmann::json::parse(r.out)["measurement"]["status"], "Ok") << name;
    }
  }
}

TEST(SpecExamples, EachRunsVerifiedOnPocl) {
  run_examples("pthread");
}
TEST(LlvmpipeSpecExamples, EachRunsVerifiedOnRusticl) {
  run_examples("llvmpipe");
}

// A kernel no example contains, written here: tuned in the supervised worker, stored, resumed,
// and its tuned defines looked up through the consumer API.
// The scale kernel with only correct, buildable variants, a parameter of words (the kernel
// ignores it: searched, stored and replayed like numbers) and a default to compare with.
void write_tunable_scale(const test::TempDir& dir) {
  std::ofstream(dir / "scale.cl") << kScaleSource;
  std::string text = scale_spec(R"([verification]
reference = "kernel"
kernel = "scale_reference"
global = ["n"]
)");
  text.replace(text.find("bug = [0, 1]"), 12, "bug = [0]");
  text.replace(text.find("broken = [0, 1]"), 15,
               "broken = [0]\nflavour = [\"plain\", \"also_plain\"]");
  text.replace(
      text.find("[launch]"), 8,
      "[default]\nwg = 1\nper_item = 1\nbug = 0\nbroken = 0\nflavour = \"plain\"\n[launch]");
  std::ofstream(dir / "scale.toml") << text;
}

TEST(SpecTune, TunesStoresResumesAndIsLookedUpThroughTheApi) {
  test::TempDir dir;
  write_tunable_scale(dir);
  const std::string db = dir / "spec.db";
  auto r = test::run_mmtune({"tune", "--spec", dir / "scale.toml", "--size", "100000", "--device",
                             "pthread", "--budget", "4", "--db", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["configurations"], 16);  // wg 8192 exceeds the device
  EXPECT_EQ(j["reused"], 0);
  EXPECT_GE(j["evaluations"].get<int>(), 4);
  ASSERT_TRUE(j.contains("best")) << r.out;
  ASSERT_TRUE(j.contains("default")) << r.out;
  // The confirmation measures the default beside the finalists: the best is never slower.
  EXPECT_LE(j["best"]["measurement"]["median_ms"].get<double>(),
            j["default"]["measurement"]["median_ms"].get<double>());
  const std::string best = j["best"]["config"];

  r = test::run_mmtune({"tune", "--spec", dir / "scale.toml", "--size", "100000", "--device",
                        "pthread", "--budget", "8", "--db", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["reused"].get<int>(), 4) << "what the first session measured is not measured again";

  r = test::run_mmtune({"best", "--spec", dir / "scale.toml", "--size", "100000", "--device",
                        "pthread", "--db", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto stored_best = nlohmann::json::parse(r.out);
  const std::string stored = stored_best["config"];
  // Its problem is the spec and its sizes, not a GEMM's precision, layout and transpositions.
  EXPECT_EQ(stored_best["problem"], (nlohmann::json{{"spec", "scale"}, {"sizes", {100000}}}))
      << r.out;
  // GB/s from the spec's bytes, stored with the measurement.
  EXPECT_NEAR(stored_best["gbps"].get<double>(),
              8 * 100000 / (stored_best["median_ms"].get<double>() * 1e6), 1e-6);
  // In text, the kernel is named as the user named it, not as a GEMM shape.
  r = test::run_mmtune({"best", "--spec", dir / "scale.toml", "--size", "100000", "--device",
                        "pthread", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("scale at sizes 100000 on ", 0), 0u) << r.out;
  // Where the best came from: the session that measured it, with its command line.
  const std::string from = "of session " + std::to_string(stored_best["session_id"].get<int>()) +
                           " (" + stored_best["session_command_line"].get<std::string>();
  EXPECT_NE(r.out.find(from), std::string::npos) << r.out;
  EXPECT_NE(stored_best["session_command_line"].get<std::string>().find("tune --spec"),
            std::string::npos);

  // The stored landscape replays like any other.
  r = test::run_mmtune({"simulate",
                        "--db",
                        db,
                        "--device",
                        "pthread",
                        "--kernel",
                        j["kernel"].get<std::string>(),
                        "--m",
                        "100000",
                        "--n",
                        "1",
                        "--k",
                        "1",
                        "--strategy",
                        "random",
                        "--seeds",
                        "2",
                        "--budget",
                        "4",
                        "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const int replayed = nlohmann::json::parse(r.out)[0]["configurations"].get<int>();
  // What the two sessions measured (budget 8 and the default) of the 16 valid configurations.
  EXPECT_GE(replayed, 4);
  EXPECT_LE(replayed, 9);
  // In text, the replay names the spec's sizes, not a GEMM problem ("100000x1x1 fp32 row NN").
  r = test::run_mmtune({"simulate", "--db", db, "--device", "pthread", "--kernel",
                        j["kernel"].get<std::string>(), "--landscape"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" of 100000,1,1 on "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("fp32"), std::string::npos) << r.out;

  // The report has a section on users' kernels with the stored best.
  r = test::run_mmtune({"report", "--db", db, "--out", dir / "report"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream md(dir / "report/report.md");
  const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(report.find("Users' kernels (spec files)"), std::string::npos);
  EXPECT_NE(report.find(j["kernel"].get<std::string>()), std::string::npos);
  EXPECT_NE(report.find("best \\[GB/s\\]"), std::string::npos);  // markdown-escaped

  // Kernel Tuner's format here takes numbers only.
  r = test::run_mmtune({"export", "--db", db, "--format", "kerneltuner", "--kernel",
                        j["kernel"].get<std::string>(), "--device", "pthread", "--m", "100000",
                        "--n", "1", "--k", "1"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("integer parameters only"), std::string::npos) << r.err;

  // Nothing stored is lost on the way through the exchange format.
  r = test::run_mmtune({"export", "--db", db, "-o", dir / "all.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_mmtune({"import", dir / "all.json", "--db", dir / "copy.db"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_mmtune({"best", "--spec", dir / "scale.toml", "--size", "100000", "--device",
                        "pthread", "--db", dir / "copy.db", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["config"], stored);
  EXPECT_EQ(nlohmann::json::parse(r.out)["gbps"], stored_best["gbps"]);

  const DeviceInfo& device = pthread_device().info;
  const auto exact = best_defines(db, "scale", device, {100000});
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->source, LookupSource::kExact);
  EXPECT_EQ(exact->gbps, stored_best["gbps"].get<double>());
  std::string as_text;
  for (const auto& [name, value] : exact->parameters) {
    as_text += (as_text.empty() ? "" : " ") + name + "=" + value;
  }
  EXPECT_EQ(as_text, stored);
  // By name, each as -DNAME=VALUE: the words as words.
  const std::string options = exact->build_options();
  EXPECT_EQ(options.rfind("-Dbroken=0 -Dbug=0 -Dflavour=", 0), 0u) << options;
  EXPECT_TRUE(options.find("-Dflavour=plain ") != std::string::npos ||
              options.find("-Dflavour=also_plain ") != std::string::npos)
      << options;
  EXPECT_NE(options.find(" -Dwg=" + exact->parameters[4].second), std::string::npos) << options;
  EXPECT_EQ(exact->parameters.size(), 5u);
  const auto nearest = best_defines(db, "scale", device, {50000});
  ASSERT_TRUE(nearest);
  EXPECT_EQ(nearest->source, LookupSource::kNearestShape);
  EXPECT_EQ(nearest->sizes[0], 100000);
  EXPECT_FALSE(best_defines(db, "transpose", device, {100000}));
  DeviceInfo other = device;
  other.key = "0000000000000000", other.vendor = "someone else";
  EXPECT_FALSE(best_defines(db, "scale", other, {100000}));
  EXPECT_FALSE(best.empty());
}

// A buffer that no device allocation can hold: the spec's line of that argument, in one line.
TEST(SpecTune, ABufferOverTheLargestAllocationNamesItsArgumentsLine) {
  test::TempDir dir;
  write_tunable_scale(dir);
  for (const char* command : {"tune", "run"}) {
    std::vector<std::string> args = {command,        "--spec",   dir / "scale.toml", "--size",
                                     "100000000000", "--device", "pthread"};
    if (std::string(command) == "tune") args.insert(args.end(), {"--db", dir / "x.db"});
    const auto r = test::run_mmtune(args);
    EXPECT_EQ(r.exit_code, kExitUsage) << command << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("scale.toml:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(": arguments[0].size: buffer y of 100000000000 elements"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("exceeds the device's largest allocation"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// A variant that takes the worker down or never finishes (here: test hooks abort it or sleep)
// is a status of that variant; the worker restarts and the tune completes.
TEST(SpecTune, AVariantThatCrashesOrHangsTheWorkerIsAStatus) {
  test::TempDir dir;
  write_tunable_scale(dir);
  const auto r = test::run_mmtune(
      {"tune", "--spec", dir / "scale.toml", "--size", "1000", "--device", "pthread", "--strategy",
       "exhaustive", "--db", dir / "spec.db", "--json"},
      {{"MMTUNE_TEST_ABORT_ON_CONFIG", "broken=0 bug=0 flavour=also_plain per_item=3 wg=16"},
       {"MMTUNE_TEST_HANG_ON_CONFIG", "broken=0 bug=0 flavour=plain per_item=1 wg=4"}});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["by_status"]["Crashed"], 1) << r.out;
  EXPECT_EQ(j["by_status"]["Timeout"], 1) << r.out;
  EXPECT_GE(j["worker_restarts"].get<int>(), 2);
  EXPECT_TRUE(j.contains("best"));
}

// The Kernel Tuner export of a spec kernel of integer parameters imports back as a recorded
// landscape named after the spec; one with words is refused with the reason.
TEST(SpecTune, KernelTunerExportOfASpecImportsBack) {
  test::TempDir dir;
  const std::string db = dir / "spec.db";
  auto r = test::run_mmtune({"tune", "--spec", kExamples + "/convolution.toml", "--size", "64,48,3",
                             "--device", "pthread", "--budget", "3", "--db", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string kernel = nlohmann::json::parse(r.out)["kernel"];
  r = test::run_mmtune({"export", "--db", db, "--format", "kerneltuner", "--kernel", kernel,
                        "--device", "pthread", "--m", "64", "--n", "48", "--k", "3", "-o",
                        dir / "kt.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir / "kt.json");
  const auto kt = nlohmann::json::parse(in);
  EXPECT_EQ(kt["kernel_name"], "convolution");
  EXPECT_EQ(kt["problem_size"], nlohmann::json::array({64, 48, 3}));
  r = test::run_mmtune({"import", dir / "kt.json", "--db", dir / "back.db"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_mmtune({"simulate", "--db", dir / "back.db", "--kernel", "kt:convolution", "--m",
                        "64", "--n", "48", "--k", "3", "--strategy", "random", "--seeds", "2",
                        "--budget", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace mmtune
