// What one evaluation of a configuration yields, and how it is timed: plain values shared by the
// runner, the worker protocol, the store, strategies' replay and reports.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace mmtune {

struct TimingOptions {
  int warmup = 1;               // untimed runs after the verified one
  int min_reps = 3;             // timed runs at least...
  int max_reps = 15;            // ...and at most
  double stable_within = 0.03;  // stop once the median moved less than this between reps
  double max_seconds = 10.0;    // stop adding repetitions after this much timed work
  // When > 0: a variant whose first run (or first timed run) takes longer than this is clearly
  // slower than the best so far; it is timed no further (status SlowerEarlyStop).
  double early_stop_ms = 0.0;
  // When a verified first run alone already takes longer than max_seconds, it is the only
  // sample (for very slow baselines, where more runs would cost minutes and tell little).
  bool slow_first_run_suffices = false;

  // Build, run once and verify; no timing.
  static TimingOptions verify_only() { return {0, 0, 0, 0.0, 0.0, 0.0, false}; }
};

struct Measurement {
  Status status = Status::kOk;
  std::string message;   // why it failed (the build log for BuildFailed)
  int opencl_error = 0;  // the OpenCL error code a failed launch returned (0: none or unknown)
  double build_seconds = 0.0;
  double verify_seconds = 0.0;  // reading back and checking the result
  // The first run's time beyond a typical run's: one-time work of the implementation (PoCL
  // compiles the kernel for its work-group size at the first launch), cold caches.
  double first_run_extra_seconds = 0.0;
  std::vector<double> routine_ms;                      // samples: whole routine (copies + kernel)
  std::vector<double> kernel_ms;                       // samples: the GEMM kernel alone
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;  // of routine_ms
  double kernel_median_ms = 0.0;
  // How kernel_ms was timed: by the kernel's events, or (on a device whose event timestamps are
  // unusable) by the wall clock around a second, lone run of the kernel on a finished queue.
  bool kernel_wall_clock = false;
  double gflops = 0.0, kernel_gflops = 0.0;  // from the medians
  // Other processes' share of the machine's CPUs while it was measured (0 to 1, from /proc, over
  // at least the last half second); -1: unknown.
  double other_load = -1.0;
  double gbps = 0.0;  // whole-routine median GB/s, when the kernel's bytes are known (spec kernels)
  double max_error = 0.0;  // largest |C - reference|
};

// No memory or cache serves 1 ZB/s: a larger rate is a broken count or time, stored by no
// measurement and taken by no import.
inline constexpr double kMaxGbps = 1e12;

// What a strategy learns from a measurement: its median time when the variant was timed (Ok,
// or SlowerEarlyStop with the time of its one run), nothing when it failed. The tuner and the
// replay (replay.hpp) share this rule, so that a replay tells a strategy what a tuning run told it.
std::optional<double> observed_time(const Measurement& m);
// A first run stopped at a limit (a default far behind, a baseline's share) is a Timeout that
// keeps the limit as its time: a lower bound of the variant's time. Nothing for anything else.
std::optional<double> lower_bound_ms(const Measurement& m);
// The time of a correct, timed run: what a best, a finalist or an early stop may rest on. An Ok
// row may hold no time (an import of a verification alone).
std::optional<double> ok_time(const Measurement& m);

// The median of samples (0 for none).
double median(std::vector<double> v);
// The middle of ratios (0 for none); of an even count the geometric mean of the middle two, so
// that the ratios' reciprocals give exactly the reciprocal.
double median_ratio(std::vector<double> ratios);

// The timed repetitions of `timing`: `run` takes one sample and appends its time (ms) to
// `samples`; repeated until min_reps samples agree on a median within stable_within, max_seconds
// of samples or max_reps. Returns false when the first sample already exceeds early_stop_ms (the
// variant is clearly slower than the best: SlowerEarlyStop, timed no further).
bool repeat_timed(const TimingOptions& timing, const std::vector<double>& samples,
                  const std::function<void()>& run);

}  // namespace mmtune
