#include "tune/replay.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "family/config_text.hpp"
#include "family/recorded.hpp"
#include "family/spec.hpp"
#include "mmtune/error.hpp"

namespace mmtune {

ReplayTable replay_table(KernelKind kind, const std::vector<MeasurementRecord>& records) {
  std::map<std::string, std::optional<double>> table;  // ordered: the same space every time
  for (const auto& r : records) {
    if (r.kernel != kernel_name(kind)) {
      throw UsageError("a " + r.kernel + " record in a " + kernel_name(kind) + " replay table");
    }
    const auto time = observed_time(r.result);
    auto& slot = table[r.config];
    if (time && (!slot || *time < *slot)) slot = time;
  }
  std::vector<std::vector<int>> points;
  std::vector<std::optional<double>> times;
  // One point per configuration, however its text spells it (its parameters in another order).
  std::map<std::vector<int>, std::size_t> index;
  for (const auto& [config, time] : table) {
    auto values = parameter_values(parse_config(kind, config));  // validated on the way
    const auto [at, added] = index.emplace(values, points.size());
    if (added) {
      points.push_back(std::move(values));
      times.push_back(time);
    } else if (time && (!times[at->second] || *time < *times[at->second])) {
      times[at->second] = time;
    }
  }
  return {SearchSpace(parameter_names(kind), std::move(points)), std::move(times)};
}

namespace {

// A spec's parameters may take words, and integers beyond 32 bits: a parameter with any such
// value has each of its values, numbers too, numbered by its rank (numbers first, in order, then
// words), so that every strategy searches them as it searches numbers and no word takes a
// number's place. (A tune numbers words by their place in the spec's list, which the store does
// not hold: a replay's steps between words may differ from the tune's.)
std::vector<MeasurementRecord> numbered(std::vector<MeasurementRecord> records) {
  std::map<std::string, std::vector<std::string>> values;  // of the parameters numbered
  for (const auto& r : records) {
    for (const auto& [name, value] : config_pairs(r.config)) {
      if (!whole_int(value)) values[name];
    }
  }
  if (values.empty()) return records;
  for (const auto& r : records) {
    for (const auto& [name, value] : config_pairs(r.config)) {
      if (const auto it = values.find(name); it != values.end()) it->second.push_back(value);
    }
  }
  for (auto& [name, v] : values) {
    std::sort(v.begin(), v.end(), value_rank_less);
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  for (auto& r : records) {
    std::string text;
    for (const auto& [name, value] : config_pairs(r.config)) {
      const auto it = values.find(name);
      const std::string shown =
          it == values.end() ? value
                             : std::to_string(std::lower_bound(it->second.begin(), it->second.end(),
                                                               value, value_rank_less) -
                                              it->second.begin());
      text += (text.empty() ? "" : " ") + name + "=" + shown;
    }
    r.config = text;
  }
  return records;
}

}  // namespace

Landscape load_landscape(const std::string& kernel, const std::vector<MeasurementRecord>& input) {
  const auto records = is_spec_kernel(kernel) ? numbered(input) : input;
  Landscape out;
  if (const auto kind = parse_kernel_kind(kernel)) {
    if ((*kind)->role() != FamilyRole::kSearched) {
      throw UsageError("the " + kernel + " kernel is a reference, not searched: nothing to replay");
    }
    out.table = replay_table(*kind, records);
    return out;
  }
  if (records.empty()) throw UsageError("no " + kernel.substr(0, 60) + " measurements stored");
  std::vector<std::string> texts;
  for (const auto& r : records) texts.push_back(r.config);
  out.recorded = RecordedFamily::from_texts(kernel, texts);
  out.table = replay_table(*out.recorded, records);
  return out;
}

}  // namespace mmtune
