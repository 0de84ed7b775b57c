// The machine's speed drifts while a search runs: by up to a third within minutes on a shared
// CPU, and more when another process starts or stops. A search that compares a variant measured
// now with one measured minutes ago then ranks the machine, not the variants. Drift keeps one
// reference configuration, re-timed every few variants, and expresses times in the machine's
// speed when the reference was first measured.
//
// The reference stays the same for the whole search. It used to change to each variant that
// beat it side by side, the new one's base taken from its own measurement: every change chained
// one more measurement's error into the factor, a random walk (on a 64^3 problem, whose runs vary
// 2-4x, a tune said the machine ran at 1% of its speed, another at 2052%). With one reference the
// factor is off by at most one re-timing's error.
#pragma once

#include <cstddef>
#include <optional>

#include "mmtune/gemm_kernels.hpp"

namespace mmtune {

class Drift {
 public:
  // Re-time the reference after `every` measured variants.
  explicit Drift(std::size_t every = 8) : every_(every) {}

  // The reference and its time now (> 0): the scale's origin (factor 1).
  void start(const KernelConfig& reference, double ms);
  // No reference (it failed when timed again): the next start() begins a new scale.
  void reset();
  bool has_reference() const { return reference_.has_value(); }
  const KernelConfig& reference() const { return *reference_; }
  // The machine's slowdown since the origin (2: runs take twice as long now).
  double factor() const { return factor_; }
  // A time measured now, in the origin's speed.
  double normalized(double ms) const { return ms / factor_; }
  // The reference's time now, as last seen (infinite without a reference).
  double reference_now_ms() const;
  // The fastest time seen since the origin (the reference's, or a searched variant's that ran
  // Ok), in the machine's speed now; infinite without a reference.
  double best_now_ms() const;

  // A searched variant measured now, timed at `ms` (nothing: it failed); `ok`: it ran Ok. Counts
  // towards the next re-timing.
  void measured(std::optional<double> ms, bool ok);
  bool retime_due() const { return reference_ && since_retime_ >= every_; }
  // The reference re-timed alone.
  void retimed(double ms);

 private:
  std::size_t every_;
  std::optional<KernelConfig> reference_;
  double reference_ms_ = 0;  // at the origin
  double best_ms_ = 0;       // normalized
  double factor_ = 1.0;
  std::size_t since_retime_ = 0;
};

}  // namespace mmtune
