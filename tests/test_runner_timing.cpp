// How the runner times a variant's first run, which includes one-time work of the
// implementation (PoCL compiles the kernel for its work-group size at the first launch).
#include <gtest/gtest.h>

#include <chrono>

#include "opencl/runner.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

// A first run that already decides the outcome (early stop) is a sample of its commands' time,
// not of its wall time: the lazy compilation is first_run_extra_seconds, counted once. Measured
// from outside, the two together are at most the run's wall time.
TEST(RunnerTiming, AnEarlyStoppedFirstRunIsTimedByItsCommands) {
  const KernelSources sources;
  test::TempDir dir;
  Runner runner(test::pocl_device("pthread"), sources, dir / "programs");
  GemmProblem p;
  p.m = p.n = p.k = 64;
  runner.set_problem(p);
  ASSERT_TRUE(runner.calibration().events.usable) << runner.calibration().events.reason;
  TimingOptions timing;
  timing.early_stop_ms = 1e-9;  // any run is "clearly slower than the best"
  const TiledConfig config;
  ASSERT_TRUE(runner.prepare(config).ok);  // the build is not part of the run's wall time
  const auto t0 = std::chrono::steady_clock::now();
  double first_wall_ms = 0.0;
  const Measurement m = runner.evaluate(config, timing, [&] {
    if (first_wall_ms == 0.0) {
      first_wall_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
  });
  ASSERT_EQ(m.status, Status::kSlowerEarlyStop) << m.message;
  ASSERT_EQ(m.routine_ms.size(), 1u);
  EXPECT_GE(m.median_ms, m.kernel_median_ms);  // every command, the main kernel among them
  EXPECT_LE(m.median_ms + m.first_run_extra_seconds * 1e3, first_wall_ms + 0.25)
      << "the first run's lazy compilation counted twice (routine " << m.median_ms << " ms, extra "
      << m.first_run_extra_seconds * 1e3 << " ms, wall " << first_wall_ms << " ms)";
}

}  // namespace
}  // namespace mmtune
