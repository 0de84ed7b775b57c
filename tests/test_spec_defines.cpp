// A spec's -D names that the device's own OpenCL C headers use: said once, naming them, instead
// of a BuildFailed per configuration full of the header's errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "family/spec.hpp"
#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "opencl/spec_runner.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

const std::string kExamples = MMTUNE_EXAMPLES_DIR "/kernels";

// The transpose example with one more parameter, `name` = [1, 2] (default 1), which its kernel
// does not read.
KernelSpec transpose_with(const test::TempDir& dir, const std::string& name) {
  std::ifstream in(kExamples + "/transpose.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& [table, line] :
       {std::pair<std::string, std::string>{"[parameters]\n", " = [1, 2]\n"},
        {"[default]  # the kernel's #ifndef defaults\n", " = 1\n"}}) {
    const std::size_t at = text.find(table);
    if (at == std::string::npos) throw std::runtime_error("transpose.toml has no " + table);
    text.insert(at + table.size(), name + line);
  }
  std::filesystem::copy_file(kExamples + "/transpose.cl", dir / "transpose.cl");
  std::ofstream(dir / "transpose.toml") << text;
  return parse_spec_file(dir / "transpose.toml");
}

// PoCL's opencl-c.h declares builtins with a parameter named `p`: -Dp=1 broke every
// configuration's build with 110 errors from the header.
TEST(SpecDefines, ANameTheDevicesHeadersUseIsRefusedNamingIt) {
  std::vector<Device> devices = list_devices();
  const Device& pthread = select_device(devices, "pthread", "");
  {
    test::TempDir dir;
    const KernelSpec fine = transpose_with(dir, "unused");
    EXPECT_NO_THROW(SpecRunner(pthread, fine, {64, 32}));
  }
  test::TempDir dir;
  const KernelSpec spec = transpose_with(dir, "p");
  try {
    SpecRunner runner(pthread, spec, {64, 32});
    ADD_FAILURE() << "every configuration would fail to build";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("parameter or define 'p' is a name"), std::string::npos) << what;
    EXPECT_EQ(what.find("'tile'"), std::string::npos) << what;      // the spec's other names
    EXPECT_NE(what.find("opencl-c.h"), std::string::npos) << what;  // the header's own line
  }
  // The command line: one line and the usage exit code, nothing tuned.
  const auto r = test::run_mmtune({"tune", "--spec", dir / "transpose.toml", "--size", "64,32",
                                   "--device", "pthread", "--db", dir / "t.db", "--budget", "4"});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("'p' is a name"), std::string::npos) << r.err;
  // PoCL's compiler had printed "110 errors generated." before it, once per failing build.
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
}

// The transpose example with each `from` in its text replaced by `to`.
std::string transpose_edited(const test::TempDir& dir,
                             const std::vector<std::pair<std::string, std::string>>& edits) {
  std::ifstream in(kExamples + "/transpose.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& [from, to] : edits) {
    const std::size_t at = text.find(from);
    if (at == std::string::npos) throw std::runtime_error("transpose.toml has no " + from);
    text.replace(at, from.size(), to);
  }
  std::filesystem::copy_file(kExamples + "/transpose.cl", dir / "transpose.cl",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "transpose.toml") << text;
  return dir / "transpose.toml";
}

// A misspelled kernel, or arguments the kernel does not take, failed every configuration's
// launch (a LaunchFailed row each, "no configuration ran Ok"): without a reference kernel or
// with a file for one, nothing had created the kernel before.
TEST(SpecDefines, AKernelTheSourcesDoNotDefineIsRefusedBeforeAnythingRuns) {
  const Device& pthread = test::pocl_device("pthread");
  const std::pair<std::string, std::string> no_reference = {
      "reference = \"kernel\"\nkernel = \"transpose_naive\"\nglobal = [\"width\", \"height\"]\n"
      "absolute = 0\nrelative = 0\n",
      "reference = \"none\"\n"};
  test::TempDir dir;
  const std::string misspelled =
      transpose_edited(dir, {no_reference, {"kernel = \"transpose\"", "kernel = \"transpos\""}});
  const KernelSpec spec = parse_spec_file(misspelled);
  try {
    SpecRunner runner(pthread, spec, {64, 32});
    ADD_FAILURE() << "every configuration would fail to launch";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("its sources define no kernel 'transpos' (they define: "),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("transpose_naive"), std::string::npos) << what;
  }
  const auto r = test::run_mmtune({"tune", "--spec", misspelled, "--size", "64,32", "--device",
                                   "pthread", "--db", dir / "t.db", "--budget", "4"});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "t.db") &&
               test::count_rows(dir / "t.db", "SELECT COUNT(*) FROM measurements") > 0);
  // One argument fewer than the kernel takes.
  test::TempDir other;
  const KernelSpec short_of_one = parse_spec_file(transpose_edited(
      other, {{"[[arguments]]\nname = \"in\"\ntype = \"float\"\nsize = \"width * height\"\n"
               "init = \"random\"\nseed = 3\n",
               ""}}));
  try {
    SpecRunner runner(pthread, short_of_one, {64, 32});
    ADD_FAILURE() << "every configuration would fail to launch";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'transpose' takes 2 arguments; the spec gives 1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mmtune
