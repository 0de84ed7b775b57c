// The drift reference's arithmetic (tune/drift.hpp); the session's use of it is in
// test_warm_start.cpp.
#include <gtest/gtest.h>

#include <cmath>

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
  EXPECT_DOUBLE_EQ(d.reference_now_ms(), 5.0);
  d.reset();
  EXPECT_FALSE(d.has_reference());
  EXPECT_EQ(d.factor(), 1.0);
  d.start(tiled(32), 0.0);
  EXPECT_FALSE(d.has_reference()) << "a time of 0 is no origin";
}

}  // namespace
}  // namespace mmtune
