// Recorded measurements -> the table `simulate` replays: one point per distinct configuration,
// with the time a tuning run would have told its strategy.
#pragma once

#include <optional>
#include <vector>

#include "mmtune/gemm_kernels.hpp"
#include "mmtune/runner.hpp"
#include "mmtune/store.hpp"
#include "mmtune/strategy.hpp"

namespace mmtune {

// What a strategy learns from a measurement: its median time when the variant was timed (Ok,
// or SlowerEarlyStop with the time of its one run), nothing when it failed. The tuner and the
// replay share this rule, so that a replay tells a strategy what a tuning run told it.
std::optional<double> observed_time(const Measurement& m);

struct ReplayTable {
  SearchSpace space;
  std::vector<std::optional<double>> times;  // per point of space
};

// The records of one kernel kind (all of one problem); a configuration measured more than once
// keeps its fastest time. Throws UsageError for a record of another kind or an invalid
// configuration.
ReplayTable replay_table(KernelKind kind, const std::vector<MeasurementRecord>& records);

}  // namespace mmtune
