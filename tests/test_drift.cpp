// The drift reference's arithmetic (tune/drift.hpp); the session's use of it is in test_tuner.cpp.
#include <gtest/gtest.h>

#include "tune/drift.hpp"

namespace mmtune {
namespace {

KernelConfig tiled(int mwg) {
  TiledConfig c;
  c.MWG = mwg;
  return c;
}

TEST(Drift, TimesAreComparedInTheSpeedOfTheStartAndChallengersArePaired) {
  Drift d(/*every=*/3, /*margin=*/0.05);
  EXPECT_FALSE(d.has_reference());
  EXPECT_FALSE(d.measured(1.0, true)) << "no reference: nothing challenges";
  d.start(tiled(64), 10.0);
  EXPECT_EQ(d.factor(), 1.0);
  EXPECT_FALSE(d.measured(9.8, true)) << "within the margin";
  EXPECT_TRUE(d.measured(9.0, true));
  EXPECT_FALSE(d.retime_due());
  EXPECT_FALSE(d.measured(std::nullopt, false)) << "a failed variant counts, challenges nothing";
  EXPECT_TRUE(d.retime_due()) << "three measured since the start";

  // The machine now runs at half speed: the reference takes 20 ms.
  d.retimed(20.0);
  EXPECT_FALSE(d.retime_due());
  EXPECT_DOUBLE_EQ(d.factor(), 2.0);
  EXPECT_DOUBLE_EQ(d.normalized(18.0), 9.0);
  EXPECT_DOUBLE_EQ(d.reference_now_ms(), 20.0);
  EXPECT_FALSE(d.measured(19.5, true)) << "slower than the reference in the same conditions";
  EXPECT_TRUE(d.measured(18.0, true));

  // Side by side the challenger loses: the reference stays, the factor follows the pair.
  EXPECT_FALSE(d.paired(tiled(32), 16.0, 17.0));
  EXPECT_EQ(d.reference(), tiled(64));
  EXPECT_DOUBLE_EQ(d.factor(), 1.6);
  // It wins: it becomes the reference, in the scale of the start.
  EXPECT_TRUE(d.paired(tiled(128), 16.0, 12.0));
  EXPECT_EQ(d.reference(), tiled(128));
  EXPECT_DOUBLE_EQ(d.reference_now_ms(), 12.0);
  d.retimed(6.0);  // the machine is idle again: faster than at the start
  EXPECT_DOUBLE_EQ(d.factor(), 0.8);
  EXPECT_DOUBLE_EQ(d.normalized(8.0), 10.0);
  EXPECT_FALSE(d.measured(7.0, false)) << "only an Ok variant challenges";

  // A challenger's batch time is the fastest of its batch, low by selection; timed again beside
  // the reference it is slower. Its base is that second time: a base of the lucky time read the
  // next re-timing as a slowdown, and each swap compounded it.
  Drift lucky(/*every=*/8, /*margin=*/0.03);
  lucky.start(tiled(64), 10.0);
  ASSERT_TRUE(lucky.measured(7.0, true));  // a lucky measurement of a 9.5 ms kernel
  EXPECT_TRUE(lucky.paired(tiled(128), 10.0, 9.5));
  lucky.retimed(9.5);  // the same machine, the same kernel
  EXPECT_DOUBLE_EQ(lucky.factor(), 1.0);
  d.reset();
  EXPECT_FALSE(d.has_reference());
  EXPECT_EQ(d.factor(), 1.0);
  d.start(tiled(32), 0.0);
  EXPECT_FALSE(d.has_reference()) << "a time of 0 is no origin";
}

}  // namespace
}  // namespace mmtune
