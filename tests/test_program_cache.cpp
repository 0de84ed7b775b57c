// The on-disk program cache (program_cache.hpp): a later process reads binaries instead of
// compiling, and a tuner's worker writes only the programs it prepares again.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "opencl/program_cache.hpp"
#include "opencl/runner.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;

// Every program binary under `dir` with its last write time.
std::map<std::string, fs::file_time_type> binaries(const fs::path& dir) {
  std::map<std::string, fs::file_time_type> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".bin") {
      out[e.path().string()] = e.last_write_time();
    }
  }
  return out;
}

GemmProblem small() {
  GemmProblem p;
  p.m = p.n = p.k = 64;
  return p;
}

TEST(ProgramCache, AWorkerKeepsWhatItEvaluatesAgainAndALaterProcessReadsIt) {
  const Device& dev = test::pocl_device("pthread");
  const KernelSources sources;
  test::TempDir dir;
  const fs::path programs = dir / "programs";
  const KernelConfig tiled = TiledConfig{};  // packed: its program and copy.cl's
  {
    // As the tuner's worker does: prepare (its build phase), then evaluate.
    Runner worker(dev, sources, programs.string(), BinaryWrites::kOnKeep);
    worker.set_problem(small());
    ASSERT_TRUE(worker.prepare(tiled).ok);
    ASSERT_EQ(worker.evaluate(tiled).status, Status::kOk);
    EXPECT_TRUE(binaries(programs).empty()) << "evaluated once: nothing written";
    ASSERT_TRUE(worker.prepare(tiled).ok);
    EXPECT_EQ(binaries(programs).size(), 2u) << "prepared again: both programs kept";
    ASSERT_EQ(worker.evaluate(tiled).status, Status::kOk);
    EXPECT_EQ(worker.cache().disk_hits(), 0u);
    // Another problem builds other programs: the configuration's first prepare there is a first.
    GemmProblem fp64 = small();
    fp64.precision = Precision::kDouble;
    worker.set_problem(fp64);
    ASSERT_TRUE(worker.prepare(tiled).ok);
    EXPECT_EQ(binaries(programs).size(), 2u) << "prepared once for fp64: nothing more written";
  }
  const auto kept = binaries(programs);

  Runner later(dev, sources, programs.string());
  later.set_problem(small());
  ASSERT_EQ(later.evaluate(tiled).status, Status::kOk);
  EXPECT_EQ(later.cache().disk_hits(), 2u) << "both programs read from disk";
  auto now = binaries(programs);  // with the calibration's program, written at build
  for (const auto& [file, written] : kept) EXPECT_EQ(now[file], written) << file;
  // Writing at build time (the library's and `mmtune run`'s cache) keeps a new program at once.
  ASSERT_EQ(later.evaluate(DirectConfig{}).status, Status::kOk);
  EXPECT_EQ(binaries(programs).size(), now.size() + 1);
}

// A cache directory that cannot be looked into (here a symbolic-link loop; also a directory
// without permission) is a miss, not an exception escaping a library call.
TEST(ProgramCache, AnUnreadableDirectoryBuildsFromSource) {
  const Device& dev = test::pocl_device("pthread");
  test::TempDir dir;
  fs::create_directory_symlink(dir / "loop", dir / "loop");
  const cl::Context context(dev.device);
  ProgramCache cache(context, dev.device, dev.info.key,
                     (fs::path(dir / "loop") / "programs").string());
  const auto built = cache.build("kernel void one(global float* x) { x[0] = 1.0f; }", "");
  EXPECT_TRUE(built->ok) << built->log;
  EXPECT_EQ(cache.builds(), 1u);
}

}  // namespace
}  // namespace mmtune
