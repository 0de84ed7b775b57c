// `--device all`: every device that can run a problem, grouped by hardware (hardware_group():
// all CPU devices share the host's cores). The groups are tuned at the same time, the devices of
// one group one after another, so that they never disturb each other's timings.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mmtune/device.hpp"
#include "mmtune/problem.hpp"
#include "store/store.hpp"
#include "tune/tuner.hpp"

namespace mmtune {

struct FleetPlan {
  std::map<std::string, std::vector<const Device*>> groups;    // by hardware group
  std::vector<std::pair<const Device*, std::string>> skipped;  // and why
  // Builds in parallel per worker: the host's threads shared among the groups.
  std::size_t parallel_builds() const;
};

// The devices among `candidates` that can run the problem (precision, memory), grouped; the
// others with the reason.
FleetPlan plan_fleet(const std::vector<const Device*>& candidates, const GemmProblem& problem);

struct FleetResult {
  const Device* device = nullptr;
  std::optional<TuneSummary> summary;  // absent when the tune failed or never started
  std::string error;
  int exit_code = 0;  // the failure's (Error::exit_code()), 0 without one
};

// One device's tune, on the thread's own store connection (the caller supplies the worker
// command, progress and stop flag).
using TuneOne = std::function<TuneSummary(const Device& device, Store& store)>;

// The time limit of `device`'s tune when the whole fleet has `limit_s` (0: none) and
// `elapsed_s` have passed: the groups run at the same time, each with the whole limit; within a
// group, what is left is shared among the devices not yet tuned, so that the command keeps to
// its limit (each device with a limit of its own took the limit once per device of its group).
double fleet_time_limit(const FleetPlan& plan, const Device& device, double limit_s,
                        double elapsed_s);

// Runs the plan (NoDeviceError when it has no device): a thread per group, each opening `db`
// for itself. Once `stop` is set, devices not yet started are left out ("not started:
// interrupted"); so are they after the database failed (a StorageError: a full disk, an I/O
// error, a lock held too long), which every later device would likely meet again. Results in plan
// order.
std::vector<FleetResult> tune_fleet(const FleetPlan& plan, const std::string& db,
                                    const std::atomic<bool>& stop, const TuneOne& tune_one);

}  // namespace mmtune
