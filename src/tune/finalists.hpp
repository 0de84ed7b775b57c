// The confirmation's pure steps: which configurations face each other again after the search,
// and which of them wins (tune/confirm.cpp runs the rounds).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mmtune/gemm_kernels.hpp"
#include "store/store.hpp"

namespace mmtune {

// A measurement the session knows of, with its configuration in typed form: parsed once where
// the row came from the store (nullopt for a row that does not parse), kept as measured otherwise.
struct KnownMeasurement {
  MeasurementRecord record;
  std::optional<KernelConfig> config;
  // The machine's slowdown when it was measured, relative to the search's start (drift.hpp; 1
  // for rows of earlier sessions): finalists are ranked by median_ms / slowdown.
  double slowdown = 1.0;
};
// What the store holds for a device and problem, by (kernel, canonical configuration text).
using KnownMeasurements = std::map<std::pair<std::string, std::string>, KnownMeasurement>;

// The configurations a confirmation measures again: the `count` fastest (normalized) timed Ok
// measurements of searched families, each kernel's stored best (which may be an older measurement,
// or one timed another way, and must face the others under the same conditions) and `always` (the
// defaults a user already has: the best must beat them side by side, or be one of them) except
// those measured more than kFarBehind times slower than the fastest (normalized).
constexpr double kFarBehind = 4.0;
// A searched kernel whose first kRetireAfter evaluations (or more) of a tune all ran that far
// behind stops searching (session_search.cpp): on a CPU the direct kernel's were 6-45x behind at
// 512-4096 and took a quarter of the evaluations.
constexpr std::size_t kRetireAfter = 4;
// Whether `m` was timed more than kFarBehind times slower than `fastest_ms` (both normalized),
// or timed out after a time (its lower bound) that far behind.
bool runs_far_behind(const KnownMeasurement& m, double fastest_ms);
// The fastest Ok measurement of a searched family, normalized (0: none).
double fastest_normalized_ms(const KnownMeasurements& known);
// Whether every measurement of `kind` in session `session_id`, at least kRetireAfter of them,
// failed or ran far behind the fastest: its search ends (session_search.cpp).
bool all_far_behind(const KnownMeasurements& known, KernelKind kind, std::int64_t session_id);
// The fastest Ok configurations of the tuned `kernels` (the store may hold others at this
// problem: a tune of one kernel neither confirms nor sets another's best), the stored bests and
// the defaults not far behind.
std::vector<KernelConfig> pick_finalists(const KnownMeasurements& known,
                                         const std::vector<KernelKind>& kernels,
                                         const std::vector<std::optional<BestRecord>>& bests,
                                         const std::vector<KernelConfig>& always, std::size_t count,
                                         const FamilyRegistry& families);

// Each finalist's median round, from its rounds (nullopt for a finalist that failed a round).
std::vector<std::optional<MeasurementRecord>> median_rounds(
    std::vector<std::vector<MeasurementRecord>> rounds);

// A kernel's two fastest finalists whose median rounds lie within `margin` of each other (0.03:
// 3 %), where a round more or less decides between them: they are measured again.
struct CloseCall {
  std::size_t leader = 0, runner_up = 0;  // indexes into the medians
};

// Each kernel's finalist with the fastest median round. A kernel with a close call `decided`
// head to head is decided between those two: the others were slower than both in the rounds
// measured side by side, and their fewer rounds, taken at another time while the machine's
// speed drifted, are no fair match for the two's.
std::map<std::string, MeasurementRecord> confirmed_bests(
    const std::vector<std::optional<MeasurementRecord>>& medians,
    const std::vector<CloseCall>& decided = {});
std::vector<CloseCall> close_calls(const std::vector<std::optional<MeasurementRecord>>& medians,
                                   double margin);

}  // namespace mmtune
