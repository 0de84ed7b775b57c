// Helpers the session's files share (session.cpp, session_search.cpp).
#pragma once

#include <optional>
#include <string>

#include "core/measurement.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "store/store.hpp"

namespace mmtune::session_detail {

// Timing for the search: enough repetitions for a stable median, few for clearly slow variants
// (an early stop at 1.5x `best_ms`, the best's time now; infinite: none).
TimingOptions search_timing(double best_ms);
bool is_searched(const std::optional<KernelConfig>& c);
// "tiled [MWG=64 ...] Ok 123.4 GFLOPS": a progress line.
std::string describe_result(const MeasurementRecord& r);

}  // namespace mmtune::session_detail
