#include "tune/replay.hpp"

#include <map>
#include <string>

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

}  // namespace mmtune
