// `mmtune simulate --told`: each replayed run is first told a share of the recorded results (a
// warm start), to measure how much a strategy learns from what it is told.
#include <gtest/gtest.h>

#include <iostream>

#include "exchange/exchange.hpp"
#include "mmtune/error.hpp"
#include "search/simulate.hpp"
#include "store/store.hpp"
#include "test_support.hpp"
#include "tune/replay.hpp"

namespace mmtune {
namespace {

// Told points are seeds, not evaluations: exhaustive walks the rest in order, and random
// search's expectation counts only the points not told.
TEST(SimulateTold, ToldResultsAreSeedsAndNeverTheTarget) {
  const SearchSpace s({"X"}, {{1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}});
  const std::vector<std::optional<double>> times = {5.0, 4.0, std::nullopt, 3.0, 2.5,
                                                    6.0, 7.0, 1.0,          1.04};
  SimulationOptions o;
  o.seeds = 4;
  o.told = 3.0 / 7.0;  // three of the seven points outside 5 % of the best (index 7 and 8)
  const auto r = simulate(s, times, "exhaustive", o);
  EXPECT_EQ(r.told, 3u);
  EXPECT_DOUBLE_EQ(r.random_expected_evaluations, (9.0 - 3 + 1) / (2 + 1));
  // Exhaustive reaches index 7 after the untold of indices 0-6 (four of them) and 7 itself.
  for (const auto& run : r.runs) EXPECT_EQ(run.evaluations, std::optional<std::size_t>(5));
  // Told everything outside the target, any strategy's first proposal is within it.
  o.told = 1;
  for (const auto& name : strategy_names()) {
    const auto all = simulate(s, times, name, o);
    EXPECT_EQ(all.told, 7u);
    EXPECT_EQ(all.median, 1.0) << name;
  }
  o.told = 1.5;
  EXPECT_THROW(simulate(s, times, "random", o), UsageError);
  o.told = -0.1;
  EXPECT_THROW(simulate(s, times, "random", o), UsageError);
}

// On a measured GPU landscape a model told half of it finds a configuration within 5 % of the
// best among the rest in a few proposals; random search gains only the smaller space.
TEST(SimulateTold, TheModelLearnsFromWhatItIsToldOnAGpuLandscape) {
  test::TempDir dir;
  Store store(dir / "kt.db");
  GemmProblem p;
  p.m = p.n = p.k = 4096;
  import_file(store, std::string(MMTUNE_LANDSCAPES_DIR) + "/GEMM_V100_run1.json", p);
  p.layout = Layout::kColMajor, p.trans_b = true;  // CLBlast's, as the importer stores it
  const DeviceInfo d = find_stored_device(store, "V100");
  const auto land = load_landscape("tiled", store.measurements(d.key, p, "tiled"));
  SimulationOptions o;
  o.seeds = 6;
  o.budget = 2000;
  o.told = 0.5;
  const auto model = simulate(land.table.space, land.table.times, "model", o);
  const auto random = simulate(land.table.space, land.table.times, "random", o);
  std::cout << "told " << model.told << ": model median " << model.median << ", random "
            << random.median << " (expected " << random.random_expected_evaluations << ")\n";
  EXPECT_GT(model.told, 4000u);
  EXPECT_EQ(model.reached, 6u);
  EXPECT_LE(model.median, 20);
  // Random search ignores what it is told but never repeats it: (N - told + 1) / (k + 1).
  EXPECT_GT(random.median, 5 * model.median);
  std::size_t within = 0;
  for (const auto& t : land.table.times) within += t && *t <= random.target_time;
  EXPECT_EQ(random.told, model.told);
  EXPECT_DOUBLE_EQ(random.random_expected_evaluations,
                   double(land.table.space.size() - random.told + 1) / double(within + 1));
}

// The share is checked before the database is opened: nan with a missing database said the
// database was missing.
TEST(SimulateTold, TheShareIsCheckedFirst) {
  test::TempDir dir;
  const auto r = test::run_mmtune({"simulate", "--db", dir / "missing.db", "--told", "nan"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--told must be within 0 and 1"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mmtune
