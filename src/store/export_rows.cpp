#include "store/export_rows.hpp"

#include "mmtune/gemm_kernels.hpp"

namespace mmtune::rows {
namespace {

using json = nlohmann::json;

const char* layout_name(Layout l) {
  return l == Layout::kRowMajor ? "row" : "col";
}

json problem_json(const GemmProblem& p) {
  return {{"m", p.m},
          {"n", p.n},
          {"k", p.k},
          {"precision", static_cast<int>(p.precision)},
          {"layout", layout_name(p.layout)},
          {"trans_a", p.trans_a},
          {"trans_b", p.trans_b},
          {"batch", p.batch}};
}

json nullable_real(const sql::Statement& s, int col) {
  return s.is_null(col) ? json(nullptr) : json(s.real(col));
}

// Only the numbers of a stored sample list (a damaged row exports as empty lists).
std::vector<double> samples_of(const json& samples, const char* key) {
  std::vector<double> out;
  if (!samples.is_object() || !samples.contains(key) || !samples[key].is_array()) return out;
  for (const auto& v : samples[key]) {
    if (v.is_number()) out.push_back(v.get<double>());
  }
  return out;
}

}  // namespace

json export_devices(Store& store, const std::string& device_key) {
  auto& db = store.db();
  json out = json::array();
  auto d = db.prepare(
      "SELECT key, vendor, name, driver_version, platform, platform_version, device_version, "
      "opencl_c_version, type, COALESCE(compute_units, 0), COALESCE(max_clock_mhz, 0), "
      "COALESCE(global_mem_bytes, 0), COALESCE(local_mem_bytes, 0), "
      "COALESCE(max_work_group_size, 0), source FROM devices WHERE (? = '' OR key = ?) "
      "ORDER BY id");
  d.bind(1, device_key).bind(2, device_key);
  while (d.step()) {
    out.push_back({{"key", d.text(0)},
                   {"vendor", d.text(1)},
                   {"name", d.text(2)},
                   {"driver_version", d.text(3)},
                   {"platform", d.text(4)},
                   {"platform_version", d.text(5)},
                   {"device_version", d.text(6)},
                   {"opencl_c_version", d.text(7)},
                   {"type", d.text(8)},
                   {"compute_units", d.integer(9)},
                   {"max_clock_mhz", d.integer(10)},
                   {"global_mem_bytes", d.integer(11)},
                   {"local_mem_bytes", d.integer(12)},
                   {"max_work_group_size", d.integer(13)},
                   {"source", d.text(14)}});
  }
  return out;
}

json export_sessions(Store& store, const std::string& device_key) {
  auto& db = store.db();
  json out = json::array();
  auto s = db.prepare(
      "SELECT s.id, d.key, command_line, strategy, kernels, space, seed, budget, time_limit_s, "
      "m, n, k, precision, layout, trans_a, trans_b, batch, started_at, ended_at, outcome, host, "
      "mmtune_version FROM sessions s JOIN devices d ON d.id = s.device_id WHERE (? = '' OR d.key "
      "= ?) "
      "ORDER BY s.id");
  s.bind(1, device_key).bind(2, device_key);
  while (s.step()) {
    out.push_back({{"id", s.integer(0)},
                   {"device_key", s.text(1)},
                   {"command_line", s.text(2)},
                   {"strategy", s.text(3)},
                   {"kernels", s.text(4)},
                   {"space", s.text(5)},
                   {"seed", std::uint64_t(s.integer(6))},
                   {"budget", s.integer(7)},
                   {"time_limit_s", s.real(8)},
                   {"problem", problem_json(read_problem(s, 9))},
                   {"started_at", s.text(17)},
                   {"ended_at", s.is_null(18) ? json(nullptr) : json(s.text(18))},
                   {"outcome", s.text(19)},
                   {"host", s.text(20)},
                   {"mmtune_version", s.text(21)}});
  }
  return out;
}

json export_measurements(Store& store, const std::string& device_key) {
  auto& db = store.db();
  json out = json::array();
  auto m = db.prepare(
      "SELECT m.id, m.session_id, d.key, kernel, config, m, n, k, precision, layout, trans_a, "
      "trans_b, batch, status, message, build_s, median_ms, min_ms, max_ms, kernel_median_ms, "
      "gflops, "
      "kernel_gflops, max_error, samples, measured_at, gbps, other_load FROM measurements m "
      "JOIN devices d ON d.id = m.device_id WHERE (? = '' OR d.key = ?) ORDER BY m.id");
  m.bind(1, device_key).bind(2, device_key);
  while (m.step()) {
    const json samples = json::parse(m.text(23), nullptr, /*allow_exceptions=*/false);
    json& row =
        out.emplace_back(json{{"id", m.integer(0)},
                              {"session", m.is_null(1) ? json(nullptr) : json(m.integer(1))},
                              {"device_key", m.text(2)},
                              {"kernel", m.text(3)},
                              {"config", m.text(4)},
                              {"problem", problem_json(read_problem(m, 5))},
                              {"status", m.text(13)},
                              {"message", m.text(14)},
                              {"build_s", m.is_null(15) ? 0.0 : m.real(15)},
                              {"median_ms", nullable_real(m, 16)},
                              {"min_ms", nullable_real(m, 17)},
                              {"max_ms", nullable_real(m, 18)},
                              {"kernel_median_ms", nullable_real(m, 19)},
                              {"gflops", nullable_real(m, 20)},
                              {"kernel_gflops", nullable_real(m, 21)},
                              {"gbps", nullable_real(m, 25)},
                              {"other_load", nullable_real(m, 26)},
                              {"max_error", nullable_real(m, 22)},
                              {"routine_ms", samples_of(samples, "routine_ms")},
                              {"kernel_ms", samples_of(samples, "kernel_ms")},
                              {"measured_at", m.text(24)}});
    // Kernel times by the host's clock (unusable event timestamps); absent: event times.
    if (samples.is_object() && samples.value("kernel_clock", "") == "wall") {
      row["kernel_clock"] = "wall";
    }
  }
  return out;
}

json export_bests(Store& store, const std::string& device_key) {
  auto& db = store.db();
  json out = json::array();
  auto b = db.prepare(
      "SELECT d.key, b.kernel, b.m, b.n, b.k, b.precision, b.layout, b.trans_a, b.trans_b, "
      "b.batch, b.config, b.median_ms, b.gflops, b.kernel_gflops, b.measurement_id, b.updated_at "
      "FROM best b JOIN devices d ON d.id = b.device_id WHERE (? = '' OR d.key = ?) "
      "ORDER BY d.id, b.kernel, b.m, b.n, b.k, b.precision, b.layout, b.trans_a, b.trans_b, "
      "b.batch");
  b.bind(1, device_key).bind(2, device_key);
  while (b.step()) {
    out.push_back({{"device_key", b.text(0)},
                   {"kernel", b.text(1)},
                   {"problem", problem_json(read_problem(b, 2))},
                   {"config", b.text(10)},
                   {"median_ms", b.real(11)},
                   {"gflops", b.real(12)},
                   {"kernel_gflops", nullable_real(b, 13)},
                   {"measurement", b.integer(14)},
                   {"updated_at", b.text(15)}});
  }
  return out;
}

std::vector<HeaderBest> header_bests(Store& store, const std::string& device_key) {
  auto b = store.db().prepare(
      "SELECT d.key, d.vendor, d.name, b.kernel, b.m, b.n, b.k, b.precision, b.layout, "
      "b.trans_a, b.trans_b, b.batch, b.config, b.gflops, b.median_ms FROM best b JOIN devices d "
      "ON d.id = "
      "b.device_id WHERE (? = '' OR d.key = ?) "
      "ORDER BY d.key, b.kernel, b.m, b.n, b.k, b.precision, b.layout, b.trans_a, b.trans_b, "
      "b.batch");
  b.bind(1, device_key).bind(2, device_key);
  std::vector<HeaderBest> out;
  while (b.step()) {
    HeaderBest h;
    h.key = b.text(0), h.vendor = b.text(1), h.name = b.text(2), h.kernel = b.text(3);
    h.p = read_problem(b, 4);
    h.config = b.text(12), h.gflops = b.real(13), h.median_ms = b.real(14);
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<std::string> device_keys(Store& store) {
  auto q = store.db().prepare("SELECT key FROM devices ORDER BY id");
  std::vector<std::string> keys;
  while (q.step()) keys.push_back(q.text(0));
  return keys;
}

}  // namespace mmtune::rows
