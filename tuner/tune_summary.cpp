#include "tune_summary.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "core/cpu_load.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "mmtune/problem.hpp"
#include "store/sql.hpp"

namespace mmtune::cli {
namespace {

nlohmann::json record_json(const std::optional<MeasurementRecord>& r) {
  if (!r) return nullptr;
  nlohmann::json j = to_output_json(r->result);
  j["kernel"] = r->kernel;
  j["config"] = r->config;
  j["measurement_id"] = r->id;
  j["session_id"] = r->session_id;
  return j;
}

}  // namespace

nlohmann::json summary_json(const TuneSummary& s, const DeviceInfo& d) {
  nlohmann::json by_status = nlohmann::json::object();
  for (const auto& [st, n] : s.by_status) by_status[to_string(st)] = n;
  nlohmann::json j = {
      {"session_id", s.session_id},
      {"outcome", to_string(s.outcome)},
      {"device", {{"index", d.index}, {"name", d.name}, {"key", d.key}}},
      {"problem", to_json(s.problem)},
      {"best", record_json(s.best)},
      {"default_tiled", record_json(s.default_tiled)},
      {"default_direct", record_json(s.default_direct)},
      {"library_default", record_json(s.library_default)},
      {"naive", record_json(s.naive)},
      {"classic", record_json(s.classic)},
      {"evaluations", s.evaluations},
      {"reused", s.reused},
      {"by_status", by_status},
      {"worker_restarts", s.worker_restarts},
      {"busy_measurements", s.busy_measurements},
      {"drift",
       {{"evaluations", s.drift_evaluations}, {"slowest", s.slowest}, {"fastest", s.fastest}}},
      {"max_other_load",
       s.max_other_load >= 0 ? nlohmann::json(s.max_other_load) : nlohmann::json()},
      {"confirmed",
       {{"finalists", s.confirmed},
        {"rounds", s.confirm_rounds},
        {"evaluations", s.confirm_evaluations},
        {"close_calls", s.close_calls},
        {"head_to_head_rounds", s.head_to_head_rounds}}},
      {"seconds",
       {{"total", s.total_s},
        {"startup", s.startup_s},
        {"baselines", s.baselines_s},
        {"baseline_limit", s.baseline_limit_s},
        {"build", s.build_s},
        {"run", s.run_s},
        {"first_runs", s.first_run_s},
        {"verify", s.verify_s},
        {"search", s.search_s},
        {"store", s.store_s}}},
      {"best_gflops_by_evaluation", s.best_gflops_by_evaluation}};
  if (s.best) {
    const auto ratio = [&](const std::optional<MeasurementRecord>& r) -> nlohmann::json {
      const bool timed =
          r && (r->result.status == Status::kOk || r->result.status == Status::kSlowerEarlyStop);
      if (!timed || r->result.median_ms <= 0) return nullptr;
      return r->result.median_ms / s.best->result.median_ms;
    };
    // A reference whose first run was stopped (a baseline at its share of the tune, a default
    // far behind): the best is at least this much faster.
    const auto at_least = [&](const std::optional<MeasurementRecord>& r) -> nlohmann::json {
      // Stopped before the best's time, it says nothing of the speed-up (the text says so).
      if (!r || r->result.status != Status::kTimeout ||
          r->result.median_ms < s.best->result.median_ms) {
        return nullptr;
      }
      return r->result.median_ms / s.best->result.median_ms;
    };
    j["speedup_at_least"] = {{"default_tiled", at_least(s.default_tiled)},
                             {"default_direct", at_least(s.default_direct)},
                             {"library_default", at_least(s.library_default)},
                             {"naive", at_least(s.naive)},
                             {"classic", at_least(s.classic)}};
    j["speedup"] = {{"default_tiled", ratio(s.default_tiled)},
                    {"default_direct", ratio(s.default_direct)},
                    {"library_default", ratio(s.library_default)},
                    {"naive", ratio(s.naive)},
                    {"classic", ratio(s.classic)}};
  }
  return j;
}

void print_summary(const TuneSummary& s, const std::string& db) {
  std::printf("Tuned %s: %s (session %lld)\n", describe(s.problem).c_str(), to_string(s.outcome),
              static_cast<long long>(s.session_id));
  if (!s.best) {
    std::printf("No configuration completed correctly.\n");
  } else {
    const Measurement& b = s.best->result;
    std::printf("Best: %s [%s]\n", s.best->kernel.c_str(), s.best->config.c_str());
    if (b.kernel_median_ms <= 0) {  // a batch run one launch per item: no lone kernel
      std::printf(
          "  whole routine %.3f ms = %s GFLOPS; kernel alone not timed (a batch run one "
          "launch per item, or no GEMM kernel in the call)\n",
          b.median_ms, rate_text(b.gflops).c_str());
    } else {
      std::printf("  whole routine %.3f ms = %s GFLOPS; kernel alone %.3f ms = %s GFLOPS%s\n",
                  b.median_ms, rate_text(b.gflops).c_str(), b.kernel_median_ms,
                  rate_text(b.kernel_gflops).c_str(),
                  b.kernel_wall_clock
                      ? " (by wall clock around a lone run: this device's event timestamps are "
                        "unusable)"
                      : "");
    }
    const auto line = [&](const char* what, const std::optional<MeasurementRecord>& r) {
      if (!r) return;
      // A reference stopped early was still timed (at least once).
      if ((r->result.status == Status::kOk || r->result.status == Status::kSlowerEarlyStop) &&
          r->result.median_ms > 0) {
        // A best slower than a reference (a search too short to beat it) says so.
        const double x = r->result.median_ms / b.median_ms;
        std::printf("  %5.2fx %s than %s (%s GFLOPS)\n", x >= 1 ? x : 1 / x,
                    x >= 1 ? "faster" : "slower", what, rate_text(r->result.gflops).c_str());
      } else if (lower_bound_ms(r->result) && r->result.median_ms >= b.median_ms) {
        std::printf("  over %.2fx faster than %s (under %.2g GFLOPS: stopped after %.1f s)\n",
                    r->result.median_ms / b.median_ms, what, r->result.gflops,
                    r->result.median_ms / 1e3);
      } else if (lower_bound_ms(r->result)) {  // stopped before the best's time: no ratio
        std::printf("  %s: stopped after %.1f s, before it could be compared\n", what,
                    r->result.median_ms / 1e3);
      } else {
        std::printf("  %s: %s\n", what, to_string(r->result.status));
      }
    };
    line("the default tiled configuration", s.default_tiled);
    line("the default direct configuration", s.default_direct);
    line("the library's default for this device", s.library_default);
    line("the naive kernel", s.naive);
    line("the classic 16x16 kernel", s.classic);
  }
  std::string statuses;
  for (const auto& [st, n] : s.by_status) {
    statuses += (statuses.empty() ? "" : ", ") + std::to_string(n) + " " + to_string(st);
  }
  std::printf("Evaluations: %zu measured, %zu reused from the database%s%s; worker restarts: %zu\n",
              s.evaluations, s.reused, statuses.empty() ? "" : ": ", statuses.c_str(),
              s.worker_restarts);
  if (s.confirm_rounds > 0 && s.confirmed > 1) {  // one finalist is no comparison
    std::printf(
        "Confirmed: %zu finalists measured again side by side in %zu round%s; the best is "
        "the one with the fastest median round\n",
        s.confirmed, s.confirm_rounds, s.confirm_rounds == 1 ? "" : "s");
  }
  if (s.close_calls > 0) {
    std::printf(
        "Close calls: %zu, the two fastest finalists of a kernel within %.0f %% of each other, "
        "measured again head to head in %zu more round%s; the best is the faster median round "
        "of all their rounds\n",
        s.close_calls, 100 * kCloseCall, s.head_to_head_rounds,
        s.head_to_head_rounds == 1 ? "" : "s");
  }
  if (s.best && s.search_fastest && s.search_fastest->result.gflops > 1.1 * s.best->result.gflops) {
    // The search's figure and the stored one differ: say why rather than leave two numbers.
    std::printf(
        "Confirmation: the search's fastest single measurement was %s GFLOPS [%s]; side by "
        "side in the rounds the best ran at %s GFLOPS. One measurement on a drifting machine is "
        "partly luck; the confirmed figure is the one stored\n",
        rate_text(s.search_fastest->result.gflops).c_str(), s.search_fastest->config.c_str(),
        rate_text(s.best->result.gflops).c_str());
  }
  if (s.drift_evaluations > 0) {
    // "1 times" and "100%-100%" read as a template; a range that is one value is that value.
    const std::string times =
        s.drift_evaluations == 1 ? "once" : std::to_string(s.drift_evaluations) + " times";
    char speed[64];
    if (std::lround(100 / s.slowest) == std::lround(100 / s.fastest)) {
      std::snprintf(speed, sizeof speed, "%.0f%%", 100 / s.slowest);
    } else {
      std::snprintf(speed, sizeof speed, "%.0f%%-%.0f%%", 100 / s.slowest, 100 / s.fastest);
    }
    std::printf(
        "Drift: a reference configuration was timed again %s during the search (every few "
        "variants); the machine ran at %s of its speed at the start, and the search compared "
        "times in that speed\n",
        times.c_str(), speed);
  }
  if (s.busy_measurements > 0) {
    std::printf(
        "Busy machine: in %zu of %zu measurements other processes used over %.0f%% of the CPUs "
        "(up to %.0f%%); the figures above are lower and noisier than on an idle machine\n",
        s.busy_measurements, s.evaluations, 100 * kBusyShare, 100 * s.max_other_load);
  }
  std::printf(
      "Time: %.1f s total; building %.1f s, running %.1f s (%.1f s of it first runs' one-time "
      "work, such as compiling at the first launch), verifying %.1f s, searching %.2f s, storing "
      "%.2f s (defaults and start-up %.1f s; baselines %.1f s)\n",
      s.total_s, s.build_s, s.run_s, s.first_run_s, s.verify_s, s.search_s, s.store_s, s.startup_s,
      s.baselines_s);
  std::printf("Stored in %s\n", sql::redact_url(db).c_str());
}

}  // namespace mmtune::cli
