// A seeded shuffle of all points, drawn lazily (Fisher-Yates, one swap per proposal).
#include <numeric>

#include "common.hpp"
#include "factories.hpp"

namespace mmtune {
namespace {

using strategies::Rng;
using strategies::uniform_index;

class RandomSearch : public Strategy {
 public:
  RandomSearch(const SearchSpace& space, const StrategyOptions& options)
      : order_(space.size()), seeded_(space.size()), rng_(options.seed) {
    std::iota(order_.begin(), order_.end(), std::size_t{0});
  }

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    while (out.size() < n && next_ < order_.size()) {
      std::swap(order_[next_], order_[next_ + uniform_index(rng_, order_.size() - next_)]);
      const std::size_t i = order_[next_++];
      if (!seeded_.contains(i)) out.push_back(i);
    }
    return out;
  }
  // Seeded points (the warm start's) are not proposed again; the draws stay those of an unseeded
  // search, so a resumed tune proposes what the interrupted one did.
  void seed(const std::vector<Observation>& results) override {
    for (const Observation& o : results) seeded_.add(o.index);
  }
  void tell(const std::vector<Observation>&) override {}

 private:
  std::vector<std::size_t> order_;
  strategies::Proposed seeded_;  // the warm start's points
  std::size_t next_ = 0;
  Rng rng_;
};

}  // namespace

const StrategyInfo kRandomStrategy{
    "random",
    "configurations in a seeded random order, none twice",
    {},
    [](const SearchSpace& space, const StrategyOptions& options) -> std::unique_ptr<Strategy> {
      return std::make_unique<RandomSearch>(space, options);
    }};

}  // namespace mmtune
