// The confirmation on PoCL: the finalists measured again side by side, the best their fastest
// median round, a close call measured again head to head, the stored best always a finalist.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mmtune/lookup.hpp"
#include "store/store.hpp"
#include "test_support.hpp"
#include "tune/finalists.hpp"
#include "tune/tuner.hpp"
#include "tuner_fixture.hpp"

namespace mmtune {
namespace {

using namespace tuner_test;

// A small exhaustive tune whose three fastest finalists are confirmed in three rounds.
TuneRequest confirming_request() {
  TuneRequest r = small_request("exhaustive");
  r.finalists = 3;
  r.confirm_rounds = 3;
  return r;
}

// After the search, the fastest configurations are measured again side by side; each kernel's
// best becomes the finalist whose median round is fastest, whatever its first measurement was.
TEST(Tuner, ConfirmationMakesTheFinalistWithTheFastestMedianRoundTheBest) {
  test::TempDir dir;
  Store store(dir / "tuning.db");
  const Device& dev = test::pocl_device("pthread");
  TuneRequest req = confirming_request();
  req.head_to_head_rounds = 0;  // a close call's head to head: the next test
  const TuneSummary s = tune(dev, store, req, environment(dir), {}, kNoStop);
  ASSERT_EQ(s.confirm_rounds, 3u);
  EXPECT_EQ(s.head_to_head_rounds, 0u);

  // The session's measurements, oldest first: the finalists are the three fastest Ok
  // configurations before the confirmation and the defaults a user already has (the kernel's
  // own and the library's for the device), each measured three more times.
  std::map<std::string, std::vector<MeasurementRecord>> by_config;
  for (auto& r : store.measurements(dev.info.key, req.problem)) {
    ASSERT_EQ(r.session_id, s.session_id);
    by_config[r.config].push_back(r);
  }
  // Each searched configuration's first measurement (three measurements: a default that was
  // not searched, only confirmed).
  std::vector<MeasurementRecord> ok;
  for (const auto& [config, rs] : by_config) {
    if (rs[0].result.status == Status::kOk && rs.size() != 3) ok.push_back(rs[0]);
  }
  std::sort(ok.begin(), ok.end(),
            [](const auto& x, const auto& y) { return x.result.median_ms < y.result.median_ms; });
  ASSERT_GE(ok.size(), 3u);
  std::set<std::string> finalists;
  for (std::size_t i = 0; i < 3; ++i) finalists.insert(ok[i].config);
  // The defaults too, unless measured far behind the fastest (finalists.hpp).
  for (const auto& d :
       {KernelConfig(TiledConfig{}), default_parameters(dev.info, req.problem).config}) {
    const MeasurementRecord& first = by_config.at(to_string(d)).front();
    if (first.result.median_ms <= kFarBehind * ok[0].result.median_ms) {
      finalists.insert(to_string(d));
    }
  }
  EXPECT_EQ(s.confirm_evaluations, 3 * finalists.size());
  // The library's default is measured first (the warm start); the kernel's own only here.
  EXPECT_EQ(s.evaluations, small_space().size() + 1 + 3 * finalists.size());
  std::optional<MeasurementRecord> expected;
  std::size_t confirmed = 0;
  for (const auto& config : finalists) {
    auto rounds = by_config.at(config);
    ASSERT_GE(rounds.size(), 3u) << config;
    rounds.erase(rounds.begin(), rounds.end() - 3);  // its search measurement, if any
    bool all_ok = true;
    for (const auto& r : rounds) {
      all_ok = all_ok && r.result.status == Status::kOk;
      // Or a figure above the device's peak as measured then (a busy machine can hold the
      // peak's runs back): not trusted, so the finalist is not confirmed.
      EXPECT_TRUE(r.result.status == Status::kOk || r.result.status == Status::kMeasurementError)
          << config << ": " << r.result.message;
    }
    if (!all_ok) continue;
    ++confirmed;
    std::sort(rounds.begin(), rounds.end(),
              [](const auto& x, const auto& y) { return x.result.median_ms < y.result.median_ms; });
    if (!expected || rounds[1].result.median_ms < expected->result.median_ms) {
      expected = rounds[1];
    }
  }
  EXPECT_EQ(s.confirmed, confirmed);
  for (const auto& r : ok) {
    if (!finalists.count(r.config)) {
      EXPECT_EQ(by_config.at(r.config).size(), 1u);
    }
  }
  const auto best = store.best(dev.info.key, req.problem, "tiled");
  ASSERT_TRUE(best && s.best);
  ASSERT_TRUE(expected) << "no finalist was confirmed";
  EXPECT_EQ(best->measurement_id, expected->id);
  EXPECT_EQ(best->config, expected->config);
  EXPECT_DOUBLE_EQ(best->median_ms, expected->result.median_ms);
  EXPECT_EQ(s.best->id, expected->id) << "the summary shows the stored best";

  // A default whose last round was not trusted (above) is measured again by a repeat.
  for (const auto& d :
       {KernelConfig(TiledConfig{}), default_parameters(dev.info, req.problem).config}) {
    if (by_config.at(to_string(d)).back().result.status != Status::kOk) {
      GTEST_SKIP() << to_string(d) << ": its last round was not trusted";
    }
  }
  // A repeat measures nothing new, so it has nothing to confirm and keeps that best.
  const TuneSummary again = tune(dev, store, req, environment(dir), {}, kNoStop);
  EXPECT_EQ(again.evaluations, 0u);
  EXPECT_EQ(again.confirm_rounds, 0u);
  EXPECT_EQ(store.best(dev.info.key, req.problem, "tiled")->measurement_id, expected->id);
}

// A close call between a kernel's two fastest finalists (here every pair is one: a margin of
// 1000 %) is measured again head to head, the two in turn; the faster median round over all
// their rounds is the best.
TEST(Tuner, ACloseCallIsMeasuredAgainHeadToHeadAndDecidedByAllItsRounds) {
  test::TempDir dir;
  Store store(dir / "tuning.db");
  const Device& dev = test::pocl_device("pthread");
  TuneRequest req = confirming_request();
  req.close_call = 10.0;
  req.head_to_head_rounds = 4;
  const TuneSummary s = tune(dev, store, req, environment(dir), {}, kNoStop);
  ASSERT_EQ(s.confirm_rounds, 3u);
  EXPECT_EQ(s.close_calls, 1u) << "one kernel";
  ASSERT_EQ(s.head_to_head_rounds, 4u);
  EXPECT_EQ(s.confirm_evaluations, 3 * s.confirmed + 8) << "three rounds of them all, then 4 x 2";

  auto all = store.measurements(dev.info.key, req.problem);
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
  ASSERT_GE(all.size(), 8u);
  const std::vector<MeasurementRecord> h2h(all.end() - 8, all.end());
  // The runner-up first in the first round, then in turn.
  const std::string next = h2h[0].config, lead = h2h[1].config;
  ASSERT_NE(lead, next);
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(h2h[2 * r].config, r % 2 == 0 ? next : lead) << "round " << r;
    EXPECT_EQ(h2h[2 * r + 1].config, r % 2 == 0 ? lead : next) << "round " << r;
  }
  // Each one's seven rounds: the confirmation's three, then the head to head's four.
  const auto rounds_of = [&](const std::string& config) {
    std::vector<double> ms;
    std::vector<std::int64_t> ids;
    for (const auto& r : all) {
      if (r.config != config) continue;
      ms.push_back(r.result.median_ms);
      ids.push_back(r.id);
      EXPECT_EQ(r.result.status, Status::kOk) << config;
    }
    ms.erase(ms.begin(), ms.end() - 7);
    ids.erase(ids.begin(), ids.end() - 7);
    return std::pair{ms, ids};
  };
  const auto [lead_ms, lead_ids] = rounds_of(lead);
  const auto [next_ms, next_ids] = rounds_of(next);
  ASSERT_EQ(lead_ms.size(), 7u);
  ASSERT_EQ(next_ms.size(), 7u);
  const auto median_of = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  EXPECT_LE(median_of({lead_ms.begin(), lead_ms.begin() + 3}),
            median_of({next_ms.begin(), next_ms.begin() + 3}))
      << "the leader after the confirmation's rounds";
  const bool next_wins = median_of(next_ms) < median_of(lead_ms);
  const auto& [win_ms, win_ids] =
      next_wins ? std::pair{next_ms, next_ids} : std::pair{lead_ms, lead_ids};
  const double mid = median_of(win_ms);
  const auto best = store.best(dev.info.key, req.problem, "tiled");
  ASSERT_TRUE(best && s.best);
  EXPECT_EQ(best->config, next_wins ? next : lead);
  EXPECT_DOUBLE_EQ(best->median_ms, mid) << "its median round of seven";
  EXPECT_EQ(best->measurement_id,
            win_ids[std::size_t(std::find(win_ms.begin(), win_ms.end(), mid) - win_ms.begin())]);
  EXPECT_EQ(s.best->id, best->measurement_id);
}

// The stored best takes part in the confirmation even when it is not among the fastest
// measurements (e.g. one confirmed earlier, or timed another way), so that a stale best cannot
// stay the best without facing the finalists.
TEST(Tuner, TheStoredBestIsAlwaysAFinalist) {
  test::TempDir dir;
  const std::string db = dir / "tuning.db";
  Store store(db);
  const Device& dev = test::pocl_device("pthread");
  store.upsert_device(dev.info);
  TuneRequest req = small_request("exhaustive");
  const auto space = small_space();
  req.candidates = std::vector<KernelConfig>(space.begin() + 3, space.end());
  req.budget = req.candidates->size();
  req.finalists = 2;
  req.confirm_rounds = 1;
  req.head_to_head_rounds = 0;
  // Three earlier (fake) measurements outside this search, faster than any real run: the two
  // fastest, and a slower one made the best, which the search's real measurements do not
  // displace.
  std::vector<MeasurementRecord> fake(3);
  for (std::size_t i = 0; i < fake.size(); ++i) {
    MeasurementRecord& r = fake[i];
    r.device_key = dev.info.key;
    r.kernel = "tiled";
    r.config = to_string(space[i]);
    r.problem = req.problem;
    r.result.routine_ms = r.result.kernel_ms = {i == 2 ? 1e-5 : 1e-6 * double(i + 1)};
    r.result.median_ms = r.result.min_ms = r.result.max_ms = r.result.routine_ms[0];
    r.result.kernel_median_ms = r.result.median_ms;
    r.id = store.add_measurement(r);
  }
  store.set_best(fake[2]);
  const TuneSummary s = tune(dev, store, req, environment(dir), {}, kNoStop);
  ASSERT_EQ(s.confirm_rounds, 1u);
  // The two fastest, the stored best and the library's default (outside these candidates: not
  // measured before); not the kernel's own, measured at the start far behind those fake times
  // (finalists.hpp, kFarBehind).
  EXPECT_EQ(s.confirm_evaluations, 4u);
  EXPECT_EQ(test::stored_measurements(db, "tiled", to_string(TiledConfig{})), 1);
  for (const auto& r : fake) EXPECT_EQ(test::stored_measurements(db, "tiled", r.config), 2);
  const auto best = store.best(dev.info.key, req.problem, "tiled");
  ASSERT_TRUE(best);
  EXPECT_GT(best->median_ms, 1e-5) << "a confirmed best is a real measurement of the round";
}

// A summary compares each default by its stored run of median time, not by its first: a resume
// that measures nothing again printed another speed-up than the tune it resumed, from a first
// run taken at start-up (here a slow one, as on a busy machine, moved first).
TEST(Tuner, TheDefaultsAreComparedByTheirMedianStoredRun) {
  test::TempDir dir;
  Store store(dir / "tuning.db");
  const Device& dev = test::pocl_device("pthread");
  TuneRequest req = small_request("exhaustive");
  req.candidates->push_back(TiledConfig{});
  req.budget = req.candidates->size();
  const TuneSummary first = tune(dev, store, req, environment(dir), {}, kNoStop);
  ASSERT_TRUE(first.default_tiled);
  const double ms = first.default_tiled->result.median_ms;
  const GemmProblem& p = req.problem;
  store_measurement(store, dev.info.key, TiledConfig{}, p, p.flops() / (100 * ms * 1e6));
  store.db().exec("UPDATE measurements SET id = -1 WHERE id = (SELECT MAX(id) FROM measurements)");
  // And two more, 2x and 3x as slow: the median (the second fastest of four), not the fastest
  // or the first, is compared.
  for (const double slower : {2.0, 3.0}) {
    store_measurement(store, dev.info.key, TiledConfig{}, p, p.flops() / (slower * ms * 1e6));
  }
  const TuneSummary again = tune(dev, store, req, environment(dir), {}, kNoStop);
  ASSERT_TRUE(again.default_tiled);
  EXPECT_EQ(again.evaluations, 0u);
  EXPECT_DOUBLE_EQ(again.default_tiled->result.median_ms, 2 * ms)
      << "its runs: 1x (its fastest), 2x, 3x and 100x (its first)";
}

}  // namespace
}  // namespace mmtune
