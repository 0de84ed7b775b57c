#include "tune/drift.hpp"

#include <algorithm>
#include <limits>

namespace mmtune {

void Drift::start(const KernelConfig& reference, double ms) {
  if (ms <= 0) return;
  reference_ = reference;
  reference_ms_ = best_ms_ = ms;
  factor_ = 1.0;
  since_retime_ = 0;
}

void Drift::reset() {
  reference_.reset();
  factor_ = 1.0;
  since_retime_ = 0;
}

double Drift::reference_now_ms() const {
  return reference_ ? reference_ms_ * factor_ : std::numeric_limits<double>::infinity();
}

double Drift::best_now_ms() const {
  return reference_ ? best_ms_ * factor_ : std::numeric_limits<double>::infinity();
}

void Drift::measured(std::optional<double> ms, bool ok) {
  if (!reference_) return;
  ++since_retime_;
  if (ok && ms && *ms > 0) best_ms_ = std::min(best_ms_, normalized(*ms));
}

void Drift::retimed(double ms) {
  if (!reference_ || ms <= 0) return;
  factor_ = ms / reference_ms_;
  since_retime_ = 0;
}

}  // namespace mmtune
