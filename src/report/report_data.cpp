#include "report/report_data.hpp"

#include <cctype>
#include <set>

#include "mmtune/error.hpp"

namespace mmtune::report_detail {

namespace {

std::vector<DeviceRow> read_devices(Store& store) {
  auto s = store.db().prepare(
      "SELECT id, key, vendor, name, driver_version, platform, type, source, "
      "COALESCE(compute_units, 0), COALESCE(max_clock_mhz, 0), COALESCE(global_mem_bytes, 0) "
      "FROM devices ORDER BY id");
  std::vector<DeviceRow> out;
  while (s.step()) {
    DeviceRow d;
    d.id = s.integer(0), d.key = s.text(1), d.vendor = s.text(2), d.name = s.text(3);
    d.driver = s.text(4), d.platform = s.text(5), d.type = s.text(6), d.source = s.text(7);
    d.compute_units = s.integer(8), d.clock_mhz = s.integer(9), d.global_mem = s.integer(10);
    out.push_back(std::move(d));
  }
  return out;
}

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
  data.db_path = store.db().path();
  data.devices = select_devices(read_devices(store), options.devices);
  std::set<std::string> keys;
  for (const auto& d : data.devices) keys.insert(d.key);
  auto& db = store.db();

  auto b = db.prepare(
      "SELECT b.id, d.key, b.run_id, b.subject, b.kernel, b.config, b.m, b.n, b.k, b.precision, "
      "b.layout, b.trans_a, b.trans_b, b.status, b.note, b.median_ms, b.min_ms, b.max_ms, "
      "b.gflops, b.kernel_median_ms, b.kernel_gflops, b.measured_at "
      "FROM bench b JOIN devices d ON d.id = b.device_id ORDER BY b.id");
  while (b.step()) {
    BenchRow r;
    r.id = b.integer(0), r.key = b.text(1);
    if (!keys.count(r.key)) continue;
    r.run_id = b.text(2), r.subject = b.text(3), r.kernel = b.text(4), r.config = b.text(5);
    r.p = read_problem(b, 6);
    r.status = b.text(13), r.note = b.text(14);
    r.median_ms = b.optional_real(15), r.min_ms = b.optional_real(16);
    r.max_ms = b.optional_real(17), r.gflops = b.optional_real(18);
    r.kernel_median_ms = b.optional_real(19), r.kernel_gflops = b.optional_real(20);
    r.measured_at = b.text(21);
    data.bench.push_back(std::move(r));
  }

  auto t = db.prepare(
      "SELECT d.key, b.kernel, b.m, b.n, b.k, b.precision, b.layout, b.trans_a, b.trans_b, "
      "b.measurement_id, b.config, b.median_ms, b.gflops, b.kernel_gflops, b.updated_at "
      "FROM best b JOIN devices d ON d.id = b.device_id "
      "ORDER BY d.id, b.precision, b.m, b.n, b.k, b.kernel");
  while (t.step()) {
    BestRow r;
    r.key = t.text(0);
    if (!keys.count(r.key)) continue;
    r.kernel = t.text(1);
    r.p = read_problem(t, 2);
    r.measurement_id = t.integer(9), r.config = t.text(10);
    r.median_ms = t.real(11), r.gflops = t.real(12), r.kernel_gflops = t.optional_real(13);
    r.updated_at = t.text(14);
    data.best.push_back(std::move(r));
  }

  auto m = db.prepare(
      "SELECT m.id, COALESCE(m.session_id, 0), d.key, m.kernel, m.config, m.m, m.n, m.k, "
      "m.precision, m.layout, m.trans_a, m.trans_b, m.status, m.message, m.build_s, m.median_ms, "
      "m.min_ms, m.max_ms, m.kernel_median_ms, m.gflops, m.kernel_gflops, m.max_error, "
      "m.measured_at FROM measurements m JOIN devices d ON d.id = m.device_id ORDER BY m.id");
  while (m.step()) {
    MeasRow r;
    r.id = m.integer(0), r.session_id = m.integer(1), r.key = m.text(2);
    if (!keys.count(r.key)) continue;
    r.kernel = m.text(3), r.config = m.text(4);
    r.p = read_problem(m, 5);
    r.status = m.text(12), r.message = m.text(13);
    r.build_s = m.optional_real(14), r.median_ms = m.optional_real(15);
    r.min_ms = m.optional_real(16), r.max_ms = m.optional_real(17);
    r.kernel_median_ms = m.optional_real(18), r.gflops = m.optional_real(19);
    r.kernel_gflops = m.optional_real(20), r.max_error = m.optional_real(21);
    r.measured_at = m.text(22);
    data.meas.push_back(std::move(r));
  }

  auto s = db.prepare(
      "SELECT s.id, d.key, s.command_line, s.strategy, s.kernels, s.space, s.seed, s.budget, "
      "s.time_limit_s, s.m, s.n, s.k, s.precision, s.layout, s.trans_a, s.trans_b, s.started_at, "
      "COALESCE(s.ended_at, ''), s.outcome, s.host, s.mmtune_version, COALESCE(s.pid, 0) "
      "FROM sessions s JOIN devices d ON d.id = s.device_id ORDER BY s.id");
  while (s.step()) {
    SessionRow r;
    SessionRecord& x = r.r;
    x.id = s.integer(0), x.device_key = s.text(1);
    if (!keys.count(x.device_key)) continue;
    x.command_line = s.text(2), x.strategy = s.text(3), x.kernels = s.text(4);
    x.space = s.text(5), x.seed = std::uint64_t(s.integer(6));
    x.budget = std::size_t(s.integer(7)), x.time_limit_s = s.real(8);
    x.problem = read_problem(s, 9);
    x.started_at = s.text(16), x.ended_at = s.text(17), x.outcome = s.text(18);
    r.host = s.text(19), r.version = s.text(20);
    x.host = r.host, x.pid = s.integer(21);
    x.outcome = shown_outcome(x);
    data.sessions.push_back(std::move(r));
  }

  auto f = db.prepare(
      "SELECT d.key, r.precision, r.peak_gflops, r.bandwidth_gbs, r.measured_at "
      "FROM roofline r JOIN devices d ON d.id = r.device_id ORDER BY d.id, r.precision");
  while (f.step()) {
    RoofRow r;
    r.key = f.text(0);
    if (!keys.count(r.key)) continue;
    r.precision = int(f.integer(1)), r.peak = f.real(2), r.bandwidth = f.real(3);
    r.measured_at = f.text(4);
    data.roof.push_back(std::move(r));
  }
  return data;
}

}  // namespace mmtune::report_detail
