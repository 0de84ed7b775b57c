// Every point once, in the space's order.
#include <vector>

#include "common.hpp"
#include "factories.hpp"

namespace mmtune {
namespace {

class Exhaustive : public Strategy {
 public:
  explicit Exhaustive(const SearchSpace& space) : seeded_(space.size()) {}

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    for (; out.size() < n && next_ < seeded_.size(); ++next_) {
      if (!seeded_.contains(next_)) out.push_back(next_);
    }
    return out;
  }
  void tell(const std::vector<Observation>&) override {}
  // Seeded points are known already: the walk skips them.
  void seed(const std::vector<Observation>& results) override {
    for (const Observation& o : results) seeded_.add(o.index);
  }

 private:
  strategies::Proposed seeded_;  // the warm start's points
  std::size_t next_ = 0;
};

}  // namespace

const StrategyInfo kExhaustiveStrategy{
    "exhaustive",
    "every configuration once, in the space's order",
    {},
    [](const SearchSpace& space, const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<Exhaustive>(space);
    }};

}  // namespace mmtune
