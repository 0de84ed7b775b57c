// Evaluates configurations on one device for one problem: uploads seeded operands, computes the
// CPU reference once, then for each configuration builds, runs, verifies and times it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mmtune/calibration.hpp"
#include "mmtune/cl.hpp"
#include "mmtune/device.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/gemm_routine.hpp"
#include "mmtune/host_data.hpp"
#include "mmtune/kernel_source.hpp"
#include "mmtune/problem.hpp"
#include "mmtune/program_cache.hpp"
#include "mmtune/reference.hpp"
#include "mmtune/status.hpp"

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
  std::string message;  // why it failed (the build log for BuildFailed)
  double build_seconds = 0.0;
  double verify_seconds = 0.0;                         // reading back and checking the result
  std::vector<double> routine_ms;                      // samples: whole routine (copies + kernel)
  std::vector<double> kernel_ms;                       // samples: the GEMM kernel alone
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;  // of routine_ms
  double kernel_median_ms = 0.0;
  // How kernel_ms was timed: by the kernel's events, or (on a device whose event timestamps are
  // unusable) by the wall clock around a second, lone run of the kernel on a finished queue.
  bool kernel_wall_clock = false;
  double gflops = 0.0, kernel_gflops = 0.0;  // from the medians
  double max_error = 0.0;                    // largest |C - reference|
};

// What a strategy learns from a measurement: its median time when the variant was timed (Ok,
// or SlowerEarlyStop with the time of its one run), nothing when it failed. The tuner and the
// replay (replay.hpp) share this rule, so that a replay tells a strategy what a tuning run told it.
std::optional<double> observed_time(const Measurement& m);

class Runner {
 public:
  // `program_dir`: where program binaries are cached on disk (empty: memory only).
  Runner(const Device& device, const KernelSources& sources, const std::string& program_dir = "");

  // Uploads operands made from `seed` and computes the reference; calibrates the device for the
  // problem's precision (calibration.hpp) unless that was done. Throws UsageError when the
  // problem is malformed or does not fit the device. With `reference_file`, the reference is
  // read from that file when it exists (written by an earlier process for the same problem and
  // seed) and written to it otherwise.
  void set_problem(const GemmProblem& problem, std::uint64_t seed = 1,
                   const std::string& reference_file = "");
  const GemmProblem& problem() const { return problem_; }

  // Builds what a configuration needs (thread-safe; used to build batches in parallel).
  GemmRoutine::Prepared prepare(const KernelConfig& config);

  // Never throws for a failure of the variant itself: see Measurement::status. `on_run` is
  // called after every completed run (a heartbeat for supervisors).
  Measurement evaluate(const KernelConfig& config, const TimingOptions& timing = {},
                       const std::function<void()>& on_run = {});

  ProgramCache& cache() { return cache_; }
  const DeviceInfo& device() const { return device_; }
  const Calibration& calibration() const { return calibration_; }
  // Replaces the current precision's calibration with figures the caller knows better (a device
  // measured elsewhere; tests that need a particular clock or peak). Call after set_problem().
  void assume_calibration(const Calibration& c) { calibration_ = c; }

 private:
  void reset_c();

  DeviceInfo device_;
  const KernelSources& sources_;
  std::string program_dir_;
  cl::Context context_;
  cl::CommandQueue queue_;
  ProgramCache cache_;
  GemmRoutine routine_;
  std::optional<Precision> calibrated_;
  Calibration calibration_;
  GemmProblem problem_;
  Operands operands_;
  Reference reference_;
  cl::Buffer a_, b_, c_;
};

}  // namespace mmtune
