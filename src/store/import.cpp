#include "store/import.hpp"

#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/status.hpp"
#include "core/text.hpp"
#include "mmtune/error.hpp"

namespace mmtune {

namespace {

// A row's time as stored: its median where it was timed, none (NULL) otherwise.
std::optional<double> timed_median(const MeasurementRecord& m) {
  return m.result.routine_ms.empty() ? std::nullopt : std::optional<double>(m.result.median_ms);
}

// The stored sessions, at the places (device, problem) of the file's rows, whose every row the
// file holds: kernel, configuration, status and time alike.
template <class DeviceId>
std::vector<std::int64_t> sessions_held(sql::Database& db, const ImportData& data,
                                        const DeviceId& device_id) {
  using Row = std::tuple<std::int64_t, std::string, std::string, std::string, std::string,
                         std::optional<double>>;  // device, problem, kernel, config, status, time
  std::set<Row> rows;
  std::map<std::pair<std::int64_t, std::string>, GemmProblem> places;
  for (const auto& m : data.measurements) {
    const std::int64_t dev = device_id(m.device_key);
    rows.emplace(dev, describe(m.problem), m.kernel, m.config, to_string(m.result.status),
                 timed_median(m));
    places.emplace(std::pair(dev, describe(m.problem)), m.problem);
  }
  auto sessions_at = db.prepare(
      "SELECT id FROM sessions WHERE device_id = ? AND m = ? AND n = ? AND k = ? AND "
      "precision = ? AND layout = ? AND trans_a = ? AND trans_b = ? AND batch = ?");
  auto rows_of =
      db.prepare("SELECT kernel, config, status, median_ms FROM measurements WHERE session_id = ?");
  std::vector<std::int64_t> held;
  for (const auto& [place, problem] : places) {
    sessions_at.reset();
    sessions_at.bind(1, place.first);
    bind_problem(sessions_at, 2, problem);
    std::vector<std::int64_t> ids;
    while (sessions_at.step()) ids.push_back(sessions_at.integer(0));
    for (const std::int64_t id : ids) {
      rows_of.reset();
      rows_of.bind(1, id);
      bool all = true, any = false;
      while (all && rows_of.step()) {
        any = true;
        all = rows.count(Row(place.first, place.second, rows_of.text(0), rows_of.text(1),
                             rows_of.text(2), rows_of.optional_real(3))) > 0;
      }
      if (all && any) held.push_back(id);
    }
  }
  return held;
}

}  // namespace

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

  // A file without dates (dated by the file's time, which a copy or a touch changes) is known
  // by its rows instead: a stored session whose every row the file holds is this file imported
  // before (or the cache of a run that went on since). Another run is never taken for it, even
  // where some of its times or failures are the same.
  std::vector<std::int64_t> held;
  if (data.dated_by_file) held = sessions_held(db, data, device_id);

  // A stored row: the same device, problem, kernel, configuration, status and time, and date
  // where the file has dates; of a session the file holds where it has none.
  auto find_measurement = db.prepare(
      std::string("SELECT id FROM measurements WHERE device_id = ? AND m = ? AND n = ? AND k = ? "
                  "AND precision = ? AND layout = ? AND trans_a = ? AND trans_b = ? AND batch = ? "
                  "AND kernel = ? AND config = ? AND status = ? AND median_ms IS NOT DISTINCT "
                  "FROM ?") +
      (data.dated_by_file ? " AND session_id = ?" : " AND measured_at = ?") + " LIMIT 1");
  const auto find = [&](const MeasurementRecord& m, const auto& last) {
    find_measurement.reset();
    find_measurement.bind(1, device_id(m.device_key));
    bind_problem(find_measurement, 2, m.problem);
    find_measurement.bind(10, m.kernel).bind(11, m.config).bind(12, to_string(m.result.status));
    find_measurement.bind(13, timed_median(m)).bind(14, last);
    return find_measurement.step() ? std::optional(find_measurement.integer(0)) : std::nullopt;
  };
  std::map<std::int64_t, std::int64_t> session_ids;  // the file's id -> the database's
  const auto stored_id = [&](const MeasurementRecord& m) -> std::optional<std::int64_t> {
    if (!data.dated_by_file) return find(m, m.measured_at);
    for (const std::int64_t session : held) {
      if (const auto id = find(m, session)) return id;
    }
    // A row the file holds twice (configurations that fold into one tiled kernel) is stored once.
    const auto own = session_ids.find(m.session_id);
    return own == session_ids.end() ? std::nullopt : find(m, own->second);
  };
  // Only a session with rows not stored before is added.
  std::set<std::int64_t> sessions_with_new_rows;
  if (data.dated_by_file) {
    for (const auto& m : data.measurements) {
      if (!stored_id(m)) sessions_with_new_rows.insert(m.session_id);
    }
  }

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
