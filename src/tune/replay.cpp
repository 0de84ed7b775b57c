#include "tune/replay.hpp"

#include <map>
#include <string>

#include "family/recorded.hpp"
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

Landscape load_landscape(const std::string& kernel, const std::vector<MeasurementRecord>& records) {
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
