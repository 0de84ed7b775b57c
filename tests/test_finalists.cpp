// Which configurations the confirmation measures again (tune/finalists.hpp); the session's
// rounds are in test_tuner.cpp.
#include <gtest/gtest.h>

#include "tune/finalists.hpp"

namespace mmtune {
namespace {

KernelConfig tiled(int mwg) {
  TiledConfig c;
  c.MWG = mwg;
  return c;
}

void add(KnownMeasurements& known, const KernelConfig& c, double ms, Status status = Status::kOk,
         double slowdown = 1.0) {
  KnownMeasurement m;
  m.config = c;
  m.record.kernel = kernel_name(kind_of(c));
  m.record.config = to_string(c);
  m.record.result.status = status;
  m.record.result.median_ms = ms;
  m.record.result.routine_ms = {ms};
  m.slowdown = slowdown;
  known[{m.record.kernel, m.record.config}] = m;
}

// The defaults a user has face the best side by side unless they were measured more than
// kFarBehind times slower than the fastest: no drift or load makes up that gap, and confirming
// the direct kernel's default cost a 3-minute 4096^3 tune 25 s a round.
TEST(Finalists, DefaultsFarBehindTheFastestAreNotConfirmed) {
  KnownMeasurements known;
  add(known, tiled(16), 1.0);
  add(known, tiled(32), 1.2);
  const KernelConfig near = tiled(64), far = tiled(128), unmeasured = tiled(8);
  const KernelConfig early_stopped = DirectConfig{};
  add(known, near, 3.9);
  add(known, far, 4.1);
  add(known, early_stopped, 30.0, Status::kSlowerEarlyStop);
  const auto finalists = pick_finalists(known, {}, {near, far, unmeasured, early_stopped}, 1,
                                        FamilyRegistry::builtin());
  const auto names = [](const std::vector<KernelConfig>& v) {
    std::vector<std::string> out;
    for (const auto& c : v) out.push_back(to_string(c));
    return out;
  };
  EXPECT_EQ(names(finalists), names({tiled(16), near, unmeasured}));

  // Times compare in the speed of the search's start: measured while the machine ran at half
  // speed, 4.1 ms is 2.05 then.
  add(known, far, 4.1, Status::kOk, 2.0);
  EXPECT_EQ(names(pick_finalists(known, {}, {far}, 1, FamilyRegistry::builtin())),
            names({tiled(16), far}));
}

}  // namespace
}  // namespace mmtune
