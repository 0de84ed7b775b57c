// Simulated annealing over SearchSpace::neighbours. The energy is log(time), so the temperature
// is a relative slowdown (T = 0.05 accepts a 5 % slower point with probability 1/e) and does not
// depend on the problem's scale. The temperature falls geometrically over the budget; a walk
// restarts from a random point when every neighbour of its current point was proposed or when it
// has not improved for a while. A batch holds one start point, or at most the unvisited
// neighbours of the current point: the walk moves on only once their results are in (a restart
// in the same batch would throw them away).
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "common.hpp"
#include "factories.hpp"

namespace mmtune {
namespace {

using strategies::Proposed;
using strategies::Rng;
using strategies::uniform_index;
using strategies::uniform_real;

constexpr StrategyOption kOptions[] = {
    {"start_temperature", 0.05, 1e-6, 10, "temperature at the start (a relative slowdown)"},
    {"end_temperature", 0.002, 1e-6, 10, "temperature when the budget is spent"},
};
constexpr std::size_t kHorizon = 1000;  // evaluations to cool over when no budget is given

class Annealing : public Strategy {
 public:
  Annealing(const SearchSpace& space, const StrategyOptions& options)
      : space_(space),
        rng_(options.seed),
        proposed_(space.size()),
        horizon_(options.budget ? options.budget : std::min(space.size(), kHorizon)),
        start_temperature_(option_value(kOptions, options, "start_temperature")),
        end_temperature_(option_value(kOptions, options, "end_temperature")),
        patience_(4 * space.dimensions() + 8) {}

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    std::vector<std::size_t> moves;  // unvisited neighbours of the current point
    bool moves_known = false;
    while (out.size() < n && proposed_.remaining() > 0) {
      if (!current_) {
        if (!out.empty()) break;  // one start at a time: the walk begins from its result
        propose(*proposed_.random_unvisited(rng_), out);
        continue;
      }
      if (!moves_known) {
        moves = proposed_.unvisited_neighbours(space_, *current_);
        moves_known = true;
      }
      if (moves.empty() || stale_ >= patience_) {
        if (!out.empty()) break;  // this walk's results first: they may move it
        restart();
        continue;
      }
      const std::size_t k = uniform_index(rng_, moves.size());
      propose(moves[k], out);
      moves[k] = moves.back();
      moves.pop_back();
    }
    return out;
  }

  // The walk starts from the best seed instead of a random point.
  void seed(const std::vector<Observation>& results) override {
    for (const auto& r : results) {
      proposed_.add(r.index);
      if (r.time && *r.time > 0 && (!current_ || std::log(*r.time) < energy_)) {
        current_ = r.index;
        energy_ = best_energy_ = std::log(*r.time);
      }
    }
  }

  void tell(const std::vector<Observation>& results) override {
    for (const auto& r : results) {
      ++told_;
      const auto it = walk_of_.find(r.index);
      if (it == walk_of_.end()) continue;
      const bool this_walk = it->second == walk_;
      walk_of_.erase(it);
      if (!this_walk) continue;  // a result of an abandoned walk
      if (!r.time || *r.time <= 0) {
        ++stale_;
        continue;  // failed: never move there; a failed start leads to another start
      }
      const double e = std::log(*r.time);
      if (!current_) {
        current_ = r.index;
        energy_ = best_energy_ = e;
        stale_ = 0;
        continue;
      }
      const double delta = e - energy_;
      if (delta <= 0 || uniform_real(rng_) < std::exp(-delta / temperature())) {
        current_ = r.index;
        energy_ = e;
      }
      if (e < best_energy_) {
        best_energy_ = e;
        stale_ = 0;
      } else {
        ++stale_;
      }
    }
  }

 private:
  double temperature() const {
    const double progress = std::min(1.0, static_cast<double>(told_) / horizon_);
    return start_temperature_ * std::pow(end_temperature_ / start_temperature_, progress);
  }

  void propose(std::size_t i, std::vector<std::size_t>& out) {
    proposed_.add(i);
    walk_of_[i] = walk_;
    out.push_back(i);
  }

  void restart() {
    current_.reset();
    ++walk_;
    stale_ = 0;
  }

  const SearchSpace& space_;
  Rng rng_;
  Proposed proposed_;
  std::size_t horizon_;
  double start_temperature_, end_temperature_;
  std::size_t patience_;  // evaluations without a better point before a walk restarts
  std::size_t told_ = 0;
  std::unordered_map<std::size_t, std::size_t> walk_of_;  // pending proposal -> its walk
  std::size_t walk_ = 0;
  std::optional<std::size_t> current_;  // none: the walk waits for a successful start point
  double energy_ = 0;
  double best_energy_ = 0;  // of this walk
  std::size_t stale_ = 0;
};

}  // namespace

const StrategyInfo kAnnealingStrategy{
    "annealing", "simulated annealing over neighbouring configurations, restarting when stuck",
    kOptions,
    [](const SearchSpace& space, const StrategyOptions& options) -> std::unique_ptr<Strategy> {
      return std::make_unique<Annealing>(space, options);
    }};

}  // namespace mmtune
