// Side-by-side benchmarks in one process and one run: the tuned routine, the kernel's default
// configuration, the naive and classic baselines, CLBlast (when built with it) and the host's
// BLAS (when built with it and the device is the host CPU). Every subject is verified against
// the CPU reference and timed the same way: wall clock from enqueue to completion (the whole
// routine), plus the GEMM kernel's own event time where that differs. mmtune's subjects, the
// device's multiply-add peak kernel ("fma-peak": the share of the peak a GEMM reaches, measured
// under the same conditions) and the host BLAS are timed in interleaved rounds
// (time_side_by_side).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mmtune/device.hpp"
#include "mmtune/lookup.hpp"
#include "mmtune/problem.hpp"
#include "store/store.hpp"

namespace mmtune {

struct BenchRow {
  // tuned, default, naive, classic, clblast, clblast-tuned, host-blas, fma-peak
  std::string subject;
  std::string kernel, config;
  std::string status;  // Ok, WrongResult, NotAvailable, Failed
  std::string note;    // e.g. where the tuned parameters came from
  GemmProblem problem;
  std::vector<double> samples_ms;
  // Per round of time_side_by_side, the median of the turn; empty when timed alone (no other
  // subject shares its rounds).
  std::vector<double> round_ms;
  double median_ms = 0, min_ms = 0, max_ms = 0, gflops = 0;
  double kernel_median_ms = 0, kernel_gflops = 0;  // 0 when not separately known
  double call_flops = 0;  // one call's operations where they are not the problem's (fma-peak)
  // Other processes' share of the CPUs while its rounds ran (core/cpu_load.hpp; none: not timed,
  // or /proc unreadable). Above kBusyShare its figures are likely low (the note says so); ratios
  // of subjects timed in the same rounds hold.
  std::optional<double> other_load;
  double flops() const { return call_flops > 0 ? call_flops : problem.flops(); }
};

// A GEMM's shape: C (m x n) = A (m x k) B (k x n).
struct GemmShape {
  std::size_t m = 0, n = 0, k = 0;
  static GemmShape square(std::size_t n) { return {n, n, n}; }
};

struct BenchOptions {
  std::vector<GemmShape> shapes;  // square and skinny problems alike
  // Multiplications per call (strided-batched, matrices back to back); the host BLAS runs them
  // in a loop, CLBlast as GemmStridedBatched.
  std::size_t batch = 1;
  Precision precision = Precision::kSingle;
  bool baselines = true;  // the naive and classic kernels (minutes per call at n = 4096)
  int min_rounds = 3, max_rounds = 10;
  double max_seconds = 3.0;  // per subject and size; a slow subject gets a single run
  // CLBlast Xgemm parameter sets (e.g. the bests of clblast_tuner_xgemm files), fastest first,
  // for a further subject, "clblast-tuned": CLBlast's routine after clblast::OverrideParameters
  // with the first set whose result verifies. Empty: not run.
  struct ClblastParameters {
    std::string source;  // shown in the row's note
    std::map<std::string, int> parameters;
  };
  std::vector<ClblastParameters> clblast_tuned;
  // Set (by an interrupt): no further shape is started; the rows measured are kept.
  const std::atomic<bool>* stop = nullptr;
};

// One subject while it is timed: its row (samples and statistics are filled in) and one complete
// call of it, returning the call's wall time and the GEMM kernel's own time in ms (0: unknown).
struct TimedSubject {
  BenchRow* row;
  std::function<std::pair<double, double>()> call;
};

// Times the subjects in rounds, one turn of each per round, so that a change in the machine's
// speed while they run (up to a third within minutes on a shared CPU) moves them all alike and
// their ratio stays fair. A turn is timed calls, back to back, until they add up to kTurnMs (one
// call of a slower subject) or number kMaxCallsPerTurn. The caller has made the untimed warm-up
// call; in later rounds a subject whose last call took under kWarmUpBelowMs is called once more,
// untimed, before its turn. A subject stops after max_rounds turns, or once it has min_rounds and
// max_seconds of timed calls; one whose first turn takes longer than max_seconds stops there.
inline constexpr double kWarmUpBelowMs = 250.0;
inline constexpr double kTurnMs = 10.0;
// A 1x1x1 call of 40 ns made 2.2 million samples (a 30 MB --json), and a clock that reads 0
// would never end the turn.
inline constexpr std::size_t kMaxCallsPerTurn = 1000;
void time_side_by_side(const std::vector<TimedSubject>& subjects, const BenchOptions& options);

// How many times a's GFLOPS b's are, paired by round: the median over the rounds both were timed
// in of the two rounds' ratio (for an even count, the geometric mean of the middle two, so that
// swapping a and b gives exactly the reciprocal). A drift of the machine's speed between rounds
// moves both sides of a round alike and drops out; a ratio of the two medians does not (1024^3
// on a 2-core Zen 5: calls of 6 ms in some rounds, 8-11 in others).
// Without a shared round (a subject timed on its own, as CLBlast is), the ratio of the medians.
struct GflopsRatio {
  double value = 0;     // 0: either side has no time
  bool paired = false;  // from shared rounds
};
GflopsRatio gflops_ratio(const BenchRow& a, const BenchRow& b);

// Throws NoDeviceError when the device lacks the precision, UsageError when a shape has a 0 or is
// too large for it: run_bench's first step, and what a caller checks before opening a database.
void check_bench_options(const Device& device, const BenchOptions& options);

// Runs every subject for every shape; rows are also stored in the `bench` table under one run id.
std::vector<BenchRow> run_bench(const Device& device, Store& store, const ParameterLookup& lookup,
                                const BenchOptions& options,
                                const std::function<void(const BenchRow&)>& progress = {});

// Optional comparison libraries compiled into this build.
bool have_clblast();
bool have_host_blas();
// Why the host BLAS is not a fair baseline on this machine (OpenBLAS on generic kernels), or empty.
std::string host_blas_warning();

}  // namespace mmtune
