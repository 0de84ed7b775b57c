#include "tune/drift.hpp"

#include <limits>

namespace mmtune {

void Drift::start(const KernelConfig& reference, double ms) {
  if (ms <= 0) return;
  reference_ = reference;
  reference_ms_ = ms;
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

bool Drift::measured(std::optional<double> ms, bool ok) {
  if (!reference_) return false;
  ++since_retime_;
  return ok && ms && *ms > 0 && normalized(*ms) < (1.0 - margin_) * reference_ms_;
}

void Drift::retimed(double ms) {
  if (!reference_ || ms <= 0) return;
  factor_ = ms / reference_ms_;
  since_retime_ = 0;
}

bool Drift::paired(const KernelConfig& challenger, double reference_ms, double challenger_ms) {
  retimed(reference_ms);
  if (!reference_ || challenger_ms <= 0 || challenger_ms >= reference_ms) return false;
  reference_ = challenger;
  reference_ms_ = normalized(challenger_ms);
  return true;
}

}  // namespace mmtune
