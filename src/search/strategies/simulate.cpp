#include "search/simulate.hpp"

#include <algorithm>

#include "mmtune/error.hpp"

namespace mmtune {

SimulationResult simulate(const SearchSpace& space, const std::vector<std::optional<double>>& times,
                          const std::string& strategy, const SimulationOptions& options) {
  const auto& names = strategy_names();
  if (std::find(names.begin(), names.end(), strategy) == names.end()) {
    make_strategy(strategy, space, {});  // throws the usual UsageError
  }
  if (times.size() != space.size()) {
    throw UsageError("replay table has " + std::to_string(times.size()) + " times for " +
                     std::to_string(space.size()) + " configurations");
  }
  std::optional<double> best;
  for (const auto& t : times) {
    if (t && (!best || *t < *best)) best = *t;
  }
  if (!best) throw UsageError("replay table has no successful time");

  SimulationResult result;
  result.strategy = strategy;
  result.budget = options.budget ? options.budget : space.size();
  result.best_time = *best;
  result.target_time = *best * (1 + options.tolerance);
  const std::size_t batch = std::max<std::size_t>(1, options.batch);

  std::vector<double> counts;  // per run, for the median
  for (std::size_t s = 0; s < options.seeds; ++s) {
    SimulationRun run{options.first_seed + s, std::nullopt};
    const auto search = make_strategy(strategy, space, {run.seed, result.budget});
    std::size_t spent = 0;
    while (!run.evaluations && spent < result.budget) {
      const auto picks = search->ask(std::min(batch, result.budget - spent));
      if (picks.empty()) break;  // the strategy has nothing left
      std::vector<Observation> told;
      told.reserve(picks.size());
      for (const std::size_t i : picks) {
        ++spent;
        told.push_back({i, times[i]});
        if (!run.evaluations && times[i] && *times[i] <= result.target_time) {
          run.evaluations = spent;
        }
      }
      search->tell(told);
    }
    result.reached += run.evaluations.has_value();
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
