// Devices, sessions, measurements and bests: the store's records and their statements.
#include "store/store.hpp"

#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "family/config_text.hpp"
#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "store/store_detail.hpp"

namespace mmtune {
namespace {

std::string host_name() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "";
}

// When a process of this host started (Linux: /proc), to the second; nullopt when unknown.
std::optional<std::time_t> process_start(std::int64_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return std::nullopt;
  // Field 2 is the command in parentheses (it may hold spaces); starttime is field 22, in clock
  // ticks since boot.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22; ++i) {
    if (!(fields >> field)) return std::nullopt;
  }
  std::ifstream proc_stat("/proc/stat");
  long long boot = -1;
  while (std::getline(proc_stat, line)) {
    if (line.rfind("btime ", 0) == 0) boot = std::atoll(line.c_str() + 6);
  }
  const long ticks = sysconf(_SC_CLK_TCK);
  if (boot < 0 || ticks <= 0) return std::nullopt;
  return std::time_t(boot + std::atoll(field.c_str()) / ticks);
}

// Whether the process that began a session is certainly gone: the session is this host's, and
// its pid no longer exists or now belongs to a process started after the session (a reused pid,
// e.g. after a reboot or in a new container). Sessions of other hosts cannot be checked.
bool process_gone(const SessionRecord& s) {
  if (s.pid <= 0 || s.host.empty() || s.host != host_name()) return false;
  if (::kill(pid_t(s.pid), 0) != 0 && errno == ESRCH) return true;
  const auto started = process_start(s.pid);
  const auto session = parse_utc(s.started_at);
  // A second of slack: both times are truncated to seconds.
  return started && session && *started > *session + 1;
}

const char* layout_name(Layout l) {
  return l == Layout::kRowMajor ? "row" : "col";
}

const char* kProblemMatch =
    "m = ? AND n = ? AND k = ? AND precision = ? AND layout = ? AND trans_a = ? AND trans_b = ? "
    "AND batch = ?";

std::string params_json(const std::string& kernel, const std::string& config) {
  nlohmann::json j = nlohmann::json::object();
  if (parse_kernel_kind(kernel)) {
    for (const auto& [name, value] : config_pairs(config)) {
      if (const auto v = whole_int(value)) j[name] = *v;
    }
  }
  return j.dump();
}
}  // namespace

// A positive integer from a test-only environment variable, or 0 when unset or malformed.
long test_switch(const char* name) {
  const char* v = std::getenv(name);
  long n = 0;
  if (!v || !*v) return 0;
  const char* end = v + std::char_traits<char>::length(v);
  const auto [ptr, ec] = std::from_chars(v, end, n);
  return ec == std::errc() && ptr == end && n > 0 ? n : 0;
}

void bind_problem(sql::Statement& s, int first, const GemmProblem& p) {
  s.bind(first, p.m).bind(first + 1, p.n).bind(first + 2, p.k);
  s.bind(first + 3, static_cast<int>(p.precision)).bind(first + 4, layout_name(p.layout));
  s.bind(first + 5, p.trans_a).bind(first + 6, p.trans_b).bind(first + 7, p.batch);
}

GemmProblem read_problem(const sql::Statement& s, int first) {
  GemmProblem p;
  p.m = std::size_t(s.integer(first));
  p.n = std::size_t(s.integer(first + 1));
  p.k = std::size_t(s.integer(first + 2));
  p.precision = static_cast<Precision>(s.integer(first + 3));
  p.layout = s.text(first + 4) == "col" ? Layout::kColMajor : Layout::kRowMajor;
  p.trans_a = s.integer(first + 5) != 0;
  p.trans_b = s.integer(first + 6) != 0;
  p.batch = std::size_t(s.integer(first + 7));
  return p;
}

void Store::upsert_device(const DeviceInfo& d) {
  auto s = db_.prepare(
      "INSERT INTO devices (key, vendor, name, driver_version, platform, platform_version, "
      "device_version, opencl_c_version, type, compute_units, max_clock_mhz, global_mem_bytes, "
      "local_mem_bytes, max_work_group_size) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(key) DO UPDATE SET platform = excluded.platform, "
      "platform_version = excluded.platform_version, compute_units = excluded.compute_units, "
      "max_clock_mhz = excluded.max_clock_mhz, global_mem_bytes = excluded.global_mem_bytes, "
      "local_mem_bytes = excluded.local_mem_bytes, max_work_group_size = "
      "excluded.max_work_group_size");
  s.bind(1, d.key).bind(2, d.vendor).bind(3, d.name).bind(4, d.driver_version);
  s.bind(5, d.platform_name).bind(6, d.platform_version).bind(7, d.device_version);
  s.bind(8, d.opencl_c_version).bind(9, d.type).bind(10, std::int64_t(d.compute_units));
  s.bind(11, std::int64_t(d.max_clock_mhz)).bind(12, std::int64_t(d.global_mem_bytes));
  s.bind(13, std::int64_t(d.local_mem_bytes)).bind(14, d.max_work_group_size);
  try {
    sql::Transaction t(db_);  // IMMEDIATE: concurrent writers queue on the busy timeout
    s.run();
    t.commit();
  } catch (const sql::Error& e) {
    throw_database_error(db_.path(), e);
  }
}

std::optional<DeviceInfo> Store::device(const std::string& key) {
  auto s = db_.prepare(
      "SELECT vendor, name, driver_version, platform, platform_version, device_version, "
      "opencl_c_version, type, compute_units, max_clock_mhz, global_mem_bytes, local_mem_bytes, "
      "max_work_group_size FROM devices WHERE key = ?");
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  DeviceInfo d;
  d.key = key;
  d.vendor = s.text(0), d.name = s.text(1), d.driver_version = s.text(2);
  d.platform_name = s.text(3), d.platform_version = s.text(4), d.device_version = s.text(5);
  d.opencl_c_version = s.text(6), d.type = s.text(7);
  d.compute_units = unsigned(s.integer(8)), d.max_clock_mhz = unsigned(s.integer(9));
  d.global_mem_bytes = std::uint64_t(s.integer(10)),
  d.local_mem_bytes = std::uint64_t(s.integer(11));
  d.max_work_group_size = std::size_t(s.integer(12));
  return d;
}

std::string shown_outcome(const SessionRecord& s) {
  return s.outcome == "running" && process_gone(s) ? "abandoned" : s.outcome;
}

std::int64_t Store::begin_session(const SessionRecord& r) {
  auto s = db_.prepare(
      "INSERT INTO sessions (device_id, command_line, strategy, kernels, space, seed, budget, "
      "time_limit_s, m, n, k, precision, layout, trans_a, trans_b, batch, started_at, outcome, "
      "host, mmtune_version, pid) "
      "VALUES ((SELECT id FROM devices WHERE key = "
      "?),?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'running',?,?,?)");
  s.bind(1, r.device_key).bind(2, r.command_line).bind(3, r.strategy).bind(4, r.kernels);
  s.bind(5, r.space).bind(6, std::int64_t(r.seed)).bind(7, r.budget).bind(8, r.time_limit_s);
  bind_problem(s, 9, r.problem);
  s.bind(17, now_utc()).bind(18, host_name()).bind(19, MMTUNE_VERSION);
  s.bind(20, std::int64_t(::getpid()));
  try {
    sql::Transaction t(db_);
    s.run();
    const std::int64_t id = db_.last_insert_id();
    t.commit();
    return id;
  } catch (const sql::Error& e) {
    throw_database_error(db_.path(), e);
  }
}

void Store::end_session(std::int64_t id, const std::string& outcome) {
  auto s = db_.prepare("UPDATE sessions SET ended_at = ?, outcome = ? WHERE id = ?");
  s.bind(1, now_utc()).bind(2, outcome).bind(3, id);
  try {
    sql::Transaction t(db_);
    s.run();
    t.commit();
  } catch (const sql::Error& e) {
    throw_database_error(db_.path(), e);
  }
}

std::size_t Store::close_abandoned_sessions() {
  try {
    sql::Transaction t(db_);
    auto q = db_.prepare(
        "SELECT id, host, pid, started_at FROM sessions WHERE outcome = 'running' AND host = ? "
        "AND pid IS NOT NULL");
    q.bind(1, host_name());
    std::vector<std::int64_t> gone;
    while (q.step()) {
      SessionRecord r;
      r.id = q.integer(0), r.host = q.text(1), r.pid = q.integer(2), r.started_at = q.text(3);
      r.outcome = "running";
      if (process_gone(r)) gone.push_back(r.id);
    }
    // Its end is its last sign of life: the last measurement it stored, else its start.
    auto u = db_.prepare(
        "UPDATE sessions SET outcome = 'abandoned', ended_at = COALESCE((SELECT MAX(measured_at) "
        "FROM measurements WHERE session_id = ?), started_at) WHERE id = ? AND "
        "outcome = 'running'");
    for (const auto id : gone) {
      u.bind(1, id).bind(2, id);
      u.run();
      u.reset();
    }
    t.commit();
    return gone.size();
  } catch (const sql::Error& e) {
    throw_database_error(db_.path(), e);
  }
}

std::vector<SessionRecord> Store::sessions() {
  auto s = db_.prepare(
      "SELECT s.id, d.key, command_line, strategy, kernels, space, seed, budget, time_limit_s, "
      "m, n, k, precision, layout, trans_a, trans_b, batch, started_at, COALESCE(ended_at, ''), "
      "outcome, host, COALESCE(pid, 0) "
      "FROM sessions s JOIN devices d ON d.id = s.device_id ORDER BY s.id");
  std::vector<SessionRecord> out;
  while (s.step()) {
    SessionRecord r;
    r.id = s.integer(0), r.device_key = s.text(1), r.command_line = s.text(2);
    r.strategy = s.text(3), r.kernels = s.text(4), r.space = s.text(5);
    r.seed = std::uint64_t(s.integer(6)), r.budget = std::size_t(s.integer(7));
    r.time_limit_s = s.real(8);
    r.problem = read_problem(s, 9);
    r.started_at = s.text(17), r.ended_at = s.text(18), r.outcome = s.text(19);
    r.host = s.text(20), r.pid = s.integer(21);
    r.outcome = shown_outcome(r);
    out.push_back(std::move(r));
  }
  return out;
}

std::int64_t Store::add_measurement(const MeasurementRecord& m) {
  // Test-only: SIGKILL inside the Nth measurement's transaction, between insert and commit.
  static const long kill_at = test_switch("MMTUNE_TEST_KILL_IN_TRANSACTION");
  static long added = 0;
  try {
    sql::Transaction t(db_);
    const std::int64_t id = insert_measurement(m);
    if (kill_at && ++added == kill_at) ::kill(::getpid(), SIGKILL);
    t.commit();
    return id;
  } catch (const sql::Error& e) {
    throw_database_error(db_.path(), e);
  }
}

std::int64_t Store::insert_measurement(const MeasurementRecord& m, bool update_best) {
  const Measurement& r = m.result;
  auto s = db_.prepare(
      "INSERT INTO measurements (session_id, device_id, kernel, config, params, m, n, k, "
      "precision, layout, trans_a, trans_b, batch, status, message, build_s, median_ms, min_ms, "
      "max_ms, kernel_median_ms, gflops, kernel_gflops, max_error, samples, measured_at, gbps, "
      "other_load) VALUES (?, (SELECT id FROM devices WHERE key = ?), ?,?,?, ?,?,?,?,?,?,?,?, "
      "?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, m.session_id ? std::optional<std::int64_t>(m.session_id) : std::nullopt);
  s.bind(2, m.device_key)
      .bind(3, m.kernel)
      .bind(4, m.config)
      .bind(5, params_json(m.kernel, m.config));
  bind_problem(s, 6, m.problem);
  const bool timed = !r.routine_ms.empty();
  // Unknown figures are NULL: 0 says unknown for rates and kernel times (a batch run item by
  // item has no kernel-alone time, a recorded kernel no flops).
  auto opt = [&](double v) {
    return timed && std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
  };
  auto known = [&](double v) { return v > 0 ? opt(v) : std::nullopt; };
  s.bind(14, to_string(r.status)).bind(15, r.message).bind(16, r.build_seconds);
  s.bind(17, opt(r.median_ms)).bind(18, opt(r.min_ms)).bind(19, opt(r.max_ms));
  s.bind(20, known(r.kernel_median_ms)).bind(21, known(r.gflops)).bind(22, known(r.kernel_gflops));
  s.bind(23, std::isfinite(r.max_error) ? std::optional<double>(r.max_error) : std::nullopt);
  // Kernel times are unknown (NaN) for a batch run item by item: none are stored then.
  const bool kernel_known = std::all_of(r.kernel_ms.begin(), r.kernel_ms.end(),
                                        [](double v) { return std::isfinite(v); });
  nlohmann::json samples{{"routine_ms", r.routine_ms},
                         {"kernel_ms", kernel_known ? r.kernel_ms : std::vector<double>{}}};
  if (r.kernel_wall_clock) samples["kernel_clock"] = "wall";  // events are the default
  s.bind(24, samples.dump());
  s.bind(25, m.measured_at.empty() ? now_utc() : m.measured_at);
  s.bind(26, timed && r.gbps > 0 ? std::optional<double>(r.gbps) : std::nullopt);
  s.bind(27, r.other_load >= 0 ? std::optional<double>(r.other_load) : std::nullopt);
  s.run();
  const std::int64_t id = db_.last_insert_id();
  if (update_best && r.status == Status::kOk && timed) upsert_best(id, m, true);
  return id;
}

void Store::upsert_best(std::int64_t id, const MeasurementRecord& m, bool only_if_faster,
                        const std::string& updated_at) {
  const Measurement& r = m.result;
  auto b = db_.prepare(
      std::string(
          "INSERT INTO best (device_id, kernel, m, n, k, precision, layout, trans_a, trans_b, "
          "batch, measurement_id, config, median_ms, gflops, kernel_gflops, updated_at) VALUES "
          "((SELECT id FROM devices WHERE key = ?), ?, ?,?,?,?,?,?,?,?, ?,?,?,?,?,?) "
          "ON CONFLICT (device_id, kernel, m, n, k, precision, layout, trans_a, trans_b, batch) "
          "DO UPDATE SET measurement_id = excluded.measurement_id, "
          "config = excluded.config, median_ms = excluded.median_ms, gflops = excluded.gflops, "
          "kernel_gflops = excluded.kernel_gflops, updated_at = excluded.updated_at") +
      (only_if_faster ? " WHERE excluded.median_ms < best.median_ms" : ""));
  b.bind(1, m.device_key).bind(2, m.kernel);
  bind_problem(b, 3, m.problem);
  b.bind(11, id).bind(12, m.config).bind(13, r.median_ms).bind(14, r.gflops);
  b.bind(15, std::isfinite(r.kernel_gflops) ? std::optional<double>(r.kernel_gflops) : std::nullopt)
      .bind(16, updated_at.empty() ? now_utc() : updated_at);
  b.run();
}

void Store::set_best(const MeasurementRecord& m) {
  sql::Transaction t(db_);
  put_best(m);
  t.commit();
}

void Store::put_best(const MeasurementRecord& m, const std::string& updated_at) {
  if (m.id <= 0 || m.result.status != Status::kOk || m.result.routine_ms.empty()) {
    throw UsageError("only a stored, timed Ok measurement can be a best");
  }
  upsert_best(m.id, m, false, updated_at);
}

std::vector<MeasurementRecord> Store::measurements(const std::string& device_key,
                                                   const GemmProblem& p,
                                                   const std::string& kernel) {
  auto s = db_.prepare(
      std::string("SELECT m.id, COALESCE(m.session_id, 0), m.kernel, m.config, m.status, "
                  "m.message, m.build_s, m.median_ms, m.min_ms, m.max_ms, m.kernel_median_ms, "
                  "m.gflops, m.kernel_gflops, m.max_error, m.samples, m.measured_at, "
                  "COALESCE(m.gbps, 0), COALESCE(m.other_load, -1) FROM measurements m "
                  "JOIN devices d ON d.id = m.device_id "
                  "WHERE d.key = ? AND ") +
      kProblemMatch + " AND (? = '' OR m.kernel = ?) ORDER BY m.id");
  s.bind(1, device_key);
  bind_problem(s, 2, p);
  s.bind(10, kernel).bind(11, kernel);
  std::vector<MeasurementRecord> out;
  while (s.step()) {
    MeasurementRecord r;
    r.id = s.integer(0), r.session_id = s.integer(1), r.kernel = s.text(2), r.config = s.text(3);
    r.device_key = device_key;
    r.problem = p;
    Measurement& x = r.result;
    x.status = parse_status(s.text(4)).value_or(Status::kCrashed);
    x.message = s.text(5);
    x.build_seconds = s.real(6);
    x.median_ms = s.real(7), x.min_ms = s.real(8), x.max_ms = s.real(9);
    x.kernel_median_ms = s.real(10), x.gflops = s.real(11), x.kernel_gflops = s.real(12);
    x.max_error = s.real(13);
    const auto samples = nlohmann::json::parse(s.text(14), nullptr, false);
    if (samples.is_object()) {
      x.routine_ms = samples.value("routine_ms", std::vector<double>{});
      x.kernel_ms = samples.value("kernel_ms", std::vector<double>{});
      x.kernel_wall_clock = samples.value("kernel_clock", "events") == "wall";
    }
    r.measured_at = s.text(15);
    x.gbps = s.real(16), x.other_load = s.real(17);
    out.push_back(std::move(r));
  }
  return out;
}

std::string placeholders(std::size_t n) {
  if (n == 0) return "NULL";  // matches nothing, binds nothing
  std::string s = "?";
  for (std::size_t i = 1; i < n; ++i) s += ", ?";
  return s;
}

std::optional<BestRecord> Store::best(const std::string& device_key, const GemmProblem& p,
                                      const std::string& kernel) {
  auto s = db_.prepare(
      std::string(
          "SELECT b.kernel, b.config, b.median_ms, b.gflops, COALESCE(b.kernel_gflops, 0), "
          "b.measurement_id, COALESCE(m.session_id, 0), b.updated_at, COALESCE(m.gbps, 0), "
          "COALESCE(m.other_load, -1), m.min_ms, m.max_ms, m.median_ms, m.samples FROM best b "
          "JOIN devices d ON d.id = b.device_id "
          "JOIN measurements m ON m.id = b.measurement_id WHERE d.key = ? AND b.") +
      "m = ? AND b.n = ? AND b.k = ? AND b.precision = ? AND b.layout = ? AND b.trans_a = ? "
      "AND b.trans_b = ? AND b.batch = ? AND (b.kernel = ? OR (? = '' AND b.kernel IN (" +
      placeholders(routine_kernels_.size()) + "))) ORDER BY b.median_ms LIMIT 1");
  s.bind(1, device_key);
  bind_problem(s, 2, p);
  s.bind(10, kernel).bind(11, kernel);
  for (std::size_t i = 0; i < routine_kernels_.size(); ++i)
    s.bind(int(12 + i), routine_kernels_[i]);
  if (!s.step()) return std::nullopt;
  BestRecord b;
  b.device_key = device_key;
  b.problem = p;
  b.kernel = s.text(0), b.config = s.text(1);
  b.median_ms = s.real(2), b.gflops = s.real(3), b.kernel_gflops = s.real(4);
  b.measurement_id = s.integer(5), b.session_id = s.integer(6), b.updated_at = s.text(7);
  b.gbps = s.real(8), b.other_load = s.real(9);
  if (!s.is_null(10) && !s.is_null(11) && !s.is_null(12) && s.real(12) > 0 &&
      routine_runs(s.text(13)) >= 2) {  // one run (an imported time) has no spread
    b.spread = (s.real(11) - s.real(10)) / s.real(12);
  }
  return b;
}

std::vector<Store::ShapeBest> Store::nearest_bests(const std::string& device_key,
                                                   const GemmProblem& p, std::size_t limit,
                                                   std::optional<Precision> in) {
  // Each shape's rows fastest first: its first row is the routine's best.
  auto s = db_.prepare(
      "SELECT b.kernel, b.config, b.m, b.n, b.k, b.batch FROM best b "
      "JOIN devices d ON d.id = b.device_id WHERE d.key = ? AND b.precision = ? AND b.layout = ? "
      "AND b.trans_a = ? AND b.trans_b = ? AND NOT (b.precision = ? AND b.m = ? AND b.n = ? AND "
      "b.k = ? AND b.batch = ?) AND b.kernel IN (" +
      placeholders(routine_kernels_.size()) + ") ORDER BY b.m, b.n, b.k, b.batch, b.median_ms");
  s.bind(1, device_key).bind(2, static_cast<int>(in.value_or(p.precision)));
  s.bind(3, layout_name(p.layout)).bind(4, p.trans_a).bind(5, p.trans_b);
  s.bind(6, static_cast<int>(p.precision)).bind(7, p.m).bind(8, p.n).bind(9, p.k);
  s.bind(10, p.batch);
  for (std::size_t i = 0; i < routine_kernels_.size(); ++i)
    s.bind(int(11 + i), routine_kernels_[i]);
  struct Shape {
    double distance;
    ShapeBest best;
  };
  std::vector<Shape> shapes;
  const LogShape target = LogShape::of(p);
  std::array<std::int64_t, 4> last{-1, -1, -1, -1};
  while (s.step()) {
    const std::array<std::int64_t, 4> dims{s.integer(2), s.integer(3), s.integer(4), s.integer(5)};
    if (dims == last) continue;
    last = dims;
    const double d = LogShape::of(std::size_t(dims[0]), std::size_t(dims[1]), std::size_t(dims[2]),
                                  std::size_t(dims[3]))
                         .distance2(target);
    GemmProblem there = p;
    there.precision = in.value_or(p.precision);
    there.m = std::size_t(dims[0]), there.n = std::size_t(dims[1]);
    there.k = std::size_t(dims[2]), there.batch = std::size_t(dims[3]);
    shapes.push_back({d, {s.text(0), s.text(1), there.flops()}});
  }
  std::stable_sort(shapes.begin(), shapes.end(),
                   [](const Shape& a, const Shape& b) { return a.distance < b.distance; });
  std::vector<ShapeBest> out;
  for (std::size_t i = 0; i < shapes.size() && i < limit; ++i) out.push_back(shapes[i].best);
  return out;
}

std::vector<std::pair<std::string, std::string>> Store::top_configs_elsewhere(
    const std::string& device_key, const GemmProblem& p, std::size_t limit) {
  auto s = db_.prepare(
      "SELECT m.kernel, m.config, MAX(m.gflops) AS g FROM measurements m "
      "JOIN devices d ON d.id = m.device_id WHERE d.key = ? AND m.precision = ? AND m.layout = ? "
      // Untimed rows left out: the backends sort NULL at opposite ends.
      "AND m.trans_a = ? AND m.trans_b = ? AND m.status = 'Ok' AND m.gflops IS NOT NULL AND "
      "NOT (m.m = ? AND m.n = ? AND m.k = ? AND m.batch = ?) AND m.kernel IN (" +
      placeholders(routine_kernels_.size()) +
      ") GROUP BY m.kernel, m.config ORDER BY g DESC LIMIT ?");
  s.bind(1, device_key).bind(2, static_cast<int>(p.precision)).bind(3, layout_name(p.layout));
  s.bind(4, p.trans_a).bind(5, p.trans_b).bind(6, p.m).bind(7, p.n).bind(8, p.k);
  s.bind(9, p.batch);
  int next = 10;
  for (const auto& k : routine_kernels_) s.bind(next++, k);
  s.bind(next, limit);
  std::vector<std::pair<std::string, std::string>> out;
  while (s.step()) out.emplace_back(s.text(0), s.text(1));
  return out;
}

}  // namespace mmtune
