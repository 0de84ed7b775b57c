// Recorded measurements -> the table `simulate` replays: one point per distinct configuration,
// with the time a tuning run would have told its strategy (observed_time, runner.hpp).
#pragma once

#include <optional>
#include <vector>

#include "core/measurement.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "search/strategy.hpp"
#include "store/store.hpp"

namespace mmtune {

struct ReplayTable {
  SearchSpace space;
  std::vector<std::optional<double>> times;  // per point of space
};

// The records of one kernel kind (all of one problem); a configuration measured more than once
// keeps its fastest time. Throws UsageError for a record of another kind or an invalid
// configuration.
ReplayTable replay_table(KernelKind kind, const std::vector<MeasurementRecord>& records);

}  // namespace mmtune
