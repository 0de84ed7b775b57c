// A steady-state genetic algorithm: a population of the best points seen, parents chosen by
// tournament, uniform crossover of their parameter values, mutation by one neighbour step. Each
// result replaces the worst member when it is better, so results may arrive in any order.
#include <algorithm>
#include <cmath>
#include <limits>

#include "common.hpp"
#include "factories.hpp"

namespace mmtune {
namespace {

using strategies::Proposed;
using strategies::Rng;
using strategies::uniform_index;
using strategies::uniform_real;

constexpr StrategyOption kOptions[] = {
    {"tournament", 3, 1, 64, "members drawn per parent choice; the fittest is the parent", true},
    {"mutation", 0.25, 0, 1, "probability that a child takes one step to a neighbour"},
    {"population", 0, 2, 1024,
     "members kept (0: a tenth of the budget, within 8-32; 16 without one)", true, true},
};
constexpr int kAttempts = 10;  // crossovers tried before falling back to a step from the best

std::size_t population(const StrategyOptions& options) {
  // At least 2 (the table): one member has no partner, every child would be a random point.
  if (const auto set = std::size_t(option_value(kOptions, options, "population"))) return set;
  return options.budget ? std::clamp<std::size_t>(options.budget / 10, 8, 32) : 16;
}

class Genetic : public Strategy {
 public:
  Genetic(const SearchSpace& space, const StrategyOptions& options)
      : space_(space),
        rng_(options.seed),
        proposed_(space.size()),
        tournament_(std::size_t(option_value(kOptions, options, "tournament"))),
        mutation_(option_value(kOptions, options, "mutation")),
        population_size_(population(options)) {}

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    while (out.size() < n && proposed_.remaining() > 0) {
      std::size_t i;
      if (proposed_.count() < population_size_ || successes() < 2) {
        i = *proposed_.random_unvisited(rng_);  // the initial population
      } else {
        i = offspring();
      }
      proposed_.add(i);
      out.push_back(i);
    }
    return out;
  }

  // Seeds are results like any other: the best of them make up the first population.
  void seed(const std::vector<Observation>& results) override {
    for (const auto& r : results) proposed_.add(r.index);
    tell(results);
  }

  void tell(const std::vector<Observation>& results) override {
    for (const auto& r : results) {
      const double f = r.time && *r.time > 0 ? std::log(*r.time) : kFailed;
      if (population_.size() < population_size_) {
        population_.push_back({r.index, f});
        continue;
      }
      auto worst =
          std::max_element(population_.begin(), population_.end(),
                           [](const auto& a, const auto& b) { return a.fitness < b.fitness; });
      if (f < worst->fitness) *worst = {r.index, f};
    }
  }

 private:
  static constexpr double kFailed = std::numeric_limits<double>::infinity();

  struct Member {
    std::size_t index;
    double fitness;  // log(time); kFailed for a failed point
  };

  std::size_t successes() const {
    return static_cast<std::size_t>(
        std::count_if(population_.begin(), population_.end(),
                      [](const Member& m) { return m.fitness < kFailed; }));
  }

  const Member& tournament() {
    const Member* best = &population_[uniform_index(rng_, population_.size())];
    for (std::size_t k = 1; k < tournament_; ++k) {
      const Member& m = population_[uniform_index(rng_, population_.size())];
      if (m.fitness < best->fitness) best = &m;
    }
    return *best;
  }

  // A random unvisited neighbour of point i, if any.
  std::optional<std::size_t> step(std::size_t i) {
    const auto moves = proposed_.unvisited_neighbours(space_, i);
    if (moves.empty()) return std::nullopt;
    return moves[uniform_index(rng_, moves.size())];
  }

  std::size_t offspring() {
    std::vector<int> child(space_.dimensions());
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      const auto& a = space_.point(tournament().index);
      const auto& b = space_.point(tournament().index);
      for (std::size_t d = 0; d < child.size(); ++d) child[d] = rng_() & 1 ? a[d] : b[d];
      const auto found = space_.find(child);
      if (!found) continue;  // the mix violates the space's constraints
      // A child equal to a point already tried gets a mutation too: it must be new.
      if (uniform_real(rng_) < mutation_ || proposed_.contains(*found)) {
        if (const auto moved = step(*found)) return *moved;
        continue;
      }
      return *found;
    }
    const auto best =
        std::min_element(population_.begin(), population_.end(),
                         [](const auto& a, const auto& b) { return a.fitness < b.fitness; });
    if (const auto moved = step(best->index)) return *moved;
    return *proposed_.random_unvisited(rng_);
  }

  const SearchSpace& space_;
  Rng rng_;
  Proposed proposed_;
  std::size_t tournament_;
  double mutation_;
  std::size_t population_size_;
  std::vector<Member> population_;
};

}  // namespace

const StrategyInfo kGeneticStrategy{
    "genetic", "a population bred by tournament, crossover and mutation", kOptions,
    [](const SearchSpace& space, const StrategyOptions& options) -> std::unique_ptr<Strategy> {
      return std::make_unique<Genetic>(space, options);
    }};

}  // namespace mmtune
