#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "mmtune/error.hpp"
#include "opencl/kernel_source.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every kernel file the programs need, copied into `dir` for a test to edit.
void copy_kernels(const fs::path& dir) {
  for (const auto& name : required_kernel_files()) {
    fs::copy_file(fs::path(MMTUNE_KERNELS_DIR) / name, dir / name,
                  fs::copy_options::overwrite_existing);
  }
}

TEST(KernelSource, EmbeddedEqualsFilesOnDisk) {
  std::size_t on_disk = 0;
  for (const auto& entry : fs::directory_iterator(MMTUNE_KERNELS_DIR)) {
    if (entry.path().extension() == ".cl") ++on_disk;
  }
  ASSERT_EQ(embedded_kernels().size(), on_disk);
  for (const auto& k : embedded_kernels()) {
    EXPECT_EQ(k.text, read(fs::path(MMTUNE_KERNELS_DIR) / k.file)) << k.file;
  }
  for (const auto& name : required_kernel_files()) {
    EXPECT_FALSE(KernelSources().file(name).empty()) << name;
  }
}

TEST(KernelSource, DirectoryMustHoldEveryKernel) {
  const test::TempDir tmp;  // mkdtemp: no predictable names in /tmp
  const fs::path dir = tmp.path;
  fs::copy_file(fs::path(MMTUNE_KERNELS_DIR) / "common.cl", dir / "common.cl",
                fs::copy_options::overwrite_existing);
  try {
    KernelSources s(dir);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("copy.cl"), std::string::npos) << e.what();
  }
  EXPECT_THROW(KernelSources("/nonexistent/kernels"), UsageError);
}

TEST(KernelSource, EditedKernelsDirIsCompiledAndBuildErrorsAreReported) {
  const test::TempDir tmp;
  const fs::path dir = tmp.path;
  copy_kernels(dir);
  std::ofstream(dir / "gemm_classic.cl", std::ios::app) << "\nthis is not OpenCL C;\n";
  const auto r =
      test::run_mmtune({"--kernels-dir", dir.string(), "run", "--n", "16", "--kernel", "classic"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("BuildFailed"), std::string::npos) << r.out;
  // The untouched kernels of the same directory still work.
  const auto ok =
      test::run_mmtune({"--kernels-dir", dir.string(), "run", "--n", "16", "--kernel", "naive"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// A kernel file that compiles without its kernel function: every configuration was stored as
// LaunchFailed ("OpenCL call clCreateKernel failed with error -46") and the tune ended without a
// best.
TEST(KernelSource, AKernelFileWithoutItsKernelFunctionIsRefused) {
  const test::TempDir tmp;
  const fs::path dir = tmp.path;
  copy_kernels(dir);
  std::string direct = read(dir / "gemm_direct.cl");
  const auto at = direct.find("void gemm_direct(");
  ASSERT_NE(at, std::string::npos);
  direct.replace(at, 17, "void renamed_gemm(");
  std::ofstream(dir / "gemm_direct.cl", std::ios::trunc) << direct;
  const std::string db = tmp.path + "/edited.db";
  const auto r =
      test::run_mmtune({"-q", "--kernels-dir", dir.string(), "tune", "--device", "pthread", "--n",
                        "16", "--kernel", "direct", "--budget", "2", "--db", db});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the direct kernel (gemm_direct.cl) has no kernel function"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
  if (fs::exists(db)) {
    EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM measurements"), 0);
  }
}

// The fp32 peak that `devices` shows from the calibration cache, or 0.
double cached_peak(const std::string& cache) {
  const auto r = test::run_mmtune({"devices"}, {{"XDG_CACHE_HOME", cache}});
  const auto at = r.out.find("fp32 peak ");
  return at == std::string::npos ? 0.0 : std::stod(r.out.substr(at + 10));
}

TEST(KernelSource, AnEditedRooflineDoesNotMoveTheDevicesPeak) {
  // The calibration measures the device with roofline.cl: one edited to do 64 times less work
  // had stored a peak 64 times too high, and the check of figures against it was off for good.
  const test::TempDir tmp;
  const fs::path dir = fs::path(tmp.path) / "kernels";
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(MMTUNE_KERNELS_DIR)) {
    fs::copy_file(e.path(), dir / e.path().filename());
  }
  std::string roofline = read(dir / "roofline.cl");
  const std::string loop = "i < ITERATIONS;";
  ASSERT_NE(roofline.find(loop), std::string::npos);
  roofline.replace(roofline.find(loop), loop.size(), "i < ITERATIONS / 64;");
  std::ofstream(dir / "roofline.cl") << roofline;
  const auto tune = [&](const std::string& name, std::vector<std::string> before) {
    std::vector<std::string> args = {"tune",
                                     "--device",
                                     "pthread",
                                     "--n",
                                     "64",
                                     "--budget",
                                     "1",
                                     "--no-baselines",
                                     "--finalists",
                                     "0",
                                     "--no-drift",
                                     "--db",
                                     tmp / (name + ".db"),
                                     "-q"};
    args.insert(args.begin(), before.begin(), before.end());
    const auto r = test::run_mmtune(args, {{"XDG_CACHE_HOME", tmp / name}});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // The first calibration of a fresh cache is kept too (its directory did not exist yet).
    return cached_peak(tmp / name);
  };
  const double built_in = tune("built-in", {});
  const double edited = tune("edited", {"--kernels-dir", dir.string()});
  ASSERT_GT(built_in, 0);
  ASSERT_GT(edited, 0);
  // The same device, not 64 times apart: a neighbouring test's load may slow one calibration
  // by a few times.
  EXPECT_LT(edited / built_in, 10.0) << edited << " vs " << built_in;
  EXPECT_GT(edited / built_in, 1 / 10.0) << edited << " vs " << built_in;
}

TEST(KernelSource, ContentHashDiffers) {
  EXPECT_EQ(content_hash("abc"), content_hash("abc"));
  EXPECT_NE(content_hash("abc"), content_hash("abd"));
  EXPECT_EQ(content_hash("").size(), 16u);
}

}  // namespace
}  // namespace mmtune
