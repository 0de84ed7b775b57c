#include "report/report_data.hpp"

#include <cctype>
#include <set>

#include "mmtune/error.hpp"
#include "tune/replay.hpp"

namespace mmtune::report_detail {

namespace {

std::vector<DeviceRow> select_devices(const std::vector<DeviceRow>& all,
                                      const std::vector<std::string>& specs) {
  if (specs.empty()) return all;
  std::set<std::int64_t> chosen;
  for (const auto& spec : specs) {
    if (spec.empty()) throw UsageError("--devices: an empty name matches every device");
    bool found = false;
    for (const auto& d : all) {
      if (lower(d.key) == lower(spec) || lower(d.name).find(lower(spec)) != std::string::npos) {
        chosen.insert(d.id), found = true;
      }
    }
    if (!found) {
      std::string known;
      for (const auto& d : all) known += (known.empty() ? "" : ", ") + d.name + " (" + d.key + ")";
      throw UsageError("no stored device matches '" + spec +
                       "'; stored: " + (known.empty() ? "none" : known));
    }
  }
  std::vector<DeviceRow> out;
  for (const auto& d : all) {
    if (chosen.count(d.id)) out.push_back(d);
  }
  return out;
}

}  // namespace

Data load(Store& store, const ReportOptions& options) {
  Data data;
  data.db_path = store.path();
  data.devices = select_devices(rows::devices(store), options.devices);
  std::set<std::string> keys;
  for (const auto& d : data.devices) keys.insert(d.key);
  // Only the selected devices' rows, in the store's order.
  const auto selected = [&keys](auto all, auto key_of) {
    decltype(all) out;
    for (auto& r : all) {
      if (keys.count(key_of(r))) out.push_back(std::move(r));
    }
    return out;
  };
  const auto by_key = [](const auto& r) { return r.key; };
  data.bench = selected(rows::bench(store), by_key);
  data.best = selected(rows::bests(store), by_key);
  data.meas = selected(rows::measurements(store), by_key);
  data.sessions =
      selected(rows::sessions(store), [](const SessionRow& r) { return r.r.device_key; });
  data.roof = selected(rows::roofs(store), by_key);
  data.replays = selected(rows::replays(store), by_key);
  for (const auto& r : data.replays) {
    const std::string id = landscape_id(r);
    if (data.shapes.count(id)) continue;
    // The shape only of the landscape that was replayed: its measurements still stored, still
    // readable and no more of them since. Otherwise the replay's own figures stand alone.
    const auto records = store.measurements(r.key, r.p, r.kernel);
    if (records.empty()) continue;
    try {
      const Landscape l = load_landscape(r.kernel, records);
      if (std::int64_t(l.table.space.size()) != r.configurations) continue;
      data.shapes.emplace(id, landscape_shape(l.table.space, l.table.times, r.tolerance));
    } catch (const UsageError&) {
      continue;
    }
  }
  return data;
}

}  // namespace mmtune::report_detail
