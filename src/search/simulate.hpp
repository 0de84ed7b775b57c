// Replay of a search strategy against recorded results, without a device: the strategy asks,
// the table answers with the recorded time. Measures how many evaluations a strategy needs to get
// close to the best recorded configuration, to compare strategies and tune them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/strategy.hpp"

namespace mmtune {

struct SimulationOptions {
  std::size_t budget = 0;  // evaluations per run (0: the whole space)
  std::size_t seeds = 20;  // runs, with seeds first_seed, first_seed + 1, ...
  std::uint64_t first_seed = 1;
  std::size_t batch = 1;    // candidates per ask
  double tolerance = 0.05;  // the target: a time within this fraction of the best recorded time
  std::map<std::string, double> settings{};  // the strategy's options (StrategyOptions::settings)
  // The curve: the mean fraction of the optimum (best time / best time found) after each of
  // these evaluation counts. A run goes on past its target up to the last checkpoint (and past
  // the budget, if a checkpoint is), and ends once it is past both.
  std::vector<std::size_t> checkpoints{};
  // A warm start: each run first tells the strategy (as seeds) this share, in [0, 1], of the
  // recorded results outside the target, drawn with the run's seed; only the strategy's own
  // proposals count as evaluations (and make the curve). It measures how much a strategy
  // learns from what it is told.
  double told = 0;
};

struct SimulationRun {
  std::uint64_t seed = 0;
  // Evaluations up to and including the first within the target; nothing when the run spent
  // its budget (or exhausted the space) without reaching it.
  std::optional<std::size_t> evaluations;
  std::size_t spent = 0;  // evaluations made: nothing is asked once nothing more is recorded
};

struct SimulationResult {
  std::string strategy;
  std::size_t budget = 0;
  double best_time = 0;    // the best recorded time
  double target_time = 0;  // best_time * (1 + tolerance)
  std::vector<SimulationRun> runs;
  std::size_t reached = 0;  // runs that reached the target
  double median = 0;        // of the runs' evaluations, counting "not reached" as budget + 1
  // The median when more than half the runs reached the target; nothing when it lies past the
  // budget (budget + 1 would be a count of evaluations that no run made).
  std::optional<double> median_within_budget() const {
    if (2 * reached > runs.size()) return median;
    return std::nullopt;
  }
  std::vector<double> mean_fraction;  // per checkpoint, over the runs
  // Random sampling without repetition needs (N + 1) / (k + 1) evaluations on average to find
  // one of the k points within the target among N; with `told`, N counts the points not told.
  double random_expected_evaluations = 0;
  std::size_t told = 0;  // results told to each run before it searched (SimulationOptions::told)
};

// The results each run is told before it searches: SimulationOptions::told's share (rounded) of
// those outside the target. Nothing for a table without a successful time.
std::size_t told_count(const std::vector<std::optional<double>>& times,
                       const SimulationOptions& options);

// Replays `strategy` once per seed on `space`, where times[i] is the recorded time of point i
// (nothing: it failed). Throws UsageError for an unknown strategy, a table that does not match
// the space, one without any successful time, or a told share outside [0, 1].
SimulationResult simulate(const SearchSpace& space, const std::vector<std::optional<double>>& times,
                          const std::string& strategy, const SimulationOptions& options);

}  // namespace mmtune
