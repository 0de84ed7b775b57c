#include "bench/roofline.hpp"
#include "store/queries.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/cpu_load.hpp"
#include "mmtune/error.hpp"
#include "opencl/calibration.hpp"
#include "opencl/kernel_source.hpp"
#include "opencl/program_cache.hpp"

namespace mmtune {
namespace {

// Seconds one kernel run takes: by its events where the device's are usable (calibration.hpp),
// otherwise by the wall clock from enqueue to completion on an otherwise idle queue.
double run_seconds(const cl::CommandQueue& queue, cl::Kernel& kernel, std::size_t items,
                   bool events) {
  cl::Event e;
  const auto t0 = std::chrono::steady_clock::now();
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(items), cl::NullRange, nullptr, &e);
  e.wait();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!events) return wall;
  return double(e.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                e.getProfilingInfo<CL_PROFILING_COMMAND_START>()) *
         1e-9;
}

}  // namespace

Roofline measure_roofline(const Device& device, Store& store, Precision precision, bool replace) {
  const DeviceInfo& d = device.info;
  if (!d.supports(precision)) {
    throw NoDeviceError("device '" + d.name + "' has no fp" + to_string(precision) + " support");
  }
  const unsigned vw = roofline_vector_width(d, precision);
  cl::Context context(device.device);
  cl::CommandQueue queue(context, device.device, CL_QUEUE_PROFILING_ENABLE);
  ProgramCache cache(context, device.device, d.key, ProgramCache::default_disk_dir());
  const KernelSources sources;
  const Calibration calibration =
      calibrate(context, queue, cache, d, precision, sources, ProgramCache::default_disk_dir());
  const bool events = calibration.events.usable;
  const std::size_t es = static_cast<std::size_t>(precision) / 8;
  Roofline r;
  CpuLoad load(0.2);
  load.sample(-1);

  // The calibration's peak kernel, grown past launch costs, timed by events where usable; the
  // fastest of several runs, as a busy core slows some of them.
  PeakLaunch peak(context, cache, d, precision, sources);
  peak.grow(queue);
  for (int rep = 0; rep < 8; ++rep) {
    const EventSample s = peak.run(queue);
    const double ms = events ? double(s.end - s.start) * 1e-6 : s.wall_ms;
    r.peak_gflops = std::max(r.peak_gflops, peak.flops() / (ms * 1e6));
  }

  // A copy much larger than any cache, within the device's allocation limit.
  std::size_t bytes = std::min<std::uint64_t>(d.max_alloc_bytes / 2, std::uint64_t(256) << 20);
  bytes -= bytes % (vw * es * 1024);
  cl::Buffer src(context, CL_MEM_READ_ONLY, bytes), dst(context, CL_MEM_WRITE_ONLY, bytes);
  queue.enqueueFillBuffer(src, cl_uchar(1), 0, bytes);
  cl::Kernel copy(roofline_program(cache, sources, d, precision), "stream_copy");
  copy.setArg(0, src);
  copy.setArg(1, dst);
  for (int rep = 0; rep < 5; ++rep) {
    const double seconds = run_seconds(queue, copy, bytes / (vw * es), events);
    if (rep > 0) r.bandwidth_gbs = std::max(r.bandwidth_gbs, 2.0 * double(bytes) / seconds * 1e-9);
  }
  r.timing = events ? "events" : "wall clock (" + calibration.events.reason + ")";
  r.other_load = load.sample(-1);

  // A timer that read 0 gives an infinite roof that no later run could lower: not stored.
  for (const double v : {r.peak_gflops, r.bandwidth_gbs}) {
    if (!std::isfinite(v) || v <= 0) {
      throw Error("the roofs measured cannot be trusted (peak " + std::to_string(r.peak_gflops) +
                  " GFLOPS, bandwidth " + std::to_string(r.bandwidth_gbs) + " GB/s, timed by " +
                  r.timing + "): nothing stored");
    }
  }
  store.upsert_device(d);
  rows::Roof roof;
  roof.key = d.key, roof.precision = static_cast<int>(precision);
  roof.peak = r.peak_gflops, roof.bandwidth = r.bandwidth_gbs;
  const rows::Roof stored = rows::put_roof(store, roof, replace);
  r.stored_peak_gflops = stored.peak, r.stored_bandwidth_gbs = stored.bandwidth;
  return r;
}

}  // namespace mmtune
