#include "opencl/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "mmtune/error.hpp"

namespace mmtune {
namespace {

// Reference files: element count, then C and the error bounds as raw doubles.
bool load_reference(const std::string& path, std::size_t elements, Reference& out) {
  std::ifstream in(path, std::ios::binary);
  std::uint64_t n = 0;
  if (!in.read(reinterpret_cast<char*>(&n), sizeof n) || n != elements) return false;
  out.c.resize(n);
  out.bound.resize(n);
  in.read(reinterpret_cast<char*>(out.c.data()), std::streamsize(n * sizeof(double)));
  in.read(reinterpret_cast<char*>(out.bound.data()), std::streamsize(n * sizeof(double)));
  return bool(in);
}

void save_reference(const std::string& path, const Reference& r) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    const std::uint64_t n = r.c.size();
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(reinterpret_cast<const char*>(r.c.data()), std::streamsize(n * sizeof(double)));
    out.write(reinterpret_cast<const char*>(r.bound.data()), std::streamsize(n * sizeof(double)));
    if (!out) return;
  }
  std::rename(tmp.c_str(), path.c_str());
}

double span_ms(const cl::Event& first, const cl::Event& last) {
  const auto start = first.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  const auto end = last.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  return double(end - start) * 1e-6;
}

}  // namespace

Runner::Runner(const Device& device, const KernelSources& sources, const std::string& program_dir,
               BinaryWrites writes)
    : device_(device.info),
      program_dir_(program_dir),
      context_(device.device),
      queue_(context_, device.device, CL_QUEUE_PROFILING_ENABLE),
      cache_(context_, device.device, device.info.key, program_dir, writes),
      routine_(sources, cache_, device.info) {}

void Runner::set_problem(const GemmProblem& problem, std::uint64_t seed,
                         const std::string& reference_file) {
  check_fits(problem, device_);
  validate(problem);
  if (!device_.supports(problem.precision)) {
    throw NoDeviceError(std::string("device '") + device_.name + "' has no fp" +
                        to_string(problem.precision) + " support");
  }
  if (calibrated_ != problem.precision) {
    calibration_ =
        calibrate(context_, queue_, cache_, device_, problem.precision, builtin_, program_dir_);
    calibrated_ = problem.precision;
    calibration_assumed_ = false;
  }
  problem_ = problem;
  prepared_.clear();  // another problem builds other programs
  operands_ = random_operands(problem, seed, problem.beta == 0.0);
  if (reference_file.empty() || !load_reference(reference_file, operands_.c.size(), reference_)) {
    reference_ = reference_gemm(problem, operands_);
    if (!reference_file.empty()) save_reference(reference_file, reference_);
  }
  const auto upload = [&](const std::vector<double>& v) {
    auto bytes = to_bytes(v, problem.precision);
    return cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(),
                      bytes.data());
  };
  a_ = upload(operands_.a);
  b_ = upload(operands_.b);
  c_bytes_ = to_bytes(operands_.c, problem.precision);
  c_ = cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, c_bytes_.size(),
                  c_bytes_.data());
  readback_.assign(c_bytes_.size(), 0);
  result_.clear();
}

GemmRoutine::Prepared Runner::prepare(const KernelConfig& config) {
  auto prepared = routine_.prepare(config, problem_);
  // Prepared again: worth its binary on disk (a no-op where every build already wrote it).
  // Here, not in evaluate(): asking for a binary can take seconds, never inside a timed phase.
  const bool again = prepared_(std::string(config.kind()->name()) + " " + to_string(config));
  if (again && prepared.ok) routine_.keep(config, problem_);
  return prepared;
}

void Runner::reset_c() {
  queue_.enqueueWriteBuffer(c_, CL_TRUE, 0, c_bytes_.size(), c_bytes_.data());
}

Measurement Runner::evaluate(const KernelConfig& config, const TimingOptions& timing,
                             const std::function<void()>& on_run) {
  Measurement m;
  if (auto v = limit_violations(config, device_, problem_.precision); !v.empty()) {
    m.status = Status::kExceedsLimits;
    m.message = v.front();
    return m;
  }
  const auto prepared = routine_.prepare(config, problem_);
  m.build_seconds = prepared.build_seconds;
  if (!prepared.ok) {
    m.status = Status::kBuildFailed;
    m.message = prepared.log;
    return m;
  }
  // The whole routine is timed as its caller sees it, wall clock from the first enqueue to
  // completion (as `mmtune bench` does): for small problems the launches' host-side cost
  // decides between one kernel and three, and the events' span does not show it.
  struct Run {
    RoutineEvents ev;
    double wall_ms;
  };
  const auto run_once = [&]() {
    const auto t0 = std::chrono::steady_clock::now();
    auto ev = routine_.enqueue(queue_, problem_, config, {&a_}, {&b_}, {&c_});
    cl::Event::waitForEvents(ev.events);
    const double wall =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (on_run) on_run();
    return Run{std::move(ev), wall};
  };
  const bool events = calibration_.events.usable;
  m.kernel_wall_clock = !events;
  const auto record = [&](const Run& run) {
    m.routine_ms.push_back(run.wall_ms);
    m.kernel_ms.push_back(main_kernel_ms(queue_, run.ev, events));
  };
  try {
    reset_c();
    const auto first = run_once();
    const auto v0 = std::chrono::steady_clock::now();
    queue_.enqueueReadBuffer(c_, CL_TRUE, 0, readback_.size(), readback_.data());
    from_bytes(readback_, problem_.precision, result_);
    const Verdict v = verify(problem_, reference_, result_, operands_.c);
    m.max_error = v.max_error;
    m.verify_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - v0).count();
    if (!v.ok) {
      m.status = Status::kWrongResult;
      m.message = v.message;
      return m;
    }
    if (timing.max_reps == 0) return m;
    // The first run includes one-time work (lazy compilation, page faults), so it is a sample
    // only when it already shows the variant is clearly slower than the best.
    // Summed command durations, not the span: the span of a first run also covers the driver's
    // lazy compilation between commands.
    double first_busy_ms = first.wall_ms;
    if (events) {
      first_busy_ms = 0.0;
      for (const auto& e : first.ev.events) first_busy_ms += span_ms(e, e);
    }
    // The first run already decides the outcome: it is the one sample, timed by its commands
    // (its wall time would include lazy compilation, counted in first_run_extra_seconds).
    const bool early_stop = timing.early_stop_ms > 0 && first_busy_ms > 3.0 * timing.early_stop_ms;
    const bool done =
        early_stop || (timing.slow_first_run_suffices && first_busy_ms > timing.max_seconds * 1e3);
    if (done) {
      record(first);
      m.routine_ms.back() = first_busy_ms;
      if (early_stop) m.status = Status::kSlowerEarlyStop;
    }
    for (int i = 0; i < timing.warmup && !done; ++i) run_once();
    if (!done && !repeat_timed(timing, m.routine_ms, [&] { record(run_once()); })) {
      m.status = Status::kSlowerEarlyStop;
    }
    const double typical_ms = done ? first_busy_ms : median(m.routine_ms);
    m.first_run_extra_seconds = std::max(0.0, first.wall_ms - typical_ms) / 1e3;
  } catch (const cl::Error& e) {  // waiting for, or reading back, a failed run
    m.status =
        e.err() == CL_INVALID_WORK_GROUP_SIZE ? Status::kExceedsLimits : Status::kLaunchFailed;
    m.message = std::string(e.what()) + " failed with OpenCL error " + std::to_string(e.err());
    m.opencl_error = e.err();
    return m;
  } catch (const OpenCLError& e) {  // the routine's enqueue: a failing variant, not an abort
    m.status =
        e.cl_code() == CL_INVALID_WORK_GROUP_SIZE ? Status::kExceedsLimits : Status::kLaunchFailed;
    m.message = e.what();
    m.opencl_error = e.cl_code();
    return m;
  }
  m.median_ms = median(m.routine_ms);
  m.min_ms = *std::min_element(m.routine_ms.begin(), m.routine_ms.end());
  m.max_ms = *std::max_element(m.routine_ms.begin(), m.routine_ms.end());
  // A batch run item by item has no one kernel: its kernel time is unknown (none kept, 0).
  if (std::any_of(m.kernel_ms.begin(), m.kernel_ms.end(), [](double v) { return std::isnan(v); }))
    m.kernel_ms.clear();
  m.kernel_median_ms = m.kernel_ms.empty() ? 0.0 : median(m.kernel_ms);
  m.gflops = problem_.flops() / (m.median_ms * 1e6);
  m.kernel_gflops = m.kernel_median_ms > 0 ? problem_.flops() / (m.kernel_median_ms * 1e6) : 0.0;
  // A figure above the device's peak is not a result, however it came about. The peak was
  // measured once, perhaps while the machine was busy: measure it again before saying so.
  std::function<Calibration()> measure_again;
  if (!calibration_assumed_) {
    measure_again = [&] {
      return calibrate(context_, queue_, cache_, device_, problem_.precision, builtin_,
                       program_dir_);
    };
  }
  const std::string why =
      judge_gflops(std::max(m.gflops, m.kernel_gflops), calibration_, measure_again);
  if (!why.empty()) {
    m.status = Status::kMeasurementError;
    m.message = why;
  }
  return m;
}

}  // namespace mmtune
