#include "tune/replay.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>

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
  for (const auto& [config, time] : table) {
    points.push_back(parameter_values(parse_config(kind, config)));  // validated on the way
    times.push_back(time);
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
  const auto pairs = [](const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::istringstream in(text);
    for (std::string pair; in >> pair;) {
      const auto eq = pair.find('=');
      if (eq != std::string::npos) out.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    }
    return out;
  };
  // Decimals too ("0.5", "16.0"): a word's rank would put 16.0 before 2.0.
  const auto is_number = [](const std::string& v) {
    double x = 0;
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    return !v.empty() && ec == std::errc() && ptr == v.data() + v.size() && std::isfinite(x);
  };
  const auto is_int = [](const std::string& v) {
    int x = 0;
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    return !v.empty() && ec == std::errc() && ptr == v.data() + v.size();
  };
  const auto rank_order = [&](const std::string& a, const std::string& b) {
    const bool na = is_number(a), nb = is_number(b);
    if (na != nb) return na;
    if (na) {
      double x = 0, y = 0;
      std::from_chars(a.data(), a.data() + a.size(), x);
      std::from_chars(b.data(), b.data() + b.size(), y);
      if (x != y) return x < y;
    }
    return a < b;
  };
  std::map<std::string, std::vector<std::string>> values;  // of the parameters numbered
  for (const auto& r : records) {
    for (const auto& [name, value] : pairs(r.config)) {
      if (!is_int(value)) values[name];
    }
  }
  if (values.empty()) return records;
  for (const auto& r : records) {
    for (const auto& [name, value] : pairs(r.config)) {
      if (const auto it = values.find(name); it != values.end()) it->second.push_back(value);
    }
  }
  for (auto& [name, v] : values) {
    std::sort(v.begin(), v.end(), rank_order);
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  for (auto& r : records) {
    std::string text;
    for (const auto& [name, value] : pairs(r.config)) {
      const auto it = values.find(name);
      const std::string shown =
          it == values.end() ? value
                             : std::to_string(std::lower_bound(it->second.begin(), it->second.end(),
                                                               value, rank_order) -
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
