// SearchSpace and the table of strategies by name.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
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

// Every strategy, in the order `strategy_names()` lists them.
constexpr const StrategyInfo* kStrategies[] = {&kExhaustiveStrategy, &kRandomStrategy,
                                               &kAnnealingStrategy, &kGeneticStrategy,
                                               &kModelStrategy};

const StrategyInfo& info(const std::string& name) {
  for (const auto* e : kStrategies) {
    if (name == e->name) return *e;
  }
  check_strategy_name(name);  // throws
  throw std::logic_error("unreachable");
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

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
    for (const auto* e : kStrategies) n.emplace_back(e->name);
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
    out += std::string(i == 0 ? "" : last ? " or " : ", ") + kStrategies[i]->name;
    if (std::strcmp(kStrategies[i]->name, default_strategy()) == 0) out += " (default)";
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

std::string describe_strategy_options() {
  std::string out;
  for (const auto* e : kStrategies) {
    out += std::string(e->name) + ": " + e->help + "\n";
    for (const auto& o : e->options) {
      out += "  " + std::string(o.name) + "=" + format_number(o.value) + "  [" +
             format_number(o.min) + ", " + format_number(o.max) + "]" +
             (o.integer ? " integer " : " ") + o.help + "\n";
    }
  }
  return out;
}

void parse_strategy_setting(const std::string& pair, std::map<std::string, double>& settings) {
  const auto eq = pair.find('=');
  double v = 0;
  const char* b = eq == std::string::npos ? nullptr : pair.data() + eq + 1;
  const char* e = pair.data() + pair.size();
  // Out of range (1e400, 1e-400) is refused too: from_chars leaves v at 0 then.
  const auto parsed = b ? std::from_chars(b, e, v) : std::from_chars_result{};
  if (!b || eq == 0 || b == e || parsed.ec != std::errc() || parsed.ptr != e || !std::isfinite(v)) {
    throw UsageError("strategy option '" + pair.substr(0, 80) + "' is not NAME=NUMBER");
  }
  settings[pair.substr(0, eq)] = v;
}

double option_value(std::span<const StrategyOption> table, const StrategyOptions& options,
                    std::string_view name) {
  for (const auto& o : table) {
    if (name != o.name) continue;
    const auto it = options.settings.find(o.name);
    return it == options.settings.end() ? o.value : it->second;
  }
  throw std::logic_error("strategy option '" + std::string(name) + "' is not in its table");
}

void check_strategy_settings(const std::string& name,
                             const std::map<std::string, double>& settings) {
  const StrategyInfo& s = info(name);
  for (const auto& setting : settings) {
    const std::string& key = setting.first;
    const double value = setting.second;
    const auto it = std::find_if(s.options.begin(), s.options.end(),
                                 [&](const StrategyOption& o) { return key == o.name; });
    if (it == s.options.end()) {
      std::string known;
      for (const auto& o : s.options) known += (known.empty() ? "" : ", ") + std::string(o.name);
      throw UsageError("strategy " + name + " has no option '" + key.substr(0, 40) + "' (" +
                       (known.empty() ? "it has none" : "known: " + known) + ")");
    }
    if (value < it->min || value > it->max) {
      throw UsageError("strategy option " + key + "=" + format_number(value) + " is outside [" +
                       format_number(it->min) + ", " + format_number(it->max) + "]");
    }
    if (it->integer && value != std::floor(value)) {
      throw UsageError("strategy option " + key + "=" + format_number(value) +
                       " is not a whole number");
    }
  }
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const SearchSpace& space,
                                        const StrategyOptions& options) {
  check_strategy_settings(name, options.settings);
  // A budget beyond the space is the space: strategies that scale with the budget (the model's
  // random start, annealing's cooling, genetic's population) would otherwise plan for points
  // that do not exist.
  StrategyOptions capped = options;
  capped.budget = std::min(options.budget, space.size());
  return info(name).make(space, capped);
}

}  // namespace mmtune
