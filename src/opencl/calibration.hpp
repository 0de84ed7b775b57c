// Per-device facts that keep every figure mmtune prints or stores physically possible: whether
// the device's event timestamps measure kernels at all (Mesa rusticl's do not: they count 0, 1,
// 2, 3), and its measured arithmetic peak, which bounds every GFLOPS figure.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "mmtune/cl.hpp"
#include "mmtune/device.hpp"
#include "opencl/kernel_source.hpp"
#include "opencl/program_cache.hpp"

namespace mmtune {

// The four profiling timestamps of one command (ns) and the wall time from its enqueue to its
// completion, with nothing else on the queue.
struct EventSample {
  std::uint64_t queued = 0, submit = 0, start = 0, end = 0;
  double wall_ms = 0.0;
};

struct EventClockVerdict {
  bool usable = false;
  std::string reason;  // why not (empty when usable)
};

// Whether commands run one after another on an in-order queue were timed plausibly: non-zero,
// ordered timestamps, each command after the one before, and durations that agree with the wall
// clock (at most it, and at least half of it for the calibration kernel's >= 20 ms runs).
EventClockVerdict judge_event_clock(const std::vector<EventSample>& samples);

struct Calibration {
  EventClockVerdict events;
  double peak_gflops = 0.0;  // the highest multiply-add throughput measured (wall clock)
  // How far above the measured peak a figure may be before it is a measurement error: the peak
  // kernel and a GEMM see the same clock drift only roughly.
  static constexpr double kTolerance = 1.1;
  // How many times a figure above the peak makes the peak be measured again before it is a
  // measurement error: one calibration lasts ~0.1 s, and another process's load comes and goes
  // (judge_gflops waits longer before each try: 1.5 s in all).
  static constexpr int kRemeasures = 5;
  double plausible_gflops() const {
    return peak_gflops > 0 ? kTolerance * peak_gflops : std::numeric_limits<double>::infinity();
  }
};

// Why a figure cannot be a real measurement on this device ("" when it can).
std::string implausible_gflops(double gflops, const Calibration& c);

// The same judgement for a figure just measured, where the peak may have been measured while
// another process was busy: while the figure is above the bound, `measure_again` runs (at most
// Calibration::kRemeasures times, after pauses of `pause`, then twice as long each time: a busy
// spell of a parallel build or test outlasted four back-to-back calibrations in CI) and `c`
// keeps the highest peak seen. The event clock's verdict stays as first judged, so that a tune
// does not change how it times midway.
std::string judge_gflops(double gflops, Calibration& c,
                         const std::function<Calibration()>& measure_again,
                         std::chrono::milliseconds pause = std::chrono::milliseconds(100));

// Runs roofline.cl's multiply-add kernel a few times (grown until a run takes >= 20 ms) on
// `queue` (profiling enabled) and judges the event clock by it. The peak is the highest
// measured by wall clock, now or before: `cache_dir` (empty: none) keeps one small JSON file per
// device key and precision, so that a calibration on a busy machine does not lower it.
Calibration calibrate(const cl::Context& context, const cl::CommandQueue& queue,
                      ProgramCache& programs, const DeviceInfo& device, Precision precision,
                      const KernelSources& sources, const std::string& cache_dir);

// The cached calibration of a device and precision, when one was made (for `mmtune devices`).
bool cached_calibration(const std::string& cache_dir, const DeviceInfo& device, Precision precision,
                        Calibration& out);

// The widest vector width the device prefers for a precision, as a valid OpenCL width (1-16).
unsigned roofline_vector_width(const DeviceInfo& device, Precision precision);

// roofline.cl built with that width and kRooflineIterations multiply-adds per chain (eight
// chains per work-item). Throws Error when it does not build.
constexpr int kRooflineIterations = 2048;
cl::Program roofline_program(ProgramCache& programs, const KernelSources& sources,
                             const DeviceInfo& device, Precision precision);
// peak_flops's work-group size: small groups, many of them, so that a worker slowed by another
// process leaves its share to the others (with the implementation's choice, a few large groups,
// one busy core halved the peak while a GEMM of many groups kept three quarters of it: every
// GEMM looked impossible). Launches use a multiple of it.
std::size_t peak_local_size(const DeviceInfo& device);

// peak_flops ready to run: built, its arguments set, in work-groups of peak_local_size, with a
// launch grown by grow() until one run takes min_ms (calibrate(); `mmtune bench` times it beside
// the GEMMs, so that a share of the peak compares runs made under the same conditions).
class PeakLaunch {
 public:
  PeakLaunch(const cl::Context& context, ProgramCache& programs, const DeviceInfo& device,
             Precision precision, const KernelSources& sources);
  void grow(const cl::CommandQueue& queue, double min_ms = kMinRunMs);
  EventSample run(const cl::CommandQueue& queue);  // one run, waited for
  double flops() const;                            // of one run
  static constexpr double kMinRunMs = 20.0;        // long enough that launch costs do not matter

 private:
  cl::Kernel kernel_;
  cl::Buffer out_;
  std::size_t local_, items_, max_items_ = 0;
  unsigned vector_width_;
};

}  // namespace mmtune
