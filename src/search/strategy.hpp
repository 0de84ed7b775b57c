// Search strategies: one small interface (ask for a batch of candidates, tell their results),
// one file per strategy under src/strategies/, looked up by name. Strategies see configurations
// only as points (vectors of parameter values), so they can be replayed without a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mmtune {

// The candidates of a search: each point holds one value per named parameter. The values lie
// end to end and are found by an open-addressing hash of indices: a spec's space of 10^7
// points of 6 parameters takes 32 to 40 bytes per point.
class SearchSpace {
 public:
  SearchSpace(std::vector<std::string> names, const std::vector<std::vector<int>>& points);
  // The same from the points' values end to end: point i is values [i * dims, (i + 1) * dims).
  static SearchSpace end_to_end(std::vector<std::string> names, std::vector<int> values);

  std::size_t size() const { return size_; }
  std::size_t dimensions() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  std::span<const int> point(std::size_t i) const {
    return {values_flat_.data() + i * dimensions(), dimensions()};
  }
  // Sorted distinct values parameter `d` takes over all points.
  const std::vector<int>& values(std::size_t d) const { return values_[d]; }
  std::optional<std::size_t> find(std::span<const int> point) const;
  // Points that differ from point i in exactly one parameter, by one step in that parameter's
  // sorted values.
  std::vector<std::size_t> neighbours(std::size_t i) const;

 private:
  SearchSpace() = default;
  void build_index();

  std::vector<std::string> names_;
  std::vector<int> values_flat_;
  std::size_t size_ = 0;
  std::vector<std::vector<int>> values_;
  std::vector<std::uint32_t> slots_;  // a power of two of them: point index + 1, or 0 (empty)
};

// The outcome of evaluating one candidate: its time (lower is better), or nothing when it failed
// (build failure, wrong result, timeout, ...).
struct Observation {
  std::size_t index;
  std::optional<double> time;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Up to n candidates not proposed before; fewer when it waits for the results of those it
  // proposed (annealing's walk), none only when it has nothing left.
  virtual std::vector<std::size_t> ask(std::size_t n) = 0;
  // Results of proposed candidates, in any order and possibly in several calls.
  virtual void tell(const std::vector<Observation>& results) = 0;
  // Prior knowledge: results of candidates the strategy did not propose (e.g. the best
  // configurations of nearby problems, measured before the search). They are never proposed
  // again. Strategies that cannot learn from them just skip them.
  virtual void seed(const std::vector<Observation>& results) { (void)results; }
};

// One tunable of a strategy, declared in the strategy's own table (its file), which also makes
// the help text: name, default, allowed range and a one-line meaning.
struct StrategyOption {
  const char* name;
  double value;  // the default
  double min, max;
  const char* help;
  bool integer = false;       // a count: a fraction is refused, not truncated
  bool zero_is_auto = false;  // 0 (its default) chooses the value; [min, max] bounds the others
};

struct StrategyOptions {
  std::uint64_t seed = 1;
  std::size_t budget = 0;  // evaluations the caller intends to spend (0: unknown)
  // Settings of the strategy's options by name (parsed at the CLI's door); make_strategy checks
  // each against the strategy's table.
  std::map<std::string, double> settings{};
};

// The value of option `name` of `table`: its setting, else its default. Read when a strategy is
// made, never while it searches.
double option_value(std::span<const StrategyOption> table, const StrategyOptions& options,
                    std::string_view name);

// Names of the registered strategies, e.g. "exhaustive", "random", "annealing", "genetic",
// "model".
const std::vector<std::string>& strategy_names();
// The default strategy of `mmtune tune`.
const char* default_strategy();
// "exhaustive, random, annealing, genetic or model (default)": the registry's help text.
std::string describe_strategies();
// Every strategy with its one-line description and its options table (name=default, range,
// meaning): the help text of --strategy-option.
std::string describe_strategy_options();
// Parses "name=value" into `settings`; throws UsageError for a malformed pair.
void parse_strategy_setting(const std::string& pair, std::map<std::string, double>& settings);
// Throws UsageError naming the known strategies when `name` is none of them.
void check_strategy_name(const std::string& name);
// Throws UsageError for an unknown strategy, or a setting it does not have or out of range.
void check_strategy_settings(const std::string& name,
                             const std::map<std::string, double>& settings);
// The settings of `settings` that differ from strategy `name`'s defaults (a default given by
// name runs the same search; a saved replay is keyed by these).
std::map<std::string, double> non_default_settings(const std::string& name,
                                                   const std::map<std::string, double>& settings);
// Throws UsageError for an unknown name, or a setting the strategy does not have or outside its
// range. The strategy keeps a reference to `space`, which must
// outlive it; a seed always gives the same proposals for the same results.
std::unique_ptr<Strategy> make_strategy(const std::string& name, const SearchSpace& space,
                                        const StrategyOptions& options);

}  // namespace mmtune
