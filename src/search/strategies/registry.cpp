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
             (o.zero_is_auto ? " or 0," : "") + (o.integer ? " integer " : " ") + o.help + "\n";
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
  if (!settings.emplace(pair.substr(0, eq), v).second) {
    throw UsageError("strategy option '" + pair.substr(0, std::min<std::size_t>(eq, 80)) +
                     "' is given twice");
  }
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

std::map<std::string, double> non_default_settings(const std::string& name,
                                                   const std::map<std::string, double>& settings) {
  const StrategyInfo& s = info(name);
  std::map<std::string, double> out;
  for (const auto& setting : settings) {
    // Not a structured binding: clang 14 (the fuzzing build) captures none in a lambda.
    const std::string& key = setting.first;
    const auto it = std::find_if(s.options.begin(), s.options.end(),
                                 [&](const StrategyOption& o) { return key == o.name; });
    if (it == s.options.end() || it->value != setting.second) out.insert(setting);
  }
  return out;
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
    if ((value < it->min || value > it->max) && !(it->zero_is_auto && value == 0)) {
      throw UsageError("strategy option " + key + "=" + format_number(value) + " is outside [" +
                       format_number(it->min) + ", " + format_number(it->max) + "]" +
                       (it->zero_is_auto ? " (0: chosen for you)" : ""));
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
