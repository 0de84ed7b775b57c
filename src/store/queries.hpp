// Named queries over the tuning database for its readers and the other writers (report, bench,
// roofline, lookup, CLBlast export, the CLI): the SQL stays in store/, the callers get rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mmtune/problem.hpp"
#include "store/store.hpp"

namespace mmtune::rows {

using Opt = std::optional<double>;

struct Device {
  std::int64_t id = 0;
  std::string key, vendor, name, driver, platform, type, source;
  std::int64_t compute_units = 0, clock_mhz = 0, global_mem = 0;
  bool imported() const { return source.rfind("imported:", 0) == 0; }
};

// One subject of one `mmtune bench` run at one size.
struct Bench {
  std::int64_t id = 0;  // assigned by the database
  std::string key, run_id, subject, kernel, config;
  GemmProblem p;
  std::string status, note;
  Opt median_ms, min_ms, max_ms, gflops, kernel_median_ms, kernel_gflops;
  std::string measured_at;
};
// The note of a bench's "tuned" row on a device without tuned parameters: the report does not
// show such a row as tuned.
inline constexpr const char* kBuiltInDefaultsNote =
    "no tuned parameters stored for this device: built-in defaults";

struct Best {
  std::string key, kernel, config;
  GemmProblem p;
  std::int64_t measurement_id = 0;
  double median_ms = 0, gflops = 0;
  Opt kernel_gflops;
  std::string updated_at;
};

struct Meas {
  std::int64_t id = 0, session_id = 0;
  std::string key, kernel, config;
  GemmProblem p;
  std::string status, message;
  Opt build_s, median_ms, min_ms, max_ms, kernel_median_ms, gflops, kernel_gflops, max_error;
  Opt gbps;              // spec kernels that state their bytes
  Opt other_load;        // other processes' share of the CPUs while it was measured
  std::size_t runs = 0;  // timed runs of the routine (1: a single time, as files import)
  std::string measured_at;
  bool ok() const { return status == "Ok" && gflops.has_value(); }
};

struct Session {
  SessionRecord r;  // outcome as shown_outcome()
  std::string host, version;
};

struct Roof {
  std::string key;
  int precision = 0;
  double peak = 0, bandwidth = 0;
  std::string measured_at;
};

// One strategy replayed on a stored landscape (`mmtune simulate --curve --save`): the mean
// fraction of the optimum after each number of evaluations, over `seeds` runs.
struct Replay {
  std::string key, kernel;  // the landscape: device, kernel and problem
  GemmProblem p;
  std::string strategy, settings;  // settings: the strategy's options as NAME=VALUE, sorted
  std::int64_t configurations = 0, seeds = 0, budget = 0, reached = 0;
  double tolerance = 0.05, median_evaluations = 0, random_expected = 0;
  std::vector<std::pair<std::int64_t, double>> curve;  // (evaluations, mean fraction), ascending
  // Whether the median lies within the budget: more than half the runs reached the target
  // (the others count as budget + 1, an evaluation no run made).
  bool median_within_budget() const { return 2 * reached > seeds; }
  std::string measured_at;
};

// A stored best of the tiled or direct routine with the facts of its device that the consumer
// lookup compares (the configuration text is parsed by the caller, the outer door).
struct LookupBest {
  std::string key, vendor, type, name, platform;
  GemmProblem p;
  std::string kernel, config;
  double median_ms = 0, gflops = 0;
  std::int64_t measurement_id = 0;
};

// A stored best of a user's kernel (a spec, docs/spec.md) with its device's facts.
struct SpecBest {
  std::string key, vendor, type, name, platform;
  std::string kernel, config;  // kernel: "spec:NAME:HASH"
  GemmProblem p;               // the spec's sizes as m, n, k
  double median_ms = 0, gflops = 0;
  Opt gbps;  // when the spec states its bytes
  std::int64_t measurement_id = 0;
  std::string updated_at;
};

// Every row of a table, in database order (devices, bench and measurements by id; bests and
// roofs by device, then problem).
std::vector<Device> devices(Store& store);
std::vector<Bench> bench(Store& store);
std::vector<Best> bests(Store& store);
std::vector<Meas> measurements(Store& store);
std::vector<Session> sessions(Store& store);
std::vector<Roof> roofs(Store& store);
std::vector<Replay> replays(Store& store);  // by device, then kernel, problem and strategy
// Bests of every version (source hash) of the spec named `name`, by device.
std::vector<SpecBest> spec_bests(Store& store, const std::string& name);
// Bests of the tiled and direct kernels, grouped by device.
std::vector<LookupBest> routine_bests(Store& store);

// Appends a bench row (its device must be stored) and commits it.
void add_bench(Store& store, const Bench& row);
// Stores a device's roofs for a precision and commits. A roof is the fastest measured: a run on a
// busy machine (a third slower within minutes) does not lower it, or the report's shares of the
// peak pass 100 %. measured_at: when it last rose. `replace`: these roofs, whatever was stored.
// Returns the roofs stored after it.
Roof put_roof(Store& store, const Roof& roof, bool replace = false);
// Stores a replay (its device must be stored), replacing an earlier one of the same landscape,
// strategy and settings, and commits.
void put_replay(Store& store, const Replay& replay);

// The problem a device has the most measurements of for a kernel.
std::optional<GemmProblem> most_measured_problem(Store& store, const std::string& device_key,
                                                 const std::string& kernel);
// For an error about missing measurements of a kernel on a device, what to ask for instead:
// "; it has measurements of a, b" (other kernels), or "; its K measurements are of P, Q" (the
// problems it has, when it has some of `kernel`; of any kernel when `kernel` is empty). With the
// problem `asked` measured but never correctly: "; none of its N measurements of it ran
// correctly (WrongResult 13)".
std::string measured_hint(Store& store, const std::string& device_key, const std::string& kernel,
                          const GemmProblem* asked = nullptr);
std::int64_t session_measurements(Store& store, std::int64_t session_id);
// The kernel-alone median of a measurement, when it has one.
Opt kernel_median_ms(Store& store, std::int64_t measurement_id);

}  // namespace mmtune::rows
