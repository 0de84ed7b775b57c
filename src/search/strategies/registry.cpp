// SearchSpace and the table of strategies by name.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "factories.hpp"
#include "mmtune/error.hpp"
#include "search/strategy.hpp"

namespace mmtune {
namespace {

// The raw bytes of the values: points of one space all have the same width, so this is unique.
std::string encode(const std::vector<int>& point) {
  std::string key(point.size() * sizeof(int), '\0');
  if (!point.empty()) std::memcpy(key.data(), point.data(), key.size());
  return key;
}

using Factory = std::unique_ptr<Strategy> (*)(const SearchSpace&, const StrategyOptions&);

struct Entry {
  const char* name;
  Factory make;
};

// Every strategy, in the order `strategy_names()` lists them.
constexpr Entry kStrategies[] = {
    {"exhaustive", make_exhaustive_strategy}, {"random", make_random_strategy},
    {"annealing", make_annealing_strategy},   {"genetic", make_genetic_strategy},
    {"model", make_model_strategy},
};

}  // namespace

SearchSpace::SearchSpace(std::vector<std::string> names, std::vector<std::vector<int>> points)
    : names_(std::move(names)), points_(std::move(points)), values_(names_.size()) {
  index_.reserve(points_.size());
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const auto& p = points_[i];
    if (p.size() != names_.size()) {
      throw std::invalid_argument("search space point " + std::to_string(i) + " has " +
                                  std::to_string(p.size()) + " values for " +
                                  std::to_string(names_.size()) + " parameters");
    }
    // Value sets are small, so a sorted insert beats collecting and sorting every value.
    for (std::size_t d = 0; d < p.size(); ++d) {
      auto& v = values_[d];
      const auto it = std::lower_bound(v.begin(), v.end(), p[d]);
      if (it == v.end() || *it != p[d]) v.insert(it, p[d]);
    }
    if (!index_.emplace(encode(p), i).second) {
      throw std::invalid_argument("search space point " + std::to_string(i) + " is a duplicate");
    }
  }
}

std::optional<std::size_t> SearchSpace::find(const std::vector<int>& point) const {
  if (point.size() != names_.size()) return std::nullopt;
  const auto it = index_.find(encode(point));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::size_t> SearchSpace::neighbours(std::size_t i) const {
  std::vector<std::size_t> out;
  std::vector<int> q = points_[i];
  for (std::size_t d = 0; d < q.size(); ++d) {
    const auto& v = values_[d];
    const auto r = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), q[d]) - v.begin());
    const int own = q[d];
    if (r > 0) {
      q[d] = v[r - 1];
      if (const auto j = find(q)) out.push_back(*j);
    }
    if (r + 1 < v.size()) {
      q[d] = v[r + 1];
      if (const auto j = find(q)) out.push_back(*j);
    }
    q[d] = own;
  }
  return out;
}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& e : kStrategies) n.emplace_back(e.name);
    return n;
  }();
  return names;
}

const char* default_strategy() {
  return "model";
}

std::string describe_strategies() {
  std::string out;
  for (std::size_t i = 0; i < std::size(kStrategies); ++i) {
    const bool last = i + 1 == std::size(kStrategies);
    out += std::string(i == 0 ? "" : last ? " or " : ", ") + kStrategies[i].name;
    if (std::strcmp(kStrategies[i].name, default_strategy()) == 0) out += " (default)";
  }
  return out;
}

void check_strategy_name(const std::string& name) {
  const auto& names = strategy_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return;
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("unknown strategy '" + name + "' (known: " + known + ")");
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const SearchSpace& space,
                                        const StrategyOptions& options) {
  check_strategy_name(name);
  for (const auto& e : kStrategies) {
    if (name == e.name) return e.make(space, options);
  }
  return nullptr;  // not reached: the name was checked
}

}  // namespace mmtune
