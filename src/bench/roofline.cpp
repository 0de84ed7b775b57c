#include "bench/roofline.hpp"
#include "store/queries.hpp"

#include <algorithm>
#include <chrono>

#include "mmtune/error.hpp"
#include "opencl/calibration.hpp"
#include "opencl/kernel_source.hpp"
#include "opencl/program_cache.hpp"

namespace mmtune {
namespace {

constexpr int kChains = 8;

// Seconds one kernel run takes: by its events where the device's are usable (calibration.hpp),
// otherwise by the wall clock from enqueue to completion on an otherwise idle queue.
double run_seconds(const cl::CommandQueue& queue, cl::Kernel& kernel, std::size_t items,
                   bool events, const cl::NDRange& local = cl::NullRange) {
  cl::Event e;
  const auto t0 = std::chrono::steady_clock::now();
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(items), local, nullptr, &e);
  e.wait();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!events) return wall;
  return double(e.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                e.getProfilingInfo<CL_PROFILING_COMMAND_START>()) *
         1e-9;
}

}  // namespace

Roofline measure_roofline(const Device& device, Store& store, Precision precision) {
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
  const cl::Program program = roofline_program(cache, sources, d, precision);
  const std::size_t es = static_cast<std::size_t>(precision) / 8;
  Roofline r;

  // Enough work-items to fill every compute unit many times over.
  const std::size_t items = std::size_t(d.compute_units) * 4096;  // a multiple of local
  const std::size_t local = peak_local_size(d);
  cl::Buffer out(context, CL_MEM_WRITE_ONLY, items * es);
  cl::Kernel peak(program, "peak_flops");
  set_peak_args(peak, out, precision);
  for (int rep = 0; rep < 4; ++rep) {  // the first run includes lazy compilation
    const double seconds = run_seconds(queue, peak, items, events, cl::NDRange(local));
    const double flops = 2.0 * kChains * vw * double(kRooflineIterations) * double(items);
    if (rep > 0) r.peak_gflops = std::max(r.peak_gflops, flops / seconds * 1e-9);
  }

  // A copy much larger than any cache, within the device's allocation limit.
  std::size_t bytes = std::min<std::uint64_t>(d.max_alloc_bytes / 2, std::uint64_t(256) << 20);
  bytes -= bytes % (vw * es * 1024);
  cl::Buffer src(context, CL_MEM_READ_ONLY, bytes), dst(context, CL_MEM_WRITE_ONLY, bytes);
  queue.enqueueFillBuffer(src, cl_uchar(1), 0, bytes);
  cl::Kernel copy(program, "stream_copy");
  copy.setArg(0, src);
  copy.setArg(1, dst);
  for (int rep = 0; rep < 5; ++rep) {
    const double seconds = run_seconds(queue, copy, bytes / (vw * es), events);
    if (rep > 0) r.bandwidth_gbs = std::max(r.bandwidth_gbs, 2.0 * double(bytes) / seconds * 1e-9);
  }
  r.timing = events ? "events" : "wall clock (" + calibration.events.reason + ")";

  store.upsert_device(d);
  rows::Roof roof;
  roof.key = d.key, roof.precision = static_cast<int>(precision);
  roof.peak = r.peak_gflops, roof.bandwidth = r.bandwidth_gbs;
  rows::put_roof(store, roof);
  return r;
}

}  // namespace mmtune
