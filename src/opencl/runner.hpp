// Evaluates configurations on one device for one problem: uploads seeded operands, computes the
// CPU reference once, then for each configuration builds, runs, verifies and times it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "core/status.hpp"
#include "mmtune/cl.hpp"
#include "mmtune/device.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "opencl/calibration.hpp"
#include "opencl/gemm_routine.hpp"
#include "opencl/host_data.hpp"
#include "opencl/kernel_source.hpp"
#include "opencl/program_cache.hpp"
#include "opencl/reference.hpp"

namespace mmtune {

class Runner {
 public:
  // `program_dir`: where program binaries are cached on disk (empty: memory only); with
  // BinaryWrites::kOnKeep only the programs of configurations prepared twice are written (a
  // tuner's finalists and references, what later processes ask for again: see prepare()).
  Runner(const Device& device, const KernelSources& sources, const std::string& program_dir = "",
         BinaryWrites writes = BinaryWrites::kAtBuild);

  // Uploads operands made from `seed` and computes the reference; calibrates the device for the
  // problem's precision (calibration.hpp) unless that was done. Throws UsageError when the
  // problem is malformed or does not fit the device. With `reference_file`, the reference is
  // read from that file when it exists (written by an earlier process for the same problem and
  // seed) and written to it otherwise.
  void set_problem(const GemmProblem& problem, std::uint64_t seed = 1,
                   const std::string& reference_file = "");
  const GemmProblem& problem() const { return problem_; }

  // Builds what a configuration needs (thread-safe; used to build batches in parallel). The
  // second time a configuration is prepared, its programs are kept on disk (BinaryWrites).
  GemmRoutine::Prepared prepare(const KernelConfig& config);

  // Never throws for a failure of the variant itself: see Measurement::status. `on_run` is
  // called after every completed run (a heartbeat for supervisors).
  Measurement evaluate(const KernelConfig& config, const TimingOptions& timing = {},
                       const std::function<void()>& on_run = {});

  ProgramCache& cache() { return cache_; }
  const DeviceInfo& device() const { return device_; }
  const Calibration& calibration() const { return calibration_; }
  // A figure above the calibrated peak makes the runner measure the peak once more (a busy
  // machine may have lowered it) before the measurement is a MeasurementError.
  // assume_calibration() replaces the current precision's calibration with figures the caller
  // knows better (a device measured elsewhere; tests), measured again only when `remeasure`.
  // Call after set_problem().
  void assume_calibration(const Calibration& c, bool remeasure = false) {
    calibration_ = c;
    calibration_assumed_ = !remeasure;
  }

 private:
  void reset_c();

  DeviceInfo device_;
  // The built-in roofline.cl, for the calibration: the device's peak is the device's, whatever a
  // --kernels-dir holds (an edited roofline.cl had cached a peak 40 times too high).
  const KernelSources builtin_;
  std::string program_dir_;
  cl::Context context_;
  cl::CommandQueue queue_;
  ProgramCache cache_;
  GemmRoutine routine_;
  std::optional<Precision> calibrated_;
  Calibration calibration_;
  bool calibration_assumed_ = false;
  GemmProblem problem_;
  Operands operands_;
  Reference reference_;
  cl::Buffer a_, b_, c_;
  // C as uploaded, and C read back and converted: kept for every evaluation of the problem,
  // since fresh buffers cost their page faults each time (at 4096^3 on a VM 0.57 s of the
  // 0.70 s a verification took).
  std::vector<unsigned char> c_bytes_, readback_;
  std::vector<double> result_;
  SeenBefore prepared_;  // configurations prepare()d for problem_
};

}  // namespace mmtune
