// Tuning: turns a problem and a device into the best configuration found, measuring in a
// supervised worker process, searching with a strategy, and storing every measurement.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "mmtune/device.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "store/store.hpp"
#include "tune/stop.hpp"

namespace mmtune {

// The naive and classic baselines' share of a tune's time, together
// (TuneRequest::baseline_limit_s).
inline constexpr double kBaselinesShare = 0.05;
// Two finalists this close are a close call (TuneRequest::close_call).
inline constexpr double kCloseCall = 0.03;

struct TuneRequest {
  GemmProblem problem;
  std::vector<KernelKind> kernels = {KernelKind::kTiled, KernelKind::kDirect};
  // The families known by name (stored rows, the warm start); the worker (TuneEnvironment) must
  // know the same ones. Its searched families' bests are the routine's best.
  const FamilyRegistry* families = &FamilyRegistry::builtin();
  SpaceSize space = SpaceSize::kFull;
  std::string strategy;                             // empty: default_strategy()
  std::map<std::string, double> strategy_settings;  // its options (search/strategy.hpp)
  std::size_t budget = 0;   // evaluations (0: no limit but time and the space)
  double time_limit_s = 0;  // 0: none
  std::uint64_t seed = 1;
  bool fresh = false;     // measure again what the store already holds
  bool baselines = true;  // naive and classic kernels, once per device and problem
  // Each baseline's run limit; 0: half of kBaselinesShare of the tune's time so far, less the
  // worker's restart after a stopped run (at least 1 s), so both cost at most about 5 % of it.
  double baseline_limit_s = 0;
  // Confirmation after the search: the `finalists` fastest configurations (and each searched
  // kernel's stored best, its default configuration and the library's default for the device)
  // measured again side by side, `confirm_rounds` times; each kernel's best becomes its finalist
  // with the fastest median round, so a default that wins stays the best. With a time limit, the
  // search leaves this its estimated rounds (10-30 % of the limit); the first round runs even
  // past the limit, a further one only when it ends within it. 0: off.
  std::size_t finalists = 4, confirm_rounds = 3;
  // A close call after those rounds (a kernel's two fastest finalists within `close_call` of
  // each other, finalists.hpp) is measured again: the two alone, in turn, `head_to_head_rounds`
  // more rounds (each only when it ends within the time limit; the search leaves them time),
  // their median rounds then over all their rounds. 0: off.
  std::size_t head_to_head_rounds = 4;
  double close_call = kCloseCall;
  // Re-time a reference configuration during the search and compare times in the machine's
  // speed at its start (drift.hpp).
  bool drift = true;
  std::string command_line;  // recorded with the session
  // When set, the search runs over these configurations (of the requested kernels) instead of
  // the kernel's space: for small targeted searches and tests.
  std::optional<std::vector<KernelConfig>> candidates;
};

// How variants are evaluated.
struct TuneEnvironment {
  std::vector<std::string> worker_argv;  // the `mmtune worker` command
  std::string kernels_dir;               // empty: embedded kernels
  std::string program_dir;               // on-disk program cache
  std::string scratch_dir;               // private directory for the shared reference file
  std::size_t parallel_builds = 1;
  double build_limit_s = 300.0;     // per build in a batch
  double first_run_extra_s = 60.0;  // a variant's first run may include lazy compilation
};

struct TuneProgress {
  std::size_t done = 0, budget = 0, failed = 0;
  double elapsed_s = 0, time_limit_s = 0;
  double best_gflops = 0;
  std::size_t measured = 0;  // every measurement of the session (search, references, rounds)
  std::string last;          // the latest evaluation, one line
  std::string warning;       // set once per cause (e.g. a busy machine): for the user to see
};

struct TuneSummary {
  std::int64_t session_id = 0;
  TuneOutcome outcome = TuneOutcome::kCompleted;
  GemmProblem problem;
  std::optional<MeasurementRecord> best;  // fastest tiled/direct routine stored for the problem
  std::optional<MeasurementRecord> default_tiled, default_direct, naive, classic;
  // The consumer library's built-in choice for this device (lookup.hpp, default_parameters), as
  // measured in the confirmation; the defaults above are too, when they were confirmed.
  std::optional<MeasurementRecord> library_default;
  std::size_t evaluations = 0;  // measured in this session
  std::size_t reused = 0;       // taken from the store instead of measured again
  std::map<Status, std::size_t> by_status;
  std::size_t worker_restarts = 0;
  // Confirmation: finalists that ran Ok in every round, rounds, evaluations (in `evaluations`).
  std::size_t confirmed = 0, confirm_rounds = 0, confirm_evaluations = 0;
  // Close calls measured again head to head (TuneRequest::head_to_head_rounds), and their rounds
  // (in confirm_evaluations, two evaluations each).
  std::size_t close_calls = 0, head_to_head_rounds = 0;
  double startup_s = 0, build_s = 0, run_s = 0, verify_s = 0, search_s = 0, store_s = 0,
         total_s = 0;
  // Of run_s: the first runs' time beyond a typical run's (Measurement::first_run_extra_seconds),
  // mostly compiling where an implementation compiles at the first launch.
  double first_run_s = 0;
  // The naive and classic baselines: their wall time (not in startup_s) and the limit of each
  // one's runs (0: none measured).
  double baselines_s = 0, baseline_limit_s = 0;
  std::vector<double> best_gflops_by_evaluation;  // convergence of this session
  // Measurements taken while other processes used over kBusyShare of the CPUs, and the most
  // they used during one (-1: unknown, e.g. no /proc).
  std::size_t busy_measurements = 0;
  double max_other_load = -1;
  // The search's fastest single measurement of this session, before the confirmation.
  std::optional<MeasurementRecord> search_fastest;
  // The drift reference (drift.hpp): its re-timings, and the machine's slowest and fastest speed
  // relative to the search's start (2: twice as slow).
  std::size_t drift_evaluations = 0;
  double slowest = 1.0, fastest = 1.0;
};

// Runs one tuning session. Variant failures are recorded, never thrown; setup errors throw.
TuneSummary tune(const Device& device, Store& store, const TuneRequest& request,
                 const TuneEnvironment& env,
                 const std::function<void(const TuneProgress&)>& progress,
                 const std::atomic<bool>& stop);

}  // namespace mmtune
