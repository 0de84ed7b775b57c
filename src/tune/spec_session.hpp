// Tuning a user's kernel from a spec file (docs/spec.md) on the same engine as the GEMM families:
// its valid configurations become a search space for any strategy, each is measured in the
// supervised worker (build, verify, time), stored, and the fastest few are confirmed side by side
// with the spec's default configuration before one becomes the best.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "family/spec.hpp"
#include "mmtune/device.hpp"
#include "store/store.hpp"
#include "tune/stop.hpp"
#include "tune/tuner.hpp"

namespace mmtune {

// The stored problem of a spec's sizes: up to three, as m, n and k (1 where a spec has fewer).
GemmProblem spec_problem(const std::vector<long long>& sizes);

struct SpecTuneRequest {
  std::vector<long long> sizes;
  std::string strategy;                             // empty: default_strategy()
  std::map<std::string, double> strategy_settings;  // its options
  std::size_t budget = 0;                           // evaluations (0: the space and the time)
  double time_limit_s = 0;                          // 0: none
  std::uint64_t seed = 1;
  bool fresh = false;  // measure again what the store already holds
  // The `finalists` fastest configurations, the stored best and the spec's default measured
  // again side by side, `confirm_rounds` times; the fastest median round becomes the best.
  std::size_t finalists = 4, confirm_rounds = 3;
  std::string command_line;
};

struct SpecTuneSummary {
  std::int64_t session_id = 0;
  TuneOutcome outcome = TuneOutcome::kCompleted;
  std::string kernel;                       // spec_kernel_name()
  std::size_t space = 0;                    // valid configurations
  std::size_t evaluations = 0, reused = 0;  // measured in this session; taken from the store
  std::map<Status, std::size_t> by_status;
  std::optional<MeasurementRecord> best;            // the stored best after the confirmation
  std::optional<MeasurementRecord> default_config;  // the spec's default, as confirmed
  std::size_t worker_restarts = 0;
  std::size_t confirm_rounds = 0;  // rounds the confirmation ran (a time limit can end it early)
  double total_s = 0;
};

// Runs one session; variant failures are statuses, setup errors throw (UsageError when no
// configuration can run on the device).
SpecTuneSummary tune_spec(const Device& device, Store& store, const KernelSpec& spec,
                          const SpecTuneRequest& request, const TuneEnvironment& env,
                          const std::atomic<bool>& stop);

}  // namespace mmtune
