#include "store/import.hpp"

#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/status.hpp"
#include "core/text.hpp"
#include "mmtune/error.hpp"

namespace mmtune {

ImportSummary store_import(Store& store, const ImportData& data) {
  auto& db = store.db();
  ImportSummary sum;
  sum.format = data.format;
  sql::Transaction t(db);

  std::map<std::string, std::int64_t> device_ids;
  auto find_device = db.prepare("SELECT id FROM devices WHERE key = ?");
  auto add_device = db.prepare(
      "INSERT INTO devices (key, vendor, name, driver_version, platform, platform_version, "
      "device_version, opencl_c_version, type, compute_units, max_clock_mhz, global_mem_bytes, "
      "local_mem_bytes, max_work_group_size, source) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& [d, source] : data.devices) {
    find_device.reset();
    find_device.bind(1, d.key);
    if (find_device.step()) {  // an existing device keeps its own description and source
      device_ids[d.key] = find_device.integer(0);
      ++sum.devices_known;
      continue;
    }
    add_device.reset();
    add_device.bind(1, d.key).bind(2, d.vendor).bind(3, d.name).bind(4, d.driver_version);
    add_device.bind(5, d.platform_name).bind(6, d.platform_version).bind(7, d.device_version);
    add_device.bind(8, d.opencl_c_version).bind(9, d.type);
    add_device.bind(10, std::int64_t(d.compute_units)).bind(11, std::int64_t(d.max_clock_mhz));
    add_device.bind(12, std::int64_t(d.global_mem_bytes));
    add_device.bind(13, std::int64_t(d.local_mem_bytes)).bind(14, d.max_work_group_size);
    add_device.bind(15, source);
    add_device.run();
    device_ids[d.key] = db.last_insert_id();
    ++sum.devices_added;
  }
  const auto device_id = [&](const std::string& key) {
    const auto it = device_ids.find(key);
    if (it == device_ids.end()) throw UsageError("device '" + key + "' is not in the input");
    return it->second;
  };

  // A stored row: the same device, problem, kernel, configuration, status and time, and date
  // where the file has dates of its own.
  auto find_measurement = db.prepare(
      std::string("SELECT id FROM measurements WHERE device_id = ? AND m = ? AND n = ? AND k = ? "
                  "AND precision = ? AND layout = ? AND trans_a = ? AND trans_b = ? AND batch = ? "
                  "AND kernel = ? AND config = ? AND status = ? AND median_ms IS NOT DISTINCT "
                  "FROM ?") +
      (data.dated_by_file ? "" : " AND measured_at = ?") + " LIMIT 1");
  const auto stored_id = [&](const MeasurementRecord& m) -> std::optional<std::int64_t> {
    const Measurement& r = m.result;
    find_measurement.reset();
    find_measurement.bind(1, device_id(m.device_key));
    bind_problem(find_measurement, 2, m.problem);
    find_measurement.bind(10, m.kernel).bind(11, m.config).bind(12, to_string(r.status));
    find_measurement.bind(13,
                          r.routine_ms.empty() ? std::nullopt : std::optional<double>(r.median_ms));
    if (!data.dated_by_file) find_measurement.bind(14, m.measured_at);
    if (!find_measurement.step()) return std::nullopt;
    return find_measurement.integer(0);
  };
  // A file without dates imported again (copied, touched, or a cache its run went on to fill)
  // is the same session only where nothing in it is new: new rows come as a session of their own.
  std::set<std::int64_t> sessions_with_new_rows;
  if (data.dated_by_file) {
    for (const auto& m : data.measurements) {
      if (!stored_id(m)) sessions_with_new_rows.insert(m.session_id);
    }
  }

  std::map<std::int64_t, std::int64_t> session_ids;  // the file's id -> the database's
  auto find_session = db.prepare(
      "SELECT id, command_line FROM sessions WHERE device_id = ? AND started_at = ? AND "
      "m = ? AND n = ? AND k = ? AND precision = ? AND layout = ? AND trans_a = ? AND trans_b = ? "
      "AND batch = ?");
  auto add_session = db.prepare(
      "INSERT INTO sessions (device_id, command_line, strategy, kernels, space, seed, budget, "
      "time_limit_s, m, n, k, precision, layout, trans_a, trans_b, batch, started_at, ended_at, "
      "outcome, host, mmtune_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& [s, host, version] : data.sessions) {
    if (data.dated_by_file && !sessions_with_new_rows.count(s.id)) {
      ++sum.sessions_known;
      continue;
    }
    const std::int64_t dev = device_id(s.device_key);
    find_session.reset();
    find_session.bind(1, dev).bind(2, s.started_at);
    // One session tunes one problem: a file imported at another size is another session.
    bind_problem(find_session, 3, s.problem);
    std::optional<std::int64_t> known;
    while (!known && find_session.step()) {
      // An older database's command line is exported cleaned (one line, valid UTF-8, cut at
      // 16 KiB): it is the same session as the raw one stored.
      const std::string stored = find_session.text(1);
      if (stored == s.command_line || single_line(stored, kMaxCommandLineBytes) == s.command_line) {
        known = find_session.integer(0);
      }
    }
    if (known) {
      session_ids[s.id] = *known;
      ++sum.sessions_known;
      continue;
    }
    add_session.reset();
    add_session.bind(1, dev).bind(2, s.command_line).bind(3, s.strategy).bind(4, s.kernels);
    add_session.bind(5, s.space).bind(6, std::int64_t(s.seed)).bind(7, s.budget);
    add_session.bind(8, s.time_limit_s);
    bind_problem(add_session, 9, s.problem);
    add_session.bind(17, s.started_at);
    add_session.bind(18,
                     s.ended_at.empty() ? std::nullopt : std::optional<std::string>(s.ended_at));
    add_session.bind(19, s.outcome).bind(20, host).bind(21, version);
    add_session.run();
    session_ids[s.id] = db.last_insert_id();
    ++sum.sessions_added;
  }

  // The target's bests before the import, for the file's bests to be weighed against.
  std::map<std::tuple<std::string, std::string, std::string>, std::string> updated_before;
  std::set<std::tuple<std::string, std::string, std::string>> named;  // the file names the best
  for (const auto& b : data.bests) {
    const auto key = std::tuple(b.device_key, b.kernel, describe(b.problem));
    named.insert(key);
    if (const auto old = store.best(b.device_key, b.problem, b.kernel)) {
      updated_before[key] = old->updated_at;
    }
  }

  std::map<std::int64_t, MeasurementRecord> by_file_id;  // with the database's id
  std::set<std::int64_t> added_here;                     // ids this import inserted
  for (const auto& m : data.measurements) {
    if (const auto stored = stored_id(m)) {
      const std::int64_t found = *stored;
      if (m.id) by_file_id[m.id] = m, by_file_id[m.id].id = found;
      ++(added_here.count(found) ? sum.measurements_repeated : sum.measurements_known);
      continue;
    }
    std::optional<std::int64_t> session;
    if (m.session_id) {
      const auto it = session_ids.find(m.session_id);
      if (it == session_ids.end()) throw UsageError("a measurement names an unknown session");
      session = it->second;
    }
    MeasurementRecord rec = m;
    rec.session_id = session.value_or(0);
    // Where the file names the best, the newer of its and the target's is kept (below): a
    // faster single measurement does not displace a confirmed best.
    rec.id = store.insert_measurement(  // inside this import's transaction
        rec, !named.count(std::tuple(m.device_key, m.kernel, describe(m.problem))));
    if (m.id) by_file_id[m.id] = rec;
    added_here.insert(rec.id);
    ++sum.measurements_added;
  }
  // Inserting made the fastest measurements the bests where the file names none. A best of the
  // file that is newer than the target's own (it may be a confirmed one, not the fastest) takes
  // its place with its own date, as it would have on the machine that made it; an older one
  // leaves the target's.
  for (const auto& b : data.bests) {
    const auto it = updated_before.find(std::tuple(b.device_key, b.kernel, describe(b.problem)));
    const auto m = by_file_id.find(b.measurement);
    if (m == by_file_id.end() || m->second.result.status != Status::kOk ||
        m->second.result.routine_ms.empty() || m->second.kernel != b.kernel ||
        m->second.device_key != b.device_key ||
        describe(m->second.problem) != describe(b.problem)) {
      throw UsageError(
          "a best names a measurement that is not a timed Ok one of its device, kernel and "
          "problem");
    }
    if (it == updated_before.end() || it->second < b.updated_at) {
      store.put_best(m->second, b.updated_at);
    }
  }
  t.commit();
  return sum;
}

}  // namespace mmtune
