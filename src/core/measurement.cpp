#include "core/measurement.hpp"

namespace mmtune {

std::optional<double> observed_time(const Measurement& m) {
  const bool timed = m.status == Status::kOk || m.status == Status::kSlowerEarlyStop;
  if (timed && !m.routine_ms.empty() && m.median_ms > 0) return m.median_ms;
  return std::nullopt;
}

}  // namespace mmtune
