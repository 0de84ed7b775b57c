// The machine's speed drifts while a search runs: by up to a third within minutes on a shared
// CPU, and more when another process starts or stops. A search that compares a variant measured
// now with one measured minutes ago then ranks the machine, not the variants. Drift keeps a
// reference configuration (the incumbent), re-timed every few variants, and expresses times in
// the machine's speed when the reference was first measured; a challenger replaces the reference
// only after the two ran back to back (a paired comparison under the same conditions).
#pragma once

#include <cstddef>
#include <optional>

#include "mmtune/gemm_kernels.hpp"

namespace mmtune {

class Drift {
 public:
  // Re-time the reference after `every` measured variants; a variant whose normalized time
  // beats the reference's by more than `margin` (a fraction) challenges it.
  explicit Drift(std::size_t every = 8, double margin = 0.03) : every_(every), margin_(margin) {}

  // The first reference and its time now (> 0): the scale's origin (factor 1).
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

  // A searched variant measured now, timed at `ms` (nothing: it failed); `ok`: it ran Ok. Counts
  // towards the next re-timing; true when it challenges the reference.
  bool measured(std::optional<double> ms, bool ok);
  bool retime_due() const { return reference_ && since_retime_ >= every_; }
  // The reference re-timed alone.
  void retimed(double ms);
  // The reference re-timed (`reference_ms`) and the challenger timed again right after it
  // (`challenger_ms`); the challenger becomes the reference when it was faster. Its base is that
  // second time: the time it challenged with was the fastest of a batch, low by selection, and a
  // base that low makes every later re-timing read as the machine slowing down (each swap
  // compounded it: "the machine ran at 1% of its speed"). Returns whether it did.
  bool paired(const KernelConfig& challenger, double reference_ms, double challenger_ms);

 private:
  std::size_t every_;
  double margin_;
  std::optional<KernelConfig> reference_;
  double reference_ms_ = 0;  // normalized
  double factor_ = 1.0;
  std::size_t since_retime_ = 0;
};

}  // namespace mmtune
