#include "opencl/calibration.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "mmtune/error.hpp"
#include "opencl/kernel_source.hpp"

namespace mmtune {
namespace {

constexpr int kChains = 8;
constexpr int kRuns = 3;

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g ms", v);
  return buf;
}

// Named after the roofline kernels it was measured with, too: a peak an edited roofline.cl had
// cached (tens of times too high, and kept as the fastest seen) is not read again.
std::string cache_file(const std::string& dir, const DeviceInfo& d, Precision p) {
  return dir + "/calibration-" + d.key + "-fp" + to_string(p) + "-" +
         content_hash(embedded_kernel("roofline.cl")) + ".json";
}

void save(const std::string& path, const Calibration& c) {
  const std::string tmp = path + ".tmp";
  std::error_code ec;
  // A fresh cache has no directory yet: programs are written there only when kept.
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << nlohmann::json{{"peak_gflops", c.peak_gflops},
                          {"events_usable", c.events.usable},
                          {"events_reason", c.events.reason}}
               .dump()
        << '\n';
    if (!out) return;  // a cache that cannot be written is only a cache
  }
  std::filesystem::rename(tmp, path, ec);
}

}  // namespace

EventClockVerdict judge_event_clock(const std::vector<EventSample>& samples) {
  if (samples.empty()) return {false, "no command was timed"};
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const EventSample& s = samples[i];
    if (s.start == 0 && s.end == 0) return {false, "the start and end timestamps are zero"};
    if (s.end <= s.start) {
      return {false, "a command's end timestamp is not after its start (" +
                         std::to_string(s.start) + ", " + std::to_string(s.end) + ")"};
    }
    if (s.queued > s.submit || s.submit > s.start) {
      return {false, "a command's queued, submit and start timestamps are out of order"};
    }
    if (i > 0 && s.start < samples[i - 1].end) {
      return {false, "a command started before the one before it ended"};
    }
    const double event_ms = double(s.end - s.start) * 1e-6;
    if (event_ms > 1.05 * s.wall_ms + 0.1) {
      return {false, "a command took " + ms(event_ms) + " by its events but " + ms(s.wall_ms) +
                         " by the wall clock"};
    }
    if (s.wall_ms >= 5.0 && event_ms < 0.5 * s.wall_ms) {
      return {false, "a command took " + ms(s.wall_ms) + " by the wall clock but " + ms(event_ms) +
                         " by its events"};
    }
  }
  return {true, ""};
}

std::string implausible_gflops(double gflops, const Calibration& c) {
  if (!(gflops <= c.plausible_gflops())) {  // also NaN and infinity
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "measurement error: %.1f GFLOPS is more than %.1fx the device's measured peak "
                  "(%.1f GFLOPS)",
                  gflops, Calibration::kTolerance, c.peak_gflops);
    return buf;
  }
  return "";
}

std::string judge_gflops(double gflops, Calibration& c,
                         const std::function<Calibration()>& measure_again,
                         std::chrono::milliseconds pause) {
  std::string why = implausible_gflops(gflops, c);
  for (int i = 0; !why.empty() && measure_again && i < Calibration::kRemeasures; ++i) {
    if (i > 0) {
      std::this_thread::sleep_for(pause);
      pause *= 2;
    }
    c.peak_gflops = std::max(c.peak_gflops, measure_again().peak_gflops);
    why = implausible_gflops(gflops, c);
  }
  return why;
}

unsigned roofline_vector_width(const DeviceInfo& d, Precision precision) {
  unsigned vw = 1;
  while (vw * 2 <= std::min(16u, std::max(1u, d.preferred_width(precision)))) vw *= 2;
  return vw;
}

cl::Program roofline_program(ProgramCache& programs, const KernelSources& sources,
                             const DeviceInfo& device, Precision precision) {
  const auto built = programs.build(sources.program("roofline.cl"),
                                    std::string("-DPRECISION=") + to_string(precision) + " -DVW=" +
                                        std::to_string(roofline_vector_width(device, precision)) +
                                        " -DITERATIONS=" + std::to_string(kRooflineIterations));
  if (!built->ok) throw Error("the roofline kernels did not build: " + built->log.substr(0, 500));
  return built->program;
}

std::size_t peak_local_size(const DeviceInfo& device) {
  std::size_t local = 64;  // a power of two: it divides every launch's power-of-two multiples
  while (local > 1 && local > device.max_work_group_size) local /= 2;
  return local;
}

namespace {
// peak_flops's arguments: its output buffer and a seed of 1 in the precision's type.
void set_peak_args(cl::Kernel& peak_flops, const cl::Buffer& out, Precision precision) {
  peak_flops.setArg(0, out);
  if (precision == Precision::kDouble) {
    peak_flops.setArg(1, 1.0);
  } else if (precision == Precision::kSingle) {
    peak_flops.setArg(1, 1.0f);
  } else {
    peak_flops.setArg(1, cl_half(0x3c00));
  }
}
}  // namespace

bool cached_calibration(const std::string& cache_dir, const DeviceInfo& device, Precision precision,
                        Calibration& out) {
  if (cache_dir.empty()) return false;
  std::ifstream in(cache_file(cache_dir, device, precision));
  if (!in) return false;
  try {
    const auto j = nlohmann::json::parse(in);
    out.peak_gflops = j.at("peak_gflops").get<double>();
    out.events.usable = j.at("events_usable").get<bool>();
    out.events.reason = j.at("events_reason").get<std::string>();
    return out.peak_gflops > 0;
  } catch (const nlohmann::json::exception&) {
    return false;  // a damaged cache is measured again
  }
}

PeakLaunch::PeakLaunch(const cl::Context& context, ProgramCache& programs, const DeviceInfo& device,
                       Precision precision, const KernelSources& sources)
    : kernel_(roofline_program(programs, sources, device, precision), "peak_flops"),
      local_(peak_local_size(device)),
      items_(std::max<std::size_t>(1024, std::size_t(device.compute_units) * 256)),
      vector_width_(roofline_vector_width(device, precision)) {
  const std::size_t es = static_cast<std::size_t>(precision) / 8;
  max_items_ =
      std::min<std::size_t>(std::size_t(1) << 24, device.max_alloc_bytes / es) / local_ * local_;
  out_ = cl::Buffer(context, CL_MEM_WRITE_ONLY, max_items_ * es);
  set_peak_args(kernel_, out_, precision);
}

EventSample PeakLaunch::run(const cl::CommandQueue& queue) {
  EventSample s;
  cl::Event e;
  const auto t0 = std::chrono::steady_clock::now();
  queue.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(items_), cl::NDRange(local_),
                             nullptr, &e);
  e.wait();
  s.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  s.queued = e.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>();
  s.submit = e.getProfilingInfo<CL_PROFILING_COMMAND_SUBMIT>();
  s.start = e.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  s.end = e.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  return s;
}

void PeakLaunch::grow(const cl::CommandQueue& queue, double min_ms) {
  run(queue);  // the first runs include lazy compilation
  while (run(queue).wall_ms < min_ms && items_ < max_items_) {
    items_ = std::min(max_items_, items_ * 2);
  }
}

double PeakLaunch::flops() const {
  return 2.0 * kChains * vector_width_ * double(kRooflineIterations) * double(items_);
}

Calibration calibrate(const cl::Context& context, const cl::CommandQueue& queue,
                      ProgramCache& programs, const DeviceInfo& device, Precision precision,
                      const KernelSources& sources, const std::string& cache_dir) {
  PeakLaunch peak(context, programs, device, precision, sources);
  peak.grow(queue, PeakLaunch::kMinRunMs);
  Calibration c;
  std::vector<EventSample> samples;
  for (int i = 0; i < kRuns; ++i) {
    samples.push_back(peak.run(queue));
    c.peak_gflops = std::max(c.peak_gflops, peak.flops() / (samples.back().wall_ms * 1e6));
  }
  c.events = judge_event_clock(samples);
  Calibration before;
  const bool cached = cached_calibration(cache_dir, device, precision, before);
  if (cached) c.peak_gflops = std::max(c.peak_gflops, before.peak_gflops);
  // Written only when it changed: a cache directory of unchanged files stays unchanged.
  if (!cache_dir.empty() &&
      (!cached || c.peak_gflops > before.peak_gflops || c.events.usable != before.events.usable)) {
    save(cache_file(cache_dir, device, precision), c);
  }
  return c;
}

}  // namespace mmtune
