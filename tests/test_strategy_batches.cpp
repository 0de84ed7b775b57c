// Strategies as tunes drive them: batches larger than a neighbourhood, budgets beyond the space,
// replays whose curve must not change the search, and options that must be whole numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "mmtune/error.hpp"
#include "search/simulate.hpp"
#include "search/strategy.hpp"

namespace mmtune {
namespace {

// A 32 x 32 grid whose time doubles with every step from (20, 9): a pure descent finds the
// optimum from anywhere, one step per batch of neighbours.
struct Grid {
  SearchSpace space;
  std::vector<std::optional<double>> times;
};

Grid grid() {
  std::vector<std::vector<int>> points;
  std::vector<std::optional<double>> times;
  for (int x = 0; x < 32; ++x) {
    for (int y = 0; y < 32; ++y) {
      points.push_back({x, y});
      times.push_back(std::ldexp(1.0, std::abs(x - 20) + std::abs(y - 9)));
    }
  }
  return {SearchSpace({"x", "y"}, std::move(points)), std::move(times)};
}

TEST(Annealing, BatchesLargerThanTheNeighbourhoodStillDescend) {
  // A tune asks for 2 x its parallel builds at once, more than a point has neighbours. The walk
  // must wait for its neighbours' results: restarting in the same batch threw them away, and
  // the walk became random sampling (1024 points: the optimum within 300 evaluations in about a
  // quarter of the runs). Descending, it needs at most 32 starts + 4 per step of 62.
  const Grid g = grid();
  const std::size_t optimum = *g.space.find(std::vector<int>{20, 9});
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto s = make_strategy("annealing", g.space, {seed, 300});
    std::size_t spent = 0;
    bool found = false;
    while (spent < 300 && !found) {
      const auto picks = s->ask(32);
      ASSERT_FALSE(picks.empty());
      std::vector<Observation> told;
      for (const std::size_t i : picks) {
        told.push_back({i, g.times[i]});
        found = found || i == optimum;
      }
      spent += picks.size();
      s->tell(told);
    }
    EXPECT_TRUE(found) << "seed " << seed << ": not found in " << spent << " evaluations";
  }
}

TEST(Simulate, TheCurveDoesNotChangeTheSearch) {
  // --curve runs on to 400 evaluations; the strategies still plan for --budget (genetic's
  // population, annealing's cooling, the model's random start scale with it).
  const Grid g = grid();
  for (const char* name : {"annealing", "genetic", "model"}) {
    SimulationOptions plain;
    plain.seeds = 6;
    plain.budget = 40;
    SimulationOptions curve = plain;
    curve.checkpoints = {25, 50, 100, 200, 400};
    const auto a = simulate(g.space, g.times, name, plain);
    const auto b = simulate(g.space, g.times, name, curve);
    ASSERT_EQ(a.runs.size(), b.runs.size());
    for (std::size_t r = 0; r < a.runs.size(); ++r) {
      EXPECT_EQ(a.runs[r].evaluations, b.runs[r].evaluations) << name << " seed " << r;
    }
    EXPECT_EQ(a.median, b.median) << name;
  }
}

TEST(StrategyOptions, ABudgetBeyondTheSpaceIsTheSpace) {
  // The model's random start is 2 % of the budget: a budget of 100 x the space made it sample
  // the whole space at random first.
  const Grid g = grid();
  for (const auto& name : strategy_names()) {
    const auto a = make_strategy(name, g.space, {3, g.space.size()});
    const auto b = make_strategy(name, g.space, {3, 100 * g.space.size()});
    for (int step = 0; step < 60; ++step) {
      const auto pa = a->ask(2), pb = b->ask(2);
      ASSERT_EQ(pa, pb) << name << " step " << step;
      std::vector<Observation> told;
      for (const std::size_t i : pa) told.push_back({i, g.times[i]});
      a->tell(told);
      b->tell(told);
    }
  }
}

TEST(StrategyOptions, CountsAreWholeNumbersAndAPopulationHasParents) {
  const Grid g = grid();
  EXPECT_THROW(make_strategy("genetic", g.space, {1, 100, {{"tournament", 2.5}}}), UsageError);
  EXPECT_THROW(make_strategy("model", g.space, {1, 100, {{"trees", 1.9}}}), UsageError);
  EXPECT_THROW(make_strategy("genetic", g.space, {1, 100, {{"population", 1}}}), UsageError);
  EXPECT_NO_THROW(make_strategy("genetic", g.space, {1, 100, {{"population", 2}}}));
  // At the command line's door, before a tune records its session: population=1 was refused
  // only when the search began, and left a failed session behind.
  EXPECT_THROW(check_strategy_settings("genetic", {{"population", 1}}), UsageError);
  EXPECT_NO_THROW(check_strategy_settings("genetic", {{"population", 0}}));  // chosen for you
  EXPECT_NO_THROW(make_strategy("genetic", g.space, {1, 100, {{"mutation", 0.5}}}));
  EXPECT_NE(describe_strategy_options().find("trees=24  [1, 1000] integer"), std::string::npos);
}

}  // namespace
}  // namespace mmtune
