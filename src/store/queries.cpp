#include "store/queries.hpp"

#include <algorithm>
#include <map>

#include "core/status.hpp"
#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "store/store_detail.hpp"

namespace mmtune::rows {

namespace {

// Library callers catch mmtune::Error: every read and write here translates the SQL layer's
// errors once, naming the database by its path, which holds no password.
template <class Body>
auto translated(Store& store, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const sql::Error& e) {
    throw_database_error(store.db().path(), e);
  }
}

}  // namespace

std::vector<Device> devices(Store& store) {
  return translated(store, [&] {
    auto s = store.db().prepare(
        "SELECT id, key, vendor, name, driver_version, platform, type, source, "
        "COALESCE(compute_units, 0), COALESCE(max_clock_mhz, 0), COALESCE(global_mem_bytes, 0) "
        "FROM devices ORDER BY id");
    std::vector<Device> out;
    while (s.step()) {
      Device d;
      d.id = s.integer(0), d.key = s.text(1), d.vendor = s.text(2), d.name = s.text(3);
      d.driver = s.text(4), d.platform = s.text(5), d.type = s.text(6), d.source = s.text(7);
      d.compute_units = s.integer(8), d.clock_mhz = s.integer(9), d.global_mem = s.integer(10);
      out.push_back(std::move(d));
    }
    return out;
  });
}

std::vector<Bench> bench(Store& store) {
  return translated(store, [&] {
    auto b = store.db().prepare(
        "SELECT b.id, d.key, b.run_id, b.subject, b.kernel, b.config, b.m, b.n, b.k, b.precision, "
        "b.layout, b.trans_a, b.trans_b, b.batch, b.status, b.note, b.median_ms, b.min_ms, "
        "b.max_ms, b.gflops, b.kernel_median_ms, b.kernel_gflops, b.measured_at "
        "FROM bench b JOIN devices d ON d.id = b.device_id ORDER BY b.id");
    std::vector<Bench> out;
    while (b.step()) {
      Bench r;
      r.id = b.integer(0), r.key = b.text(1);
      r.run_id = b.text(2), r.subject = b.text(3), r.kernel = b.text(4), r.config = b.text(5);
      r.p = read_problem(b, 6);
      r.status = b.text(14), r.note = b.text(15);
      r.median_ms = b.optional_real(16), r.min_ms = b.optional_real(17);
      r.max_ms = b.optional_real(18), r.gflops = b.optional_real(19);
      r.kernel_median_ms = b.optional_real(20), r.kernel_gflops = b.optional_real(21);
      r.measured_at = b.text(22);
      out.push_back(std::move(r));
    }
    return out;
  });
}

std::vector<Best> bests(Store& store) {
  return translated(store, [&] {
    auto t = store.db().prepare(
        "SELECT d.key, b.kernel, b.m, b.n, b.k, b.precision, b.layout, b.trans_a, b.trans_b, "
        "b.batch, b.measurement_id, b.config, b.median_ms, b.gflops, b.kernel_gflops, b.updated_at "
        "FROM best b JOIN devices d ON d.id = b.device_id "
        "ORDER BY d.id, b.precision, b.m, b.n, b.k, b.batch, b.kernel");
    std::vector<Best> out;
    while (t.step()) {
      Best r;
      r.key = t.text(0);
      r.kernel = t.text(1);
      r.p = read_problem(t, 2);
      r.measurement_id = t.integer(10), r.config = t.text(11);
      r.median_ms = t.real(12), r.gflops = t.real(13), r.kernel_gflops = t.optional_real(14);
      r.updated_at = t.text(15);
      out.push_back(std::move(r));
    }
    return out;
  });
}

std::vector<Meas> measurements(Store& store) {
  return translated(store, [&] {
    auto m = store.db().prepare(
        "SELECT m.id, COALESCE(m.session_id, 0), d.key, m.kernel, m.config, m.m, m.n, m.k, "
        "m.precision, m.layout, m.trans_a, m.trans_b, m.batch, m.status, m.message, m.build_s, "
        "m.median_ms, "
        "m.min_ms, m.max_ms, m.kernel_median_ms, m.gflops, m.kernel_gflops, m.max_error, "
        "m.measured_at, m.gbps, m.other_load, m.samples FROM measurements m JOIN devices d ON "
        "d.id = "
        "m.device_id "
        "ORDER BY m.id");
    std::vector<Meas> out;
    while (m.step()) {
      Meas r;
      r.id = m.integer(0), r.session_id = m.integer(1), r.key = m.text(2);
      r.kernel = m.text(3), r.config = m.text(4);
      r.p = read_problem(m, 5);
      r.status = m.text(13), r.message = m.text(14);
      r.build_s = m.optional_real(15), r.median_ms = m.optional_real(16);
      r.min_ms = m.optional_real(17), r.max_ms = m.optional_real(18);
      r.kernel_median_ms = m.optional_real(19), r.gflops = m.optional_real(20);
      r.kernel_gflops = m.optional_real(21), r.max_error = m.optional_real(22);
      r.measured_at = m.text(23), r.gbps = m.optional_real(24), r.other_load = m.optional_real(25);
      r.runs = routine_runs(m.text(26));
      out.push_back(std::move(r));
    }
    return out;
  });
}

std::vector<Session> sessions(Store& store) {
  return translated(store, [&] {
    auto s = store.db().prepare(
        "SELECT s.id, d.key, s.command_line, s.strategy, s.kernels, s.space, s.seed, s.budget, "
        "s.time_limit_s, s.m, s.n, s.k, s.precision, s.layout, s.trans_a, s.trans_b, s.batch, "
        "s.started_at, "
        "COALESCE(s.ended_at, ''), s.outcome, s.host, s.mmtune_version, COALESCE(s.pid, 0) "
        "FROM sessions s JOIN devices d ON d.id = s.device_id ORDER BY s.id");
    std::vector<Session> out;
    while (s.step()) {
      Session r;
      SessionRecord& x = r.r;
      x.id = s.integer(0), x.device_key = s.text(1);
      x.command_line = s.text(2), x.strategy = s.text(3), x.kernels = s.text(4);
      x.space = s.text(5), x.seed = std::uint64_t(s.integer(6));
      x.budget = std::size_t(s.integer(7)), x.time_limit_s = s.real(8);
      x.problem = read_problem(s, 9);
      x.started_at = s.text(17), x.ended_at = s.text(18), x.outcome = s.text(19);
      r.host = s.text(20), r.version = s.text(21);
      x.host = r.host, x.pid = s.integer(22);
      x.outcome = shown_outcome(x);
      out.push_back(std::move(r));
    }
    return out;
  });
}

std::vector<Roof> roofs(Store& store) {
  return translated(store, [&] {
    auto f = store.db().prepare(
        "SELECT d.key, r.precision, r.peak_gflops, r.bandwidth_gbs, r.measured_at "
        "FROM roofline r JOIN devices d ON d.id = r.device_id ORDER BY d.id, r.precision");
    std::vector<Roof> out;
    while (f.step()) {
      Roof r;
      r.key = f.text(0);
      r.precision = int(f.integer(1)), r.peak = f.real(2), r.bandwidth = f.real(3);
      r.measured_at = f.text(4);
      out.push_back(std::move(r));
    }
    return out;
  });
}

std::vector<Replay> replays(Store& store) {
  return translated(store, [&] {
    auto q = store.db().prepare(
        "SELECT r.id, d.key, r.kernel, r.m, r.n, r.k, r.precision, r.layout, r.trans_a, r.trans_b, "
        "r.batch, r.strategy, r.settings, r.configurations, r.seeds, r.budget, r.tolerance, "
        "r.reached, "
        "r.median_evaluations, r.random_expected, r.measured_at FROM replays r "
        "JOIN devices d ON d.id = r.device_id "
        "ORDER BY d.id, r.kernel, r.m, r.n, r.k, r.precision, r.layout, r.trans_a, r.trans_b, "
        "r.batch, r.strategy, r.settings");
    auto points = store.db().prepare(
        "SELECT evaluations, mean_fraction FROM replay_curve WHERE replay_id = ? "
        "ORDER BY evaluations");
    std::vector<Replay> out;
    while (q.step()) {
      Replay r;
      r.key = q.text(1), r.kernel = q.text(2);
      r.p = read_problem(q, 3);
      r.strategy = q.text(11), r.settings = q.text(12);
      r.configurations = q.integer(13), r.seeds = q.integer(14), r.budget = q.integer(15);
      r.tolerance = q.real(16), r.reached = q.integer(17);
      r.median_evaluations = q.real(18), r.random_expected = q.real(19);
      r.measured_at = q.text(20);
      points.reset();
      points.bind(1, q.integer(0));
      while (points.step()) r.curve.emplace_back(points.integer(0), points.real(1));
      out.push_back(std::move(r));
    }
    return out;
  });
}

std::vector<LookupBest> routine_bests(Store& store) {
  return translated(store, [&] {
    auto q = store.db().prepare(
        "SELECT d.key, d.vendor, d.type, d.name, d.platform, b.m, b.n, b.k, b.precision, b.layout, "
        "b.trans_a, b.trans_b, b.batch, b.kernel, b.config, b.median_ms, b.gflops, "
        "b.measurement_id "
        "FROM best b JOIN devices d ON d.id = b.device_id WHERE b.kernel IN (" +
        placeholders(store.routine_kernels().size()) + ") ORDER BY d.id");
    for (std::size_t i = 0; i < store.routine_kernels().size(); ++i)
      q.bind(int(1 + i), store.routine_kernels()[i]);
    std::vector<LookupBest> out;
    while (q.step()) {
      LookupBest b;
      b.key = q.text(0), b.vendor = q.text(1), b.type = q.text(2), b.name = q.text(3);
      b.platform = q.text(4);
      b.p = read_problem(q, 5);
      b.kernel = q.text(13), b.config = q.text(14);
      b.median_ms = q.real(15), b.gflops = q.real(16), b.measurement_id = q.integer(17);
      out.push_back(std::move(b));
    }
    return out;
  });
}

std::vector<SpecBest> spec_bests(Store& store, const std::string& name) {
  return translated(store, [&] {
    auto q = store.db().prepare(
        "SELECT d.key, d.vendor, d.type, d.name, d.platform, b.kernel, b.config, b.m, b.n, b.k, "
        "b.precision, b.layout, b.trans_a, b.trans_b, b.batch, b.median_ms, b.gflops, "
        "b.measurement_id, "
        "b.updated_at, m.gbps FROM best b JOIN devices d ON d.id = b.device_id "
        "LEFT JOIN measurements m ON m.id = b.measurement_id "
        // CAST: PostgreSQL has no substr(text, integer, bigint), the type of a bound integer.
        "WHERE substr(b.kernel, 1, CAST(? AS INTEGER)) = ? ORDER BY d.id, b.updated_at");
    const std::string prefix = "spec:" + name + ":";
    q.bind(1, std::int64_t(prefix.size())).bind(2, prefix);
    std::vector<SpecBest> out;
    while (q.step()) {
      SpecBest b;
      b.key = q.text(0), b.vendor = q.text(1), b.type = q.text(2), b.name = q.text(3);
      b.platform = q.text(4), b.kernel = q.text(5), b.config = q.text(6);
      b.p = read_problem(q, 7);
      b.median_ms = q.real(15), b.gflops = q.real(16), b.measurement_id = q.integer(17);
      b.updated_at = q.text(18), b.gbps = q.optional_real(19);
      out.push_back(std::move(b));
    }
    return out;
  });
}

void add_bench(Store& store, const Bench& r) {
  return translated(store, [&] {
    auto s = store.db().prepare(
        "INSERT INTO bench (device_id, run_id, subject, kernel, config, m, n, k, precision, "
        "layout, trans_a, trans_b, batch, status, note, median_ms, min_ms, max_ms, gflops, "
        "kernel_median_ms, kernel_gflops, measured_at) VALUES ((SELECT id FROM devices WHERE key = "
        "?), ?, ?, ?, ?, ?,?,?,?,?,?,?,?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, r.key).bind(2, r.run_id).bind(3, r.subject).bind(4, r.kernel).bind(5, r.config);
    bind_problem(s, 6, r.p);
    s.bind(14, r.status).bind(15, r.note).bind(16, r.median_ms).bind(17, r.min_ms);
    s.bind(18, r.max_ms).bind(19, r.gflops).bind(20, r.kernel_median_ms);
    s.bind(21, r.kernel_gflops).bind(22, r.measured_at.empty() ? now_utc() : r.measured_at);
    sql::Transaction t(store.db());
    s.run();
    t.commit();
  });
}

Roof put_roof(Store& store, const Roof& r, bool replace) {
  return translated(store, [&] {
    const char* const update =
        replace ? "peak_gflops = excluded.peak_gflops, bandwidth_gbs = excluded.bandwidth_gbs, "
                  "measured_at = excluded.measured_at"
                : "peak_gflops = CASE WHEN excluded.peak_gflops > roofline.peak_gflops "
                  "THEN excluded.peak_gflops ELSE roofline.peak_gflops END, "
                  "bandwidth_gbs = CASE WHEN excluded.bandwidth_gbs > roofline.bandwidth_gbs "
                  "THEN excluded.bandwidth_gbs ELSE roofline.bandwidth_gbs END, "
                  "measured_at = CASE WHEN excluded.peak_gflops > roofline.peak_gflops OR "
                  "excluded.bandwidth_gbs > roofline.bandwidth_gbs "
                  "THEN excluded.measured_at ELSE roofline.measured_at END";
    auto s = store.db().prepare(
        std::string("INSERT INTO roofline (device_id, precision, peak_gflops, bandwidth_gbs, "
                    "measured_at) VALUES ((SELECT id FROM devices WHERE key = ?), ?, ?, ?, ?) "
                    "ON CONFLICT (device_id, precision) DO UPDATE SET ") +
        update + " RETURNING peak_gflops, bandwidth_gbs, measured_at");
    s.bind(1, r.key).bind(2, r.precision).bind(3, r.peak);
    s.bind(4, r.bandwidth).bind(5, r.measured_at.empty() ? now_utc() : r.measured_at);
    sql::Transaction t(store.db());
    Roof stored = r;
    if (s.step()) {  // one row: the upsert's
      stored.peak = s.real(0), stored.bandwidth = s.real(1), stored.measured_at = s.text(2);
      s.run();  // SQLite commits only a statement stepped to its end
    }
    t.commit();
    return stored;
  });
}

void put_replay(Store& store, const Replay& r) {
  return translated(store, [&] {
    // The replays' key predates batches (its UNIQUE constraint has no batch column).
    if (r.p.batch != 1) throw UsageError("replays of a batched problem are not stored");
    sql::Transaction t(store.db());
    // The landscape's earlier replay with these settings goes, its curve first.
    const char* const where =
        "device_id = (SELECT id FROM devices WHERE key = ?) AND kernel = ? AND m = ? AND n = ? "
        "AND k = ? AND precision = ? AND layout = ? AND trans_a = ? AND trans_b = ? AND batch = ? "
        "AND strategy = ? AND settings = ?";
    const auto bind_key = [&](sql::Statement& s) {
      s.bind(1, r.key).bind(2, r.kernel);
      bind_problem(s, 3, r.p);
      s.bind(11, r.strategy).bind(12, r.settings);
    };
    auto old_curve = store.db().prepare(
        std::string("DELETE FROM replay_curve WHERE replay_id IN (SELECT id FROM replays WHERE ") +
        where + ")");
    bind_key(old_curve);
    old_curve.run();
    auto old = store.db().prepare(std::string("DELETE FROM replays WHERE ") + where);
    bind_key(old);
    old.run();
    auto add = store.db().prepare(
        "INSERT INTO replays (device_id, kernel, m, n, k, precision, layout, trans_a, trans_b, "
        "batch, strategy, settings, configurations, seeds, budget, tolerance, reached, "
        "median_evaluations, random_expected, measured_at) VALUES ((SELECT id FROM devices WHERE "
        "key = ?), ?, ?,?,?,?,?,?,?,?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    bind_key(add);
    add.bind(13, r.configurations).bind(14, r.seeds).bind(15, r.budget).bind(16, r.tolerance);
    add.bind(17, r.reached).bind(18, r.median_evaluations).bind(19, r.random_expected);
    add.bind(20, r.measured_at.empty() ? now_utc() : r.measured_at);
    add.run();
    const std::int64_t id = store.db().last_insert_id();
    auto point = store.db().prepare(
        "INSERT INTO replay_curve (replay_id, evaluations, mean_fraction) VALUES (?, ?, ?)");
    for (const auto& [evaluations, fraction] : r.curve) {
      point.reset();
      point.bind(1, id).bind(2, evaluations).bind(3, fraction);
      point.run();
    }
    t.commit();
  });
}

std::optional<GemmProblem> most_measured_problem(Store& store, const std::string& device_key,
                                                 const std::string& kernel) {
  return translated(store, [&]() -> std::optional<GemmProblem> {
    auto q = store.db().prepare(
        "SELECT m.m, m.n, m.k, m.precision, m.layout, m.trans_a, m.trans_b, m.batch "
        "FROM measurements m JOIN devices d ON d.id = m.device_id WHERE d.key = ? AND m.kernel = ? "
        "GROUP BY m.m, m.n, m.k, m.precision, m.layout, m.trans_a, m.trans_b, m.batch "
        "ORDER BY COUNT(*) DESC LIMIT 1");
    q.bind(1, device_key).bind(2, kernel);
    if (!q.step()) return std::nullopt;
    return read_problem(q, 0);
  });
}

std::string measured_hint(Store& store, const std::string& device_key, const std::string& kernel,
                          const GemmProblem* asked) {
  return translated(store, [&]() -> std::string {
    // A hint, not a listing (`mmtune history` has them all): the first few names.
    constexpr std::size_t kListed = 6;
    const auto add = [](std::string& list, std::size_t& count, const std::string& name) {
      if (count++ < kListed) list += (list.empty() ? "" : ", ") + name;
      if (count == kListed + 1) list += ", ...";
    };
    auto q = store.db().prepare(
        "SELECT DISTINCT m.kernel FROM measurements m JOIN devices d ON d.id = m.device_id "
        "WHERE d.key = ? ORDER BY m.kernel");
    q.bind(1, device_key);
    std::string kernels;
    std::size_t kernel_count = 0;
    bool found = false;
    // Without a kernel named, the routine picks among mmtune's own kernels: a recorded or user's
    // kernel's problems would be a contradictory hint ("no result for P; its measurements are of
    // P").
    const auto wanted = [&](const std::string& name) {
      return kernel.empty() ? parse_kernel_kind(name).has_value() : name == kernel;
    };
    while (q.step()) {
      const std::string name = q.text(0);
      found = found || wanted(name);
      add(kernels, kernel_count, name);
    }
    if (kernels.empty()) return "; it has no measurements";
    if (!found) {
      return "; it has measurements of " + kernels +
             (kernel.empty() ? " (name one with --kernel)" : "");
    }
    if (asked) {  // measured, yet no best: every run of it failed ("its measurements are of" it)
      auto f = store.db().prepare(
          "SELECT m.kernel, m.status FROM measurements m JOIN devices d ON d.id = m.device_id "
          "WHERE d.key = ? AND m.m = ? AND m.n = ? AND m.k = ? AND m.precision = ? AND "
          "m.layout = ? AND m.trans_a = ? AND m.trans_b = ? AND m.batch = ?");
      f.bind(1, device_key);
      bind_problem(f, 2, *asked);
      // The kernels a best is looked for among (Store::best): not the baselines, whose Ok runs
      // are no result of the routine.
      const auto& routine = store.routine_kernels();
      const auto searched = [&](const std::string& name) {
        return kernel.empty() ? std::find(routine.begin(), routine.end(), name) != routine.end()
                              : name == kernel;
      };
      std::map<std::string, std::size_t> statuses;
      std::size_t failed = 0;
      bool timed = false;  // a run with a time, yet no best: not "none ran correctly"
      while (f.step()) {
        if (!searched(f.text(0))) continue;
        const std::string status = f.text(1);
        timed = timed || status == to_string(Status::kOk) ||
                status == to_string(Status::kSlowerEarlyStop);
        ++statuses[status];
        ++failed;
      }
      if (failed > 0 && !timed) {
        std::string list;
        for (const auto& [status, n] : statuses) {
          list += (list.empty() ? "" : ", ") + status + " " + std::to_string(n);
        }
        return "; none of its " + std::to_string(failed) + " measurements of it ran correctly (" +
               list + ")";
      }
    }
    auto p = store.db().prepare(
        "SELECT DISTINCT m.m, m.n, m.k, m.precision, m.layout, m.trans_a, m.trans_b, m.batch, "
        "m.kernel FROM measurements m JOIN devices d ON d.id = m.device_id WHERE d.key = ? "
        "ORDER BY m.m, m.n, m.k, m.precision, m.layout, m.trans_a, m.trans_b, m.batch");
    p.bind(1, device_key);
    std::string problems, last;
    std::size_t problem_count = 0;
    while (p.step() && problem_count <= kListed) {
      if (!wanted(p.text(8))) continue;
      const std::string problem = describe(read_problem(p, 0));
      if (problem != last) add(problems, problem_count, problem);
      last = problem;
    }
    return "; its " + (kernel.empty() ? "" : kernel + " ") + "measurements are of " + problems;
  });
}

std::int64_t session_measurements(Store& store, std::int64_t session_id) {
  return translated(store, [&] {
    auto q = store.db().prepare("SELECT COUNT(*) FROM measurements WHERE session_id = ?");
    q.bind(1, session_id);
    q.step();
    return q.integer(0);
  });
}

Opt kernel_median_ms(Store& store, std::int64_t measurement_id) {
  return translated(store, [&]() -> Opt {
    auto q = store.db().prepare("SELECT kernel_median_ms FROM measurements WHERE id = ?");
    q.bind(1, measurement_id);
    if (!q.step() || q.is_null(0)) return std::nullopt;
    return q.real(0);
  });
}

}  // namespace mmtune::rows
