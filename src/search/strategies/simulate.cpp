#include "search/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "common.hpp"
#include "mmtune/error.hpp"

namespace mmtune {
namespace {

// `count` of the `outside` points with their times, drawn without repetition by a partial
// Fisher-Yates shuffle; its own stream, so that the strategy's draws stay those of its seed.
std::vector<Observation> told_results(std::vector<std::size_t> outside, std::size_t count,
                                      const std::vector<std::optional<double>>& times,
                                      std::uint64_t seed) {
  strategies::Rng rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::vector<Observation> told;
  told.reserve(count);
  for (std::size_t k = 0; k < count; ++k) {
    std::swap(outside[k], outside[k + strategies::uniform_index(rng, outside.size() - k)]);
    told.push_back({outside[k], times[outside[k]]});
  }
  return told;
}

}  // namespace

namespace {

std::optional<double> best_time(const std::vector<std::optional<double>>& times) {
  std::optional<double> best;
  for (const auto& t : times) {
    if (t && (!best || *t < *best)) best = *t;
  }
  return best;
}

// The points outside the target, those a run may be told.
std::vector<std::size_t> outside_target(const std::vector<std::optional<double>>& times,
                                        double target_time) {
  std::vector<std::size_t> outside;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (!times[i] || *times[i] > target_time) outside.push_back(i);
  }
  return outside;
}

std::size_t share_of(double share, std::size_t n) {
  return static_cast<std::size_t>(std::lround(share * double(n)));
}

}  // namespace

std::size_t told_count(const std::vector<std::optional<double>>& times,
                       const SimulationOptions& options) {
  const auto best = best_time(times);
  if (!best) return 0;
  return share_of(options.told, outside_target(times, *best * (1 + options.tolerance)).size());
}

SimulationResult simulate(const SearchSpace& space, const std::vector<std::optional<double>>& times,
                          const std::string& strategy, const SimulationOptions& options) {
  check_strategy_settings(strategy, options.settings);
  if (times.size() != space.size()) {
    throw UsageError("replay table has " + std::to_string(times.size()) + " times for " +
                     std::to_string(space.size()) + " configurations");
  }
  const std::optional<double> best = best_time(times);
  if (!best) throw UsageError("replay table has no successful time");
  if (!(options.told >= 0 && options.told <= 1)) {
    throw UsageError("the told share must be within 0 and 1");
  }

  SimulationResult result;
  result.strategy = strategy;
  result.budget = options.budget ? options.budget : space.size();
  result.best_time = *best;
  result.target_time = *best * (1 + options.tolerance);
  const std::size_t batch = std::max<std::size_t>(1, options.batch);

  const std::vector<std::size_t> outside = outside_target(times, result.target_time);
  const std::size_t within = space.size() - outside.size();
  result.told = share_of(options.told, outside.size());
  // Random search's expectation among the points not told.
  result.random_expected_evaluations = double(space.size() - result.told + 1) / double(within + 1);
  // No run spends more than the budget or, past it, the last checkpoint.
  std::size_t horizon = result.budget;
  for (const auto c : options.checkpoints) horizon = std::max(horizon, c);
  result.mean_fraction.assign(options.checkpoints.size(), 0.0);

  std::vector<double> counts;  // per run, for the median
  for (std::size_t s = 0; s < options.seeds; ++s) {
    SimulationRun run{options.first_seed + s, std::nullopt, 0};
    // The strategy plans for the budget; checkpoints past it only watch it go on.
    const auto search = make_strategy(strategy, space, {run.seed, result.budget, options.settings});
    if (result.told > 0) search->seed(told_results(outside, result.told, times, run.seed));
    std::size_t spent = 0;
    std::optional<double> found;  // the best time so far
    std::vector<double> fraction(options.checkpoints.size(), 0.0);
    const auto note = [&] {
      for (std::size_t c = 0; c < options.checkpoints.size(); ++c) {
        if (spent <= options.checkpoints[c]) fraction[c] = found ? *best / *found : 0.0;
      }
    };
    // On until the target is reached within the budget and past the last checkpoint: nothing
    // later is recorded (a budget of 2000 with the checkpoints up to 400 ran 9x as long).
    const std::size_t last_checkpoint =
        options.checkpoints.empty()
            ? 0
            : *std::max_element(options.checkpoints.begin(), options.checkpoints.end());
    const auto needs_more = [&] {
      return (!run.evaluations && spent < result.budget) || spent < last_checkpoint;
    };
    while (needs_more() && spent < horizon) {
      const auto picks = search->ask(std::min(batch, horizon - spent));
      if (picks.empty()) break;  // the strategy has nothing left
      std::vector<Observation> told;
      told.reserve(picks.size());
      for (const std::size_t i : picks) {
        ++spent;
        told.push_back({i, times[i]});
        if (times[i] && (!found || *times[i] < *found)) found = times[i];
        if (!run.evaluations && times[i] && *times[i] <= result.target_time &&
            spent <= result.budget) {
          run.evaluations = spent;
        }
        note();
      }
      search->tell(told);
    }
    // A strategy that ran out of points has seen all it will: later checkpoints keep its best.
    for (std::size_t c = 0; c < options.checkpoints.size(); ++c) {
      if (spent < options.checkpoints[c]) fraction[c] = found ? *best / *found : 0.0;
      result.mean_fraction[c] += fraction[c] / double(options.seeds);
    }
    run.spent = spent;
    if (run.evaluations) ++result.reached;
    counts.push_back(static_cast<double>(run.evaluations.value_or(result.budget + 1)));
    result.runs.push_back(run);
  }
  if (!counts.empty()) {
    std::sort(counts.begin(), counts.end());
    const std::size_t h = counts.size() / 2;
    result.median = counts.size() % 2 ? counts[h] : (counts[h - 1] + counts[h]) / 2;
  }
  return result;
}

}  // namespace mmtune
