// Every point once, in the space's order.
#include "factories.hpp"

namespace mmtune {
namespace {

class Exhaustive : public Strategy {
 public:
  explicit Exhaustive(const SearchSpace& space) : size_(space.size()) {}

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    while (out.size() < n && next_ < size_) out.push_back(next_++);
    return out;
  }
  void tell(const std::vector<Observation>&) override {}

 private:
  std::size_t size_;
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
