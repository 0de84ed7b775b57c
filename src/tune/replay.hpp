// Recorded measurements -> the table `simulate` replays: one point per distinct configuration,
// with the time a tuning run would have told its strategy (observed_time, runner.hpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
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

// A stored landscape ready to replay: a searched built-in family's, or a recorded kernel's
// (imported from another tuner), whose family is made from its stored texts and owned here.
struct Landscape {
  std::unique_ptr<KernelFamily> recorded;
  ReplayTable table{SearchSpace({}, {}), {}};
};
// The records of `kernel` (one problem). Throws UsageError for a reference kernel, no records
// of a recorded one, or records that do not parse.
Landscape load_landscape(const std::string& kernel, const std::vector<MeasurementRecord>& records);

}  // namespace mmtune
