// The drift reference's arithmetic (tune/drift.hpp); the session's use of it is in
// test_warm_start.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tune/drift.hpp"

namespace mmtune {
namespace {

KernelConfig tiled(int mwg) {
  TiledConfig c;
  c.MWG = mwg;
  return c;
}

TEST(Drift, TimesAreComparedInTheSpeedOfTheStart) {
  Drift d(/*every=*/3);
  EXPECT_FALSE(d.has_reference());
  EXPECT_TRUE(std::isinf(d.best_now_ms()));
  d.start(tiled(64), 10.0);
  EXPECT_EQ(d.factor(), 1.0);
  EXPECT_DOUBLE_EQ(d.best_now_ms(), 10.0);
  d.measured(9.0, true);
  EXPECT_DOUBLE_EQ(d.best_now_ms(), 9.0) << "the fastest seen, the reference's or a variant's";
  EXPECT_FALSE(d.retime_due());
  d.measured(1.0, false);
  EXPECT_DOUBLE_EQ(d.best_now_ms(), 9.0) << "only an Ok variant's time counts";
  d.measured(std::nullopt, false);
  EXPECT_TRUE(d.retime_due()) << "three measured since the start, failed ones too";

  // The machine now runs at half speed: the reference takes 20 ms.
  d.retimed(20.0);
  EXPECT_FALSE(d.retime_due());
  EXPECT_DOUBLE_EQ(d.factor(), 2.0);
  EXPECT_DOUBLE_EQ(d.normalized(18.0), 9.0);
  EXPECT_DOUBLE_EQ(d.best_now_ms(), 18.0);
  d.measured(16.0, true);  // 8 ms in the start's speed
  EXPECT_EQ(d.reference(), tiled(64)) << "a faster variant does not become the reference";
  d.retimed(5.0);  // the machine is idle again: faster than at the start
  EXPECT_DOUBLE_EQ(d.factor(), 0.5);
  EXPECT_DOUBLE_EQ(d.best_now_ms(), 4.0);
  d.reset();
  EXPECT_FALSE(d.has_reference());
  EXPECT_EQ(d.factor(), 1.0);
  d.start(tiled(32), 0.0);
  EXPECT_FALSE(d.has_reference()) << "a time of 0 is no origin";
}

// A machine that keeps its speed, runs that vary 2-4x as at 64^3 on a busy CPU: the factor stays
// within one re-timing's error of 1. (The reference used to move to each variant that beat it,
// chaining every change's error: tunes said the machine ran at 1 % and 2052 % of its speed.)
TEST(Drift, NoiseDoesNotAccumulateIntoTheFactor) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(1.0, 4.0);  // a run's time over its true time
  Drift d(/*every=*/2);
  d.start(tiled(64), 10.0 * noise(rng));
  double slowest = 1, fastest = 1;
  for (int i = 0; i < 2000; ++i) {
    const double true_ms = 5.0 + 10.0 * (i % 7);
    d.measured(true_ms * noise(rng), true);
    if (d.retime_due()) d.retimed(10.0 * noise(rng));
    slowest = std::max(slowest, d.factor()), fastest = std::min(fastest, d.factor());
  }
  EXPECT_LE(slowest, 4.0);
  EXPECT_GE(fastest, 0.25);
}

}  // namespace
}  // namespace mmtune
