#include "opencl/spec_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "mmtune/error.hpp"
#include "opencl/define_check.hpp"
#include "opencl/spec_kernel.hpp"

namespace mmtune {
namespace {

using Clock = std::chrono::steady_clock;

double elapsed_ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  if (!in && !in.eof()) throw UsageError(p.string() + ": cannot be read");
  return s.str();
}

// A data file's size, checked before it is read: a file of the wrong size is refused unread.
std::size_t file_bytes(const std::filesystem::path& p) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(p, ec);
  if (ec) throw UsageError(p.string() + ": cannot be read");
  return std::size_t(size);
}

// The file's bytes straight into their buffer, whose size file_bytes checked.
void read_into(const std::filesystem::path& p, std::vector<unsigned char>& bytes) {
  std::ifstream in(p, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())) ||
      in.peek() != std::ifstream::traits_type::eof()) {
    throw UsageError(p.string() + ": cannot be read (or changed while it was read)");
  }
}

// Element i of a buffer of type t. A long double holds every element exactly, 64-bit integers
// included: as doubles, 2^53 + 1 and 2^53 compare equal.
static_assert(std::numeric_limits<long double>::digits >= 64);
long double element(const unsigned char* bytes, SpecType t, std::size_t i) {
  const auto get = [&](auto v) {
    std::memcpy(&v, bytes + i * sizeof v, sizeof v);
    return static_cast<long double>(v);
  };
  switch (t) {
    case SpecType::kChar:
      return get(std::int8_t{});
    case SpecType::kUchar:
      return get(std::uint8_t{});
    case SpecType::kShort:
      return get(std::int16_t{});
    case SpecType::kUshort:
      return get(std::uint16_t{});
    case SpecType::kInt:
      return get(std::int32_t{});
    case SpecType::kUint:
      return get(std::uint32_t{});
    case SpecType::kLong:
      return get(std::int64_t{});
    case SpecType::kUlong:
      return get(std::uint64_t{});
    case SpecType::kFloat:
      return get(float{});
    case SpecType::kDouble:
      return get(double{});
  }
  return 0;
}

bool is_integer(SpecType t) {
  return t != SpecType::kFloat && t != SpecType::kDouble;
}

// An element for a message: integers in all their digits.
std::string shown(long double v, SpecType t) {
  if (is_integer(t)) {
    return v < 0 ? std::to_string(static_cast<std::int64_t>(v))
                 : std::to_string(static_cast<std::uint64_t>(v));
  }
  std::ostringstream s;
  s << double(v);
  return s.str();
}

// Writes v as type t at element i.
void put(unsigned char* bytes, SpecType t, std::size_t i, double v) {
  const auto set = [&](auto x) { std::memcpy(bytes + i * sizeof x, &x, sizeof x); };
  switch (t) {
    case SpecType::kChar:
      return set(std::int8_t(v));
    case SpecType::kUchar:
      return set(std::uint8_t(v));
    case SpecType::kShort:
      return set(std::int16_t(v));
    case SpecType::kUshort:
      return set(std::uint16_t(v));
    case SpecType::kInt:
      return set(std::int32_t(v));
    case SpecType::kUint:
      return set(std::uint32_t(v));
    case SpecType::kLong:
      return set(std::int64_t(v));
    case SpecType::kUlong:
      return set(std::uint64_t(v));
    case SpecType::kFloat:
      return set(float(v));
    case SpecType::kDouble:
      return set(double(v));
  }
}

// A launch's global or local size; an empty one is cl::NullRange (the implementation chooses).
cl::NDRange ndrange(const std::vector<std::size_t>& d) {
  if (d.size() == 1) return cl::NDRange(d[0]);
  if (d.size() == 2) return cl::NDRange(d[0], d[1]);
  if (d.size() == 3) return cl::NDRange(d[0], d[1], d[2]);
  return cl::NullRange;
}

}  // namespace

SpecRunner::SpecRunner(const Device& device, const KernelSpec& spec,
                       const std::vector<long long>& sizes, const std::string& program_dir,
                       BinaryWrites writes)
    : spec_(spec),
      device_(device.info),
      instance_(spec, sizes, &device_),  // its own copy: the caller's Device may go
      context_(device.device),
      queue_(context_, device.device, CL_QUEUE_PROFILING_ENABLE),
      cache_(context_, device.device, device.info.key, program_dir, writes),
      program_dir_(program_dir) {
  for (const auto& file : spec.sources) source_ += read_file(file) + "\n";
  check_define_names(cache_, spec);  // one clear line instead of a BuildFailed per configuration
  // The peak bounds every GFLOPS figure; the event clock decides how kernels are timed.
  // A spec's FLOPs may be of any type: fp32's peak (the higher on every device) bounds them.
  calibration_ =
      calibrate(context_, queue_, cache_, device_, Precision::kSingle, builtin_, program_dir);
  flops_ = spec_metric(spec, spec.flops, sizes, device_);
  bytes_ = spec_metric(spec, spec.bytes, sizes, device_);
  // A misspelled kernel failed every configuration's launch: one line instead, from the first
  // valid configuration's build (one that does not build tells nothing).
  if (const auto first = instance_.enumerate(nullptr, 1); !first.empty()) {
    if (const auto opts = build_options(first.front())) {
      writable_ = inspect_spec_kernel(context_, device.device, source_, *opts, spec_);
    }
  }
  compute_reference();
}

const std::vector<unsigned char>& SpecRunner::initial(std::size_t argument, long long elements) {
  contents_.resize(spec_.arguments.size());
  Contents& held = contents_[argument];
  if (held.elements == elements) return held.bytes;
  held = Contents{};  // freed before the next one is made
  const SpecArgument& a = spec_.arguments[argument];
  const std::size_t n = std::size_t(elements), size = type_bytes(a.type);
  // A data file of the wrong size is refused before its buffer is made.
  if (a.init == BufferInit::kFile) {
    if (const std::size_t in_file = file_bytes(a.file); in_file != n * size) {
      throw UsageError(a.file.string() + " has " + std::to_string(in_file) + " bytes; argument " +
                       a.name + " needs " + std::to_string(n * size));
    }
  }
  std::vector<unsigned char> bytes(n * size, 0);
  switch (a.init) {
    case BufferInit::kZeros:
      break;
    case BufferInit::kConstant:
      for (std::size_t i = 0; i < n; ++i) put(bytes.data(), a.type, i, a.constant);
      break;
    case BufferInit::kRandom: {
      std::mt19937_64 rng(a.seed);
      std::uniform_real_distribution<double> real(-1.0, 1.0);
      std::uniform_int_distribution<int> whole(0, 99);
      for (std::size_t i = 0; i < n; ++i) {
        put(bytes.data(), a.type, i, is_integer(a.type) ? double(whole(rng)) : real(rng));
      }
      break;
    }
    case BufferInit::kFile:
      read_into(a.file, bytes);
      break;
  }
  held = Contents{elements, std::move(bytes)};
  return held.bytes;
}

std::size_t SpecRunner::held_bytes() const {
  std::size_t sum = 0;
  for (const auto& c : contents_) sum += c.bytes.size();
  return sum;
}

std::string SpecRunner::options(const SpecLaunchSizes& launch) const {
  std::string o = spec_.build_options;
  for (const auto& [name, value] : launch.defines) o += " -D" + name + "=" + value;
  return o;
}

std::vector<cl::Buffer> SpecRunner::bind(cl::Kernel& kernel, const SpecLaunchSizes& launch,
                                         bool guarded) {
  std::vector<cl::Buffer> buffers(spec_.arguments.size());
  for (std::size_t i = 0; i < spec_.arguments.size(); ++i) {
    const SpecArgument& a = spec_.arguments[i];
    const cl_uint index = cl_uint(i);
    if (a.kind == ArgumentKind::kBuffer) {
      const auto& bytes = initial(i, launch.argument_sizes[i]);
      // Qualifiers unknown: the outputs only (a __constant input with 64 KiB more would pass a
      // GPU's constant-buffer limit).
      const bool writable = guarded && (writable_.empty() ? a.output : bool(writable_[i]));
      const std::size_t guard = writable ? guard_bytes(bytes.size(), device_.max_alloc_bytes) : 0;
      buffers[i] = cl::Buffer(context_, CL_MEM_READ_WRITE, bytes.size() + guard);
      if (!bytes.empty()) {
        queue_.enqueueWriteBuffer(buffers[i], CL_TRUE, 0, bytes.size(), bytes.data());
      }
      if (guard) fill_guard(queue_, buffers[i], bytes.size(), guard);
      kernel.setArg(index, buffers[i]);
    } else if (a.kind == ArgumentKind::kLocal) {
      kernel.setArg(index, cl::Local(std::size_t(launch.argument_sizes[i]) * type_bytes(a.type)));
    } else {
      unsigned char value[8];
      put(value, a.type, 0, launch.scalars[i]);
      kernel.setArg(index, type_bytes(a.type), value);
    }
  }
  return buffers;
}

std::vector<unsigned char> SpecRunner::read_outputs(const std::vector<cl::Buffer>& buffers,
                                                    const SpecLaunchSizes& launch) {
  std::vector<unsigned char> out;
  for (std::size_t i = 0; i < spec_.arguments.size(); ++i) {
    const SpecArgument& a = spec_.arguments[i];
    if (!a.output) continue;
    const std::size_t bytes = std::size_t(launch.argument_sizes[i]) * type_bytes(a.type);
    const std::size_t at = out.size();
    out.resize(at + bytes);
    queue_.enqueueReadBuffer(buffers[i], CL_TRUE, 0, bytes, out.data() + at);
  }
  return out;
}

std::string SpecRunner::overrun(const std::vector<cl::Buffer>& buffers,
                                const SpecLaunchSizes& launch) {
  for (std::size_t i = 0; i < spec_.arguments.size(); ++i) {
    const SpecArgument& a = spec_.arguments[i];
    if (a.kind != ArgumentKind::kBuffer) continue;
    const std::size_t bytes = std::size_t(launch.argument_sizes[i]) * type_bytes(a.type);
    if (const auto at = guard_written(queue_, buffers[i], bytes)) {
      return "the kernel wrote past the end of " + a.name + " (" +
             std::to_string(launch.argument_sizes[i]) + " elements), " + std::to_string(*at) +
             " bytes beyond it";
    }
  }
  return "";
}

std::string SpecRunner::compare(const std::vector<unsigned char>& got,
                                const SpecLaunchSizes& launch, double& max_error) const {
  max_error = 0;
  if (got.size() != reference_->size()) {
    return "the outputs have " + std::to_string(got.size()) + " bytes, the reference " +
           std::to_string(reference_->size());
  }
  std::size_t at = 0;
  std::string first_wrong;
  for (std::size_t i = 0; i < spec_.arguments.size(); ++i) {
    const SpecArgument& a = spec_.arguments[i];
    if (!a.output) continue;
    const std::size_t n = std::size_t(launch.argument_sizes[i]);
    for (std::size_t e = 0; e < n; ++e) {
      const long double x = element(got.data() + at, a.type, e);
      const long double ref = element(reference_->data() + at, a.type, e);
      const long double err = x == ref ? 0 : std::fabs(x - ref);  // inf - inf is NaN
      // The default tolerances are for floating point: 5,000,007 is not 5,000,000.
      const bool exact = is_integer(a.type) && !spec_.verification.tolerance_stated;
      const long double tolerance =
          exact ? 0 : spec_.verification.absolute + spec_.verification.relative * std::fabs(ref);
      if (!(err <= tolerance) && first_wrong.empty()) {
        first_wrong = a.name + "[" + std::to_string(e) + "] = " + shown(x, a.type) + ", expected " +
                      shown(ref, a.type);
      }
      if (std::isfinite(err)) max_error = std::max(max_error, double(err));
    }
    at += n * type_bytes(a.type);
  }
  return first_wrong;
}

void SpecRunner::compute_reference() {
  const Verification kind = spec_.verification.kind;
  if (kind == Verification::kNone) return;
  const auto valid = instance_.enumerate(nullptr, 1);  // the first is the reference's sizes
  if (valid.empty()) return;                           // nothing will run: nothing to compare with
  const SpecLaunchSizes launch = instance_.launch(valid.front());
  if (kind == Verification::kFile) {
    const std::size_t size = file_bytes(spec_.verification.file);
    std::size_t expected = 0;
    for (std::size_t i = 0; i < spec_.arguments.size(); ++i) {
      if (spec_.arguments[i].output) {
        expected += std::size_t(launch.argument_sizes[i]) * type_bytes(spec_.arguments[i].type);
      }
    }
    if (size != expected) {
      throw UsageError(spec_.verification.file.string() + " has " + std::to_string(size) +
                       " bytes; the outputs have " + std::to_string(expected));
    }
    reference_.emplace(size);
    read_into(spec_.verification.file, *reference_);
    return;
  }
  // "first": the space's first valid configuration, whichever runs first: every worker (a
  // restarted one too) compares with the same outputs, never with a wrong kernel that happened
  // to run first.
  const bool first = kind == Verification::kFirstConfiguration;
  SpecLaunchSizes ref = launch;
  if (!first) {
    try {
      ref = instance_.reference_launch(valid.front());
    } catch (const EvaluationError& e) {
      throw UsageError(spec_.verification.where + ": " + e.what());
    }
  }
  const std::string what = first ? "the reference (the space's first configuration, " +
                                       instance_.to_text(valid.front()) + ")"
                                 : "the reference kernel " + spec_.verification.kernel;
  const auto built = cache_.build(source_, options(ref));
  if (!built->ok) {
    std::string log = built->log.substr(0, 2000);
    std::replace(log.begin(), log.end(), '\n', ' ');
    throw UsageError(what + " does not build: " + log);
  }
  try {
    cl::Kernel kernel(built->program, (first ? spec_.kernel : spec_.verification.kernel).c_str());
    const auto buffers = bind(kernel, ref, false);  // its kernel may be another: no guards
    cl::Event done;
    queue_.enqueueNDRangeKernel(kernel, cl::NullRange, ndrange(ref.global), ndrange(ref.local),
                                nullptr, &done);
    done.wait();
    reference_ = read_outputs(buffers, ref);
  } catch (const cl::Error& e) {
    throw UsageError(what + " failed: " + e.what() + " (OpenCL error " + std::to_string(e.err()) +
                     ")");
  }
}

std::optional<std::string> SpecRunner::build_options(const SpecPoint& point) {
  try {
    return options(instance_.launch(point));
  } catch (const EvaluationError&) {
    return std::nullopt;
  }
}

bool SpecRunner::build(const std::string& options) {
  const bool ok = cache_.build(source_, options)->ok;
  if (built_(options) && ok)
    cache_.keep(source_, options);  // built again: worth its binary on disk
  return ok;
}

Measurement SpecRunner::evaluate(const SpecPoint& point, const TimingOptions& timing,
                                 const std::function<void()>& on_run) {
  Measurement m;
  const auto fail = [&](Status s, std::string why) {
    m.status = s;
    m.message = std::move(why);
    return m;
  };
  if (std::string why = instance_.violation(point); !why.empty()) {
    return fail(Status::kExceedsLimits, why);
  }
  const SpecLaunchSizes launch = instance_.launch(point);
  const auto built = cache_.build(source_, options(launch));
  m.build_seconds = built->seconds;
  if (!built->ok) return fail(Status::kBuildFailed, built->log);

  try {
    cl::Kernel kernel(built->program, spec_.kernel.c_str());
    const auto buffers = bind(kernel, launch, true);
    const cl::NDRange global = ndrange(launch.global), local = ndrange(launch.local);
    const bool events = calibration_.events.usable;
    m.kernel_wall_clock = !events;
    // The kernel's time: its event's where usable (a first run's wall time includes lazy
    // compilation), else the wall clock.
    const auto run_once = [&](bool record) {
      cl::Event ev;
      const auto t0 = Clock::now();
      queue_.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &ev);
      ev.wait();
      const double wall = elapsed_ms(t0);
      if (on_run) on_run();
      const double busy = events ? double(ev.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                                          ev.getProfilingInfo<CL_PROFILING_COMMAND_START>()) *
                                       1e-6
                                 : wall;
      if (record) m.routine_ms.push_back(wall), m.kernel_ms.push_back(busy);
      return busy;
    };
    const double first_ms = run_once(false);
    if (std::string why = overrun(buffers, launch); !why.empty()) {
      return fail(Status::kWrongResult, why);
    }
    if (spec_.verification.kind != Verification::kNone) {
      const auto v0 = Clock::now();
      const auto got = read_outputs(buffers, launch);
      if (std::string wrong = reference_ ? compare(got, launch, m.max_error) : std::string();
          !wrong.empty()) {
        m.verify_seconds = elapsed_ms(v0) * 1e-3;
        return fail(Status::kWrongResult, wrong);
      }
      m.verify_seconds = elapsed_ms(v0) * 1e-3;
    }
    if (timing.max_reps == 0) return m;
    bool done = false;
    if (timing.early_stop_ms > 0 && first_ms > 3.0 * timing.early_stop_ms) {
      m.routine_ms = m.kernel_ms = {first_ms};
      m.status = Status::kSlowerEarlyStop;
      done = true;
    }
    for (int i = 0; i < timing.warmup && !done; ++i) run_once(false);
    if (!done && !repeat_timed(timing, m.kernel_ms, [&] { run_once(true); })) {
      m.status = Status::kSlowerEarlyStop;
    }
  } catch (const cl::Error& e) {
    m.opencl_error = e.err();
    return fail(
        e.err() == CL_INVALID_WORK_GROUP_SIZE ? Status::kExceedsLimits : Status::kLaunchFailed,
        std::string(e.what()) + " failed with OpenCL error " + std::to_string(e.err()));
  } catch (const UsageError& e) {  // a data file that does not fit this configuration's buffer
    return fail(Status::kLaunchFailed, e.what());
  }
  // Ranked by the kernel's time (its events' where usable, as documented): the wall time around
  // one launch and its wait adds the host's overhead, 5-10x a small kernel's time on PoCL. It is
  // kept in routine_ms.
  m.median_ms = median(m.kernel_ms);
  m.min_ms = *std::min_element(m.kernel_ms.begin(), m.kernel_ms.end());
  m.max_ms = *std::max_element(m.kernel_ms.begin(), m.kernel_ms.end());
  m.kernel_median_ms = m.median_ms;
  // GB/s is not bounded by the memory bandwidth the roofline measures (caches serve a kernel
  // faster), only against garbage, as an import bounds it.
  if (bytes_) m.gbps = *bytes_ / (m.median_ms * 1e6);
  if (m.gbps > kMaxGbps) {
    char why[160];
    std::snprintf(why, sizeof why,
                  "%.3g GB/s is beyond any memory or cache: the spec's bytes or the time is wrong",
                  m.gbps);
    return fail(Status::kMeasurementError, why);
  }
  if (flops_) {
    m.gflops = *flops_ / (m.median_ms * 1e6);
    m.kernel_gflops = m.kernel_median_ms > 0 ? *flops_ / (m.kernel_median_ms * 1e6) : 0.0;
    const std::string why = judge_gflops(std::max(m.gflops, m.kernel_gflops), calibration_, [&] {
      return calibrate(context_, queue_, cache_, device_, Precision::kSingle, builtin_,
                       program_dir_);
    });
    if (!why.empty()) return fail(Status::kMeasurementError, why);
  }
  return m;
}

}  // namespace mmtune
