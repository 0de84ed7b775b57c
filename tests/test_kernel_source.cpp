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
  for (const auto& name : required_kernel_files()) {
    fs::copy_file(fs::path(MMTUNE_KERNELS_DIR) / name, dir / name,
                  fs::copy_options::overwrite_existing);
  }
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

TEST(KernelSource, ContentHashDiffers) {
  EXPECT_EQ(content_hash("abc"), content_hash("abc"));
  EXPECT_NE(content_hash("abc"), content_hash("abd"));
  EXPECT_EQ(content_hash("").size(), 16u);
}

}  // namespace
}  // namespace mmtune
