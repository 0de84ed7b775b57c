#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <set>

#include "mmtune/error.hpp"
#include "search/simulate.hpp"
#include "search/strategy.hpp"
#include "tune/replay.hpp"

namespace mmtune {
namespace {

// A recorded (or synthetic) tuning run: the space and the time of every point.
struct Table {
  SearchSpace space;
  std::vector<std::optional<double>> times;
};

double unit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

double log2i(int v) {
  return std::log2(static_cast<double>(v));
}

// ~300 points of four parameters: a smooth bowl with 2 % noise, a region that fails and a few
// scattered failures.
Table small_table() {
  std::vector<std::vector<int>> points;
  std::vector<std::optional<double>> times;
  std::mt19937_64 rng(42);
  for (int a : {1, 2, 4, 8, 16, 32}) {
    for (int b : {1, 2, 4, 8, 16, 32}) {
      if (a * b > 128) continue;
      for (int c : {0, 1}) {
        for (int d : {1, 2, 3, 4, 5}) {
          points.push_back({a, b, c, d});
          const double x = log2i(a) - 3, y = log2i(b) - 2;
          const double lt = 0.3 * x * x + 0.2 * y * y + 0.15 * (d - 4) * (d - 4) + 0.1 * c +
                            0.05 * x * (d - 4) + 0.02 * (2 * unit(rng) - 1);
          const bool fails = (a * b >= 64 && c == 1) || unit(rng) < 0.05;
          times.push_back(fails ? std::nullopt : std::optional(std::exp(lt)));
        }
      }
    }
  }
  return {SearchSpace({"A", "B", "C", "D"}, std::move(points)), std::move(times)};
}

// ~4700 points shaped like a GEMM tiling space: tile sizes, work-group shape, vector widths,
// staging; a product of per-parameter effects with interactions, 3 % noise, ~10 % failures
// (too many accumulators per work-item, and scattered ones).
Table gemm_table() {
  std::vector<std::vector<int>> points;
  std::vector<std::optional<double>> times;
  std::mt19937_64 rng(7);
  const std::vector<int> tiles = {16, 32, 64, 128}, dims = {4, 8, 16, 32}, widths = {1, 2, 4, 8};
  for (int mwg : tiles) {
    for (int nwg : tiles) {
      for (int kwg : {16, 32}) {
        for (int mdimc : dims) {
          for (int ndimc : dims) {
            for (int vwm : widths) {
              for (int vwn : widths) {
                for (int sa : {0, 1}) {
                  if (mwg % (mdimc * vwm) || nwg % (ndimc * vwn)) continue;
                  const int wg = mdimc * ndimc;
                  if (wg < 64 || wg > 256) continue;
                  points.push_back({mwg, nwg, kwg, mdimc, ndimc, vwm, vwn, sa});
                  const int mwi = mwg / mdimc, nwi = nwg / ndimc;
                  const double acc = log2i(mwi * nwi) - 5, g = log2i(wg) - 7;
                  const double vm = log2i(vwm) - 2, vn = log2i(vwn) - 1.5;
                  const double aspect = log2i(mwg) - log2i(nwg);
                  double lt = 0.12 * acc * acc + 0.1 * g * g + 0.08 * vm * vm + 0.05 * vn * vn +
                              0.06 * aspect * aspect;
                  lt += sa ? 0.05 - 0.08 * (log2i(mwg) - 4) : 0.0;  // staging pays on big tiles
                  lt += kwg == 32 ? (sa ? -0.1 : -0.05) : 0.0;
                  lt += 0.03 * (2 * unit(rng) - 1);
                  const bool fails = mwi * nwi > 128 || unit(rng) < 0.06;
                  times.push_back(fails ? std::nullopt : std::optional(1e-3 * std::exp(lt)));
                }
              }
            }
          }
        }
      }
    }
  }
  return {
      SearchSpace({"MWG", "NWG", "KWG", "MDIMC", "NDIMC", "VWM", "VWN", "SA"}, std::move(points)),
      std::move(times)};
}

std::size_t best_index(const Table& t) {
  std::size_t best = t.times.size();
  for (std::size_t i = 0; i < t.times.size(); ++i) {
    if (t.times[i] && (best == t.times.size() || *t.times[i] < *t.times[best])) best = i;
  }
  return best;
}

// Asks in batches of 1..4 and tells the table's outcome, until the budget is spent or the
// strategy has nothing left; returns every proposal in order.
std::vector<std::size_t> run(const std::string& name, const Table& t, std::uint64_t seed,
                             std::size_t budget) {
  auto s = make_strategy(name, t.space, {seed, budget});
  std::vector<std::size_t> seen;
  for (std::size_t step = 0; seen.size() < budget; ++step) {
    const auto picks = s->ask(std::min<std::size_t>(1 + step % 4, budget - seen.size()));
    if (picks.empty()) break;
    std::vector<Observation> told;
    for (const auto i : picks) told.push_back({i, t.times.at(i)});
    s->tell(told);
    seen.insert(seen.end(), picks.begin(), picks.end());
  }
  return seen;
}

// ---- registry -------------------------------------------------------------------------------

TEST(StrategyRegistry, ListsEveryStrategyAndTheDefault) {
  const auto& names = strategy_names();
  for (const char* n : {"exhaustive", "random", "annealing", "genetic", "model"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
  EXPECT_STREQ(default_strategy(), "model");
}

TEST(StrategyRegistry, UnknownNameIsAUsageError) {
  const SearchSpace s({"X"}, {{1}, {2}});
  try {
    make_strategy("simplex", s, {});
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("simplex"), std::string::npos) << what;
    EXPECT_NE(what.find("annealing"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(e.exit_code(), kExitUsage);
  }
}

// ---- every strategy -------------------------------------------------------------------------

class EachStrategy : public ::testing::TestWithParam<std::string> {};

TEST_P(EachStrategy, IsDeterministicForASeed) {
  const auto t = small_table();
  const auto a = run(GetParam(), t, 7, 120);
  EXPECT_EQ(a, run(GetParam(), t, 7, 120));
  if (GetParam() != "exhaustive") {
    EXPECT_NE(a, run(GetParam(), t, 8, 120));
  }
}

TEST_P(EachStrategy, ProposesEveryPointOnceThenNothing) {
  const auto t = small_table();
  for (std::uint64_t seed : {1, 2, 3}) {
    auto s = make_strategy(GetParam(), t.space, {seed, t.space.size()});
    std::vector<std::size_t> seen;
    for (std::size_t step = 0; step < 2 * t.space.size(); ++step) {
      const auto picks = s->ask(1 + step % 4);
      if (picks.empty()) break;
      std::vector<Observation> told;
      for (const auto i : picks) told.push_back({i, t.times.at(i)});
      s->tell(told);
      seen.insert(seen.end(), picks.begin(), picks.end());
    }
    EXPECT_EQ(seen.size(), t.space.size()) << "seed " << seed;
    EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), t.space.size());
    EXPECT_TRUE(s->ask(4).empty());
  }
}

TEST_P(EachStrategy, NeverRepeatsWhileResultsArePending) {
  const auto t = small_table();
  auto s = make_strategy(GetParam(), t.space, {5, 200});
  std::set<std::size_t> seen;
  std::vector<std::size_t> pending;
  for (int round = 0; round < 100; ++round) {
    // Three batches in flight at once; results come back late, newest first.
    for (int b = 0; b < 3; ++b) {
      for (const auto i : s->ask(3)) {
        EXPECT_TRUE(seen.insert(i).second) << "repeated " << i;
        pending.push_back(i);
      }
    }
    if (pending.empty()) break;
    std::vector<Observation> told;
    for (auto it = pending.rbegin(); it != pending.rend(); ++it)
      told.push_back({*it, t.times[*it]});
    pending.clear();
    s->tell(told);
  }
  EXPECT_EQ(seen.size(), t.space.size());
}

// Seeds (a warm start's measurements) are known: no strategy proposes them, all others once.
TEST_P(EachStrategy, NeverProposesSeededPoints) {
  const auto t = small_table();
  auto s = make_strategy(GetParam(), t.space, {3, t.space.size()});
  std::vector<Observation> seeds;
  for (std::size_t i = 0; i < t.space.size(); i += 3) seeds.push_back({i, t.times[i]});
  s->seed(seeds);
  std::set<std::size_t> seen;
  for (auto picks = s->ask(5); !picks.empty(); picks = s->ask(5)) {
    std::vector<Observation> told;
    for (const auto i : picks) {
      EXPECT_NE(i % 3, 0u) << "proposed seed " << i;
      EXPECT_TRUE(seen.insert(i).second) << "repeated " << i;
      told.push_back({i, t.times[i]});
    }
    s->tell(told);
  }
  EXPECT_EQ(seen.size(), t.space.size() - seeds.size());
}

TEST_P(EachStrategy, HandlesAnEmptySpace) {
  const SearchSpace empty({"X"}, {});
  auto s = make_strategy(GetParam(), empty, {1, 10});
  EXPECT_TRUE(s->ask(4).empty());
}

TEST_P(EachStrategy, FindsTheOptimumOfASmallSpace) {
  const auto t = small_table();
  const std::size_t best = best_index(t);
  // Blind strategies need the whole space to be sure; guided ones must do with less.
  const bool blind = GetParam() == "exhaustive" || GetParam() == "random";
  const std::size_t budget = blind ? t.space.size() : t.space.size() * 2 / 5;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto seen = run(GetParam(), t, seed, budget);
    EXPECT_NE(std::find(seen.begin(), seen.end(), best), seen.end())
        << "seed " << seed << ", budget " << budget;
  }
}

INSTANTIATE_TEST_SUITE_P(Strategy, EachStrategy, ::testing::ValuesIn(strategy_names()),
                         [](const auto& p) { return p.param; });

// ---- replay ---------------------------------------------------------------------------------

TEST(Simulation, CountsEvaluationsUntilTheTarget) {
  const SearchSpace s({"X"}, {{1}, {2}, {3}, {4}, {5}});
  const std::vector<std::optional<double>> times = {5.0, std::nullopt, 1.04, 3.0, 1.0};
  auto r = simulate(s, times, "exhaustive", {.budget = 0, .seeds = 3});
  EXPECT_EQ(r.best_time, 1.0);
  EXPECT_EQ(r.budget, 5u);
  ASSERT_EQ(r.runs.size(), 3u);
  for (const auto& run : r.runs) EXPECT_EQ(run.evaluations, std::optional<std::size_t>(3));
  EXPECT_EQ(r.runs[2].seed, 3u);
  EXPECT_EQ(r.reached, 3u);
  EXPECT_EQ(r.median, 3.0);

  r = simulate(s, times, "exhaustive", {.budget = 2, .seeds = 2, .batch = 4});
  EXPECT_EQ(r.reached, 0u);
  EXPECT_FALSE(r.runs[0].evaluations);
  EXPECT_EQ(r.median, 3.0);  // "not reached" counts as budget + 1

  r = simulate(s, times, "exhaustive", {.budget = 5, .seeds = 1, .tolerance = 0.01});
  EXPECT_EQ(r.runs[0].evaluations, std::optional<std::size_t>(5));
}

TEST(Simulation, RejectsBadTables) {
  const SearchSpace s({"X"}, {{1}, {2}});
  EXPECT_THROW(simulate(s, {1.0}, "random", {}), UsageError);
  EXPECT_THROW(simulate(s, {std::nullopt, std::nullopt}, "random", {}), UsageError);
  EXPECT_THROW(simulate(s, {1.0, 2.0}, "simplex", {}), UsageError);
}

// A replay must tell a strategy what a tuning run told it: the one-run time of a variant stopped
// early as clearly slower is a time, not a failure.
TEST(Replay, TableKeepsTheTimesATuningRunToldItsStrategy) {
  const auto record = [](const KernelConfig& c, Status status, std::vector<double> samples) {
    MeasurementRecord r;
    r.kernel = "tiled";
    r.config = to_string(c);
    r.result.status = status;
    r.result.routine_ms = samples;
    r.result.median_ms = samples.empty() ? 0.0 : samples[samples.size() / 2];
    return r;
  };
  TiledConfig a, b, c, d;
  b.MWG = 32;
  c.NWG = 32;
  d.KWG = 32;
  const std::vector<MeasurementRecord> records = {
      record(a, Status::kOk, {2.0, 2.0, 2.0}),
      record(a, Status::kOk, {1.5, 1.5, 1.5}),  // measured again, faster: the fastest is kept
      record(a, Status::kTimeout, {}),          // a later failure does not erase a time
      record(b, Status::kSlowerEarlyStop, {9.0}),
      record(c, Status::kTimeout, {}),
      record(d, Status::kWrongResult, {3.0}),
  };
  const auto t = replay_table(KernelKind::kTiled, records);
  ASSERT_EQ(t.space.size(), 4u);
  const auto time_of = [&](const TiledConfig& x) {
    const auto i = t.space.find(parameter_values(x));
    EXPECT_TRUE(i.has_value());
    return i ? t.times[*i] : std::nullopt;
  };
  EXPECT_EQ(time_of(a), std::optional(1.5));
  EXPECT_EQ(time_of(b), std::optional(9.0));
  EXPECT_FALSE(time_of(c));
  EXPECT_FALSE(time_of(d));

  auto direct = record(DirectConfig{}, Status::kOk, {1.0});
  direct.kernel = "direct";
  EXPECT_THROW(replay_table(KernelKind::kTiled, {direct}), UsageError);
  auto broken = record(a, Status::kOk, {1.0});
  broken.config = "MWG=64";
  EXPECT_THROW(replay_table(KernelKind::kTiled, {broken}), UsageError);
}

TEST(Simulation, ModelNeedsFarFewerEvaluationsThanRandom) {
  const auto t = gemm_table();
  SimulationOptions o;
  o.budget = 1000;
  o.seeds = 20;
  const auto random = simulate(t.space, t.times, "random", o);
  const auto model = simulate(t.space, t.times, "model", o);
  for (const auto* r : {&random, &model}) {
    std::cout << "[ replay   ] " << r->strategy << ": median " << r->median << " evaluations, "
              << r->reached << "/" << r->runs.size() << " runs reached the best +5 % within "
              << r->budget << " (" << t.space.size() << " points)\n";
  }
  EXPECT_LE(model.median * 2, random.median);
  EXPECT_EQ(model.reached, model.runs.size());
}

// A parameter that takes one value (CLBlast's pinned ones in a recorded landscape) tells the model
// nothing: with one added, the model proposes exactly what it did without it.
TEST(Simulation, ModelIgnoresParametersOfOneValue) {
  const auto t = gemm_table();
  std::vector<std::string> names = t.space.names();
  names.push_back("PINNED");
  std::vector<std::vector<int>> points;
  for (std::size_t i = 0; i < t.space.size(); ++i) {
    points.emplace_back(t.space.point(i).begin(), t.space.point(i).end());
    points.back().push_back(7);
  }
  const SearchSpace pinned(names, std::move(points));
  SimulationOptions o;
  o.budget = 200;
  o.seeds = 4;
  o.checkpoints = {25, 50, 100, 200};
  const auto plain = simulate(t.space, t.times, "model", o);
  const auto with = simulate(pinned, t.times, "model", o);
  EXPECT_EQ(with.mean_fraction, plain.mean_fraction);
  ASSERT_EQ(with.runs.size(), plain.runs.size());
  for (std::size_t i = 0; i < plain.runs.size(); ++i) {
    EXPECT_EQ(with.runs[i].evaluations, plain.runs[i].evaluations) << "seed " << i;
  }
}

}  // namespace
}  // namespace mmtune

namespace mmtune {
namespace {

// The proposals of a strategy over the whole small table, told the table's times.
std::vector<std::size_t> proposals(const std::string& name, const StrategyOptions& options) {
  const Table t = small_table();
  const auto s = make_strategy(name, t.space, options);
  std::vector<std::size_t> out;
  for (auto picks = s->ask(3); !picks.empty() && out.size() < 120; picks = s->ask(3)) {
    std::vector<Observation> told;
    for (auto i : picks) told.push_back({i, t.times[i]});
    s->tell(told);
    out.insert(out.end(), picks.begin(), picks.end());
  }
  return out;
}

TEST(StrategyOptions, DefaultsAreTheStrategyAndEachOptionChangesIt) {
  // Changed values that every search below reaches within 120 proposals.
  const std::map<std::string, std::map<std::string, double>> changed = {
      {"annealing", {{"start_temperature", 2.0}, {"end_temperature", 1.0}}},
      {"genetic", {{"tournament", 1}, {"mutation", 1.0}, {"population", 8}}},
      {"model",
       {{"trees", 2},
        {"initial_fraction", 0.5},
        {"random_fraction", 0.9},
        {"kappa", 50},
        {"products", 1}}},
  };
  const std::string help = describe_strategy_options();
  for (const auto& name : strategy_names()) {
    EXPECT_NE(help.find(name + ": "), std::string::npos) << help;
    const std::size_t budget = 100;
    const auto plain = proposals(name, {7, budget, {}});
    const auto it = changed.find(name);
    if (it == changed.end()) {  // exhaustive and random have no options
      EXPECT_THROW(proposals(name, {7, budget, {{"horizon", 5}}}), UsageError) << name;
      continue;
    }
    for (const auto& [option, value] : it->second) {
      EXPECT_NE(help.find("  " + option + "="), std::string::npos) << option;
      // Its default given explicitly is the strategy as it is; another value changes it.
      const auto def = help.find("  " + option + "=", help.find(name + ": "));
      const double dflt = std::stod(help.substr(help.find('=', def) + 1));
      EXPECT_EQ(proposals(name, {7, budget, {{option, dflt}}}), plain) << name << " " << option;
      EXPECT_NE(proposals(name, {7, budget, {{option, value}}}), plain) << name << " " << option;
    }
  }
}

TEST(StrategyOptions, UnknownOrOutOfRangeSettingsAreUsageErrors) {
  const Table t = small_table();
  try {
    make_strategy("annealing", t.space, {1, 0, {{"temperature", 1}}});
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("start_temperature"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_strategy("genetic", t.space, {1, 0, {{"mutation", 1.5}}}), UsageError);
  EXPECT_THROW(check_strategy_settings("model", {{"trees", 0}}), UsageError);
  std::map<std::string, double> settings;
  parse_strategy_setting("kappa=0.5", settings);
  EXPECT_EQ(settings.at("kappa"), 0.5);
  for (const char* bad : {"kappa", "=1", "kappa=", "kappa=x", "kappa=1x", "kappa=nan",
                          "kappa=1e400", "kappa=1e-400"}) {
    EXPECT_THROW(parse_strategy_setting(bad, settings), UsageError) << bad;
  }
}

}  // namespace
}  // namespace mmtune

namespace mmtune {
namespace {

// The curve: after N evaluations, the best time divided by the best time found so far; a run
// that exhausts the space keeps its best for the later checkpoints.
TEST(Simulate, CurveIsTheFractionOfTheOptimumAfterEachCheckpoint) {
  const SearchSpace s({"X"}, {{1}, {2}, {3}, {4}, {5}});
  const std::vector<std::optional<double>> times = {5.0, 4.0, std::nullopt, 2.0, 1.0};
  SimulationOptions o;
  o.seeds = 2;
  o.checkpoints = {1, 3, 4, 5, 10};
  const auto r = simulate(s, times, "exhaustive", o);  // asks 0, 1, 2, 3, 4
  ASSERT_EQ(r.mean_fraction.size(), 5u);
  EXPECT_DOUBLE_EQ(r.mean_fraction[0], 1.0 / 5.0);
  EXPECT_DOUBLE_EQ(r.mean_fraction[1], 1.0 / 4.0);  // the failure teaches nothing
  EXPECT_DOUBLE_EQ(r.mean_fraction[2], 1.0 / 2.0);
  EXPECT_DOUBLE_EQ(r.mean_fraction[3], 1.0);
  EXPECT_DOUBLE_EQ(r.mean_fraction[4], 1.0);
  // One point within 5 % of the best among five: random needs (5 + 1) / (1 + 1) on average.
  EXPECT_DOUBLE_EQ(r.random_expected_evaluations, 3.0);
  EXPECT_EQ(r.reached, 2u);
  EXPECT_EQ(r.median, 5.0);
}

// A run asks only what is recorded: on to its target and to the last checkpoint, not to the
// end of its budget.
TEST(Simulate, ARunEndsOncePastItsTargetAndTheLastCheckpoint) {
  std::vector<std::vector<int>> points;
  std::vector<std::optional<double>> times;
  for (int i = 0; i < 40; ++i) {
    points.push_back({i});
    times.push_back(i == 5 ? 1.0 : 10.0);  // exhaustive reaches the target at its 6th
  }
  const SearchSpace s({"X"}, std::move(points));
  SimulationOptions o;
  o.seeds = 1;
  o.budget = 30;
  const auto plain = simulate(s, times, "exhaustive", o);
  ASSERT_EQ(plain.runs.size(), 1u);
  EXPECT_EQ(plain.runs[0].evaluations, 6u);
  EXPECT_EQ(plain.runs[0].spent, 6u);
  o.checkpoints = {4, 12};
  const auto curve = simulate(s, times, "exhaustive", o);
  EXPECT_EQ(curve.runs[0].evaluations, 6u);
  EXPECT_EQ(curve.runs[0].spent, 12u);
  EXPECT_DOUBLE_EQ(curve.mean_fraction[0], 0.1);
  EXPECT_DOUBLE_EQ(curve.mean_fraction[1], 1.0);
  // A checkpoint past the budget is watched; the target counts within the budget only.
  o.budget = 3;
  o.checkpoints = {20};
  const auto past = simulate(s, times, "exhaustive", o);
  EXPECT_FALSE(past.runs[0].evaluations);
  EXPECT_EQ(past.runs[0].spent, 20u);
  EXPECT_DOUBLE_EQ(past.mean_fraction[0], 1.0);
}

}  // namespace
}  // namespace mmtune
