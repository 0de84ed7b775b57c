#include "mmtune/gemm.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include "opencl/gemm_routine.hpp"
#include "opencl/kernel_source.hpp"
#include "opencl/program_cache.hpp"

namespace mmtune {
namespace {

OpenCLError opencl_error(const cl::Error& e) {
  return OpenCLError(
      std::string("OpenCL call ") + e.what() + " failed with error " + std::to_string(e.err()),
      e.err());
}

cl::Context retained(cl_context c) {
  if (!c) throw UsageError("the OpenCL context is null");
  try {
    return cl::Context(c, /*retainObject=*/true);
  } catch (const cl::Error&) {
    throw UsageError("the OpenCL context is not valid");
  }
}

cl::CommandQueue retained(cl_command_queue q) {
  if (!q) throw UsageError("the command queue is null");
  try {
    return cl::CommandQueue(q, /*retainObject=*/true);
  } catch (const cl::Error&) {
    throw UsageError("the command queue is not valid");
  }
}

// The queue's device, after checking that the queue belongs to `context`.
cl::Device queue_device(const cl::Context& context, const cl::CommandQueue& queue) {
  if (!context()) throw UsageError("the OpenCL context is null");
  if (!queue()) throw UsageError("the command queue is null");
  cl_context owner = nullptr;
  cl_device_id device = nullptr;
  if (clGetCommandQueueInfo(queue(), CL_QUEUE_CONTEXT, sizeof owner, &owner, nullptr) !=
          CL_SUCCESS ||
      clGetCommandQueueInfo(queue(), CL_QUEUE_DEVICE, sizeof device, &device, nullptr) !=
          CL_SUCCESS) {
    throw UsageError("the command queue is not valid");
  }
  if (owner != context()) throw UsageError("the command queue belongs to another OpenCL context");
  return cl::Device(device, /*retainObject=*/true);
}

DeviceInfo described(const cl::Device& device) {
  try {
    return describe_device(device);
  } catch (const cl::Error& e) {
    throw opencl_error(e);
  }
}

// Errors of a launch that another configuration may not meet (not the caller's arguments).
bool refused_launch(cl_int code) {
  return code == CL_OUT_OF_RESOURCES || code == CL_INVALID_WORK_GROUP_SIZE ||
         code == CL_INVALID_WORK_ITEM_SIZE;
}

// Build logs span many lines; error messages are one.
std::string log_line(std::string log) {
  for (char& ch : log) {
    if (ch == '\n' || ch == '\r') ch = ' ';
  }
  return log.substr(0, 2000);
}

}  // namespace

struct Gemm::Impl {
  Impl(const cl::Context& context, const cl::CommandQueue& queue,
       std::shared_ptr<const ParameterLookup> lookup)
      : context_(context),
        queue_(queue),
        cl_device_(queue_device(context, queue)),
        device_(described(cl_device_)),
        lookup_(std::move(lookup)),
        cache_(context_, cl_device_, device_.key, ProgramCache::default_disk_dir()),
        routine_(sources_, cache_, device_) {}

  // Parameters of a shape whose kernels have been built.
  struct Ready {
    TunedParameters parameters;
    bool built = false;
    bool launched = false;   // its kernel has been enqueued once
    std::uint64_t used = 0;  // when last asked for, in ready() calls
  };
  // Tuned parameters from another driver or a similar device may not build or launch here: the
  // built-in defaults take the shape over, as a BLAS would (parameters() then says kDefault).
  // False where `r` holds the defaults already or they do not build either.
  bool to_defaults(Ready& r, const GemmProblem& problem);
  Ready& ready(const GemmProblem& problem);  // needs mutex_
  // NoDeviceError when the device lacks the problem's precision.
  void require_precision(const GemmProblem& problem) const {
    if (!device_.supports(problem.precision)) {
      throw NoDeviceError("device '" + device_.name + "' has no fp" + to_string(problem.precision) +
                          " support");
    }
  }
  cl::Event run(const cl::CommandQueue& queue, const GemmProblem& problem, const cl::Buffer& a,
                const cl::Buffer& b, const cl::Buffer& c, std::size_t a_offset,
                std::size_t b_offset, std::size_t c_offset, const std::vector<cl::Event>& wait_for);
  // run() without the checks and the lock, which the caller holds.
  cl::Event run_locked(const cl::CommandQueue& queue, const GemmProblem& problem,
                       const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
                       std::size_t a_offset, std::size_t b_offset, std::size_t c_offset,
                       const std::vector<cl::Event>& wait_for);

  cl::Context context_;
  cl::CommandQueue queue_;
  cl::Device cl_device_;
  DeviceInfo device_;
  std::shared_ptr<const ParameterLookup> lookup_;
  KernelSources sources_;
  ProgramCache cache_;
  GemmRoutine routine_;
  using ShapeKey =
      std::tuple<std::size_t, std::size_t, std::size_t, int, int, bool, bool, std::size_t>;
  std::map<ShapeKey, Ready> chosen_;
  std::uint64_t asked_ = 0;  // ready() calls so far
  std::mutex mutex_;         // serialises calls: kernel arguments, scratch buffers, chosen_
};

Gemm::Gemm(const cl::Context& context, const cl::CommandQueue& queue,
           std::shared_ptr<const ParameterLookup> lookup)
    : impl_(std::make_unique<Impl>(context, queue, std::move(lookup))) {}

Gemm::~Gemm() = default;

const DeviceInfo& Gemm::device() const {
  return impl_->device_;
}
const cl::Context& Gemm::context() const {
  return impl_->context_;
}

Gemm::Gemm(cl_context context, cl_command_queue queue,
           std::shared_ptr<const ParameterLookup> lookup)
    : Gemm(retained(context), retained(queue), std::move(lookup)) {}

Gemm::Impl::Ready& Gemm::Impl::ready(const GemmProblem& p) {
  const ShapeKey key{
      p.m,       p.n,       p.k,    static_cast<int>(p.precision), static_cast<int>(p.layout),
      p.trans_a, p.trans_b, p.batch};
  auto it = chosen_.find(key);
  if (it == chosen_.end()) {
    // A program that calls with ever new shapes must not grow without bound: the shape used
    // longest ago is dropped (a linear scan, only when a new shape comes; its kernels stay built
    // in the routine, so coming back costs one lookup).
    if (chosen_.size() >= Gemm::kShapesHeld) {
      chosen_.erase(std::min_element(
          chosen_.begin(), chosen_.end(),
          [](const auto& a, const auto& b) { return a.second.used < b.second.used; }));
    }
    Ready r;
    r.parameters = lookup_ ? lookup_->lookup(device_, p) : default_parameters(device_, p);
    it = chosen_.emplace(key, std::move(r)).first;
  }
  it->second.used = ++asked_;
  return it->second;
}

std::size_t Gemm::shapes_held() const {
  std::lock_guard<std::mutex> lock(impl_->mutex_);
  return impl_->chosen_.size();
}

TunedParameters Gemm::parameters(const GemmProblem& problem) {
  // As a call would refuse it: a lookup indexes by precision and sizes.
  validate_call(problem);
  impl_->require_precision(problem);
  std::lock_guard<std::mutex> lock(impl_->mutex_);
  return impl_->ready(problem).parameters;
}

cl::Event Gemm::operator()(const GemmProblem& problem, const cl::Buffer& a, const cl::Buffer& b,
                           const cl::Buffer& c, std::size_t a_offset, std::size_t b_offset,
                           std::size_t c_offset, const std::vector<cl::Event>& wait_for) {
  return impl_->run(impl_->queue_, problem, a, b, c, a_offset, b_offset, c_offset, wait_for);
}

cl::Event Gemm::enqueue(const cl::CommandQueue& queue, const GemmProblem& problem,
                        const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
                        std::size_t a_offset, std::size_t b_offset, std::size_t c_offset,
                        const std::vector<cl::Event>& wait_for) {
  if (queue() != impl_->queue_() && queue_device(impl_->context_, queue)() != impl_->cl_device_()) {
    throw UsageError("the command queue belongs to another device than this Gemm's '" +
                     impl_->device_.name + "'");
  }
  return impl_->run(queue, problem, a, b, c, a_offset, b_offset, c_offset, wait_for);
}

cl::Event Gemm::Impl::run(const cl::CommandQueue& queue, const GemmProblem& problem,
                          const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
                          std::size_t a_offset, std::size_t b_offset, std::size_t c_offset,
                          const std::vector<cl::Event>& wait_for) {
  validate_call(problem);
  require_precision(problem);
  std::lock_guard<std::mutex> lock(mutex_);
  return run_locked(queue, problem, a, b, c, a_offset, b_offset, c_offset, wait_for);
}

cl::Event Gemm::Impl::run_locked(const cl::CommandQueue& queue, const GemmProblem& problem,
                                 const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
                                 std::size_t a_offset, std::size_t b_offset, std::size_t c_offset,
                                 const std::vector<cl::Event>& wait_for) {
  const auto enqueue = [&](const KernelConfig& config) {
    return routine_
        .enqueue(queue, problem, config, {&a, a_offset}, {&b, b_offset}, {&c, c_offset}, wait_for)
        .events.back();
  };
  try {
    // Only a problem that multiplies needs tuned kernels (BLAS semantics, see the header).
    if (!GemmRoutine::multiplies(problem)) return enqueue(NaiveConfig{});
    Ready& r = ready(problem);
    if (!r.built) {
      const auto prepared = routine_.prepare(r.parameters.config, problem);
      if (!prepared.ok && !to_defaults(r, problem)) {
        throw Error("cannot build the " + std::string(kernel_name(kind_of(r.parameters.config))) +
                    " kernel for '" + device_.name + "': " + log_line(prepared.log));
      }
      r.built = true;
    }
    try {
      cl::Event done = enqueue(r.parameters.config);
      r.launched = true;
      return done;
    } catch (const OpenCLError& e) {
      // A kernel that builds may still not launch here: more registers or local memory than a
      // work-group of its size leaves, which no query tells reliably (rusticl's
      // CL_KERNEL_WORK_GROUP_SIZE says 32 where 1024 run). Its first launch gives way to the
      // defaults where it failed before C was written (only scratch buffers were).
      r.launched = r.launched || routine_.main_enqueued();  // it ran once: this call's error
      if (r.launched || !refused_launch(e.cl_code()) || !to_defaults(r, problem)) throw;
      cl::Event done = enqueue(r.parameters.config);
      r.launched = true;
      return done;
    }
  } catch (const cl::Error& e) {
    throw opencl_error(e);
  }
}

bool Gemm::Impl::to_defaults(Ready& r, const GemmProblem& problem) {
  if (r.parameters.source == LookupSource::kDefault) return false;
  TunedParameters defaults = default_parameters(device_, problem);
  if (!routine_.prepare(defaults.config, problem).ok) return false;
  r.parameters = std::move(defaults);
  r.built = true;
  return true;
}

cl::Event Gemm::batched(const GemmProblem& problem, const std::vector<double>& alphas,
                        const std::vector<double>& betas, const cl::Buffer& a,
                        const std::vector<std::size_t>& a_offsets, const cl::Buffer& b,
                        const std::vector<std::size_t>& b_offsets, const cl::Buffer& c,
                        const std::vector<std::size_t>& c_offsets,
                        const std::vector<cl::Event>& wait_for) {
  const std::size_t count = alphas.size();
  if (betas.size() != count || a_offsets.size() != count || b_offsets.size() != count ||
      c_offsets.size() != count) {
    throw UsageError("a batched call needs as many betas and A, B and C offsets as alphas (" +
                     std::to_string(count) + ")");
  }
  if (problem.batch != 1) {
    throw UsageError("a batched call's problem has batch 1: the lists give the items");
  }
  // Each item is checked where it lies (by the routine, offsets and buffers included), not as
  // a tight strided batch: items may share operands.
  GemmProblem item = problem;
  validate_call(item);
  // Items run in parallel within one launch: each C matrix has its span to itself (items that
  // interleave without sharing an element, in the gaps of a padded ldc, are refused too).
  std::vector<std::size_t> order = c_offsets;
  std::sort(order.begin(), order.end());
  for (std::size_t i = 1; i < count; ++i) {
    if (order[i] - order[i - 1] < item.c_span()) {
      throw UsageError("the batch's C matrices at offsets " + std::to_string(order[i - 1]) +
                       " and " + std::to_string(order[i]) +
                       " lie within each other's span (each spans " +
                       std::to_string(item.c_span()) + " elements: they must be that far apart)");
    }
  }
  impl_->require_precision(problem);
  // Evenly spaced (a positive stride: 0 means "tight" in GemmProblem) with equal scalars: one
  // strided batch.
  const auto even = [&](const std::vector<std::size_t>& offsets) {
    if (count < 2 || offsets[1] <= offsets[0]) return false;
    for (std::size_t i = 2; i < count; ++i) {
      if (offsets[i] < offsets[i - 1] || offsets[i] - offsets[i - 1] != offsets[1] - offsets[0])
        return false;
    }
    return true;
  };
  const bool same_scalars =
      std::all_of(alphas.begin(), alphas.end(), [&](double v) { return v == alphas[0]; }) &&
      std::all_of(betas.begin(), betas.end(), [&](double v) { return v == betas[0]; });
  std::lock_guard<std::mutex> lock(impl_->mutex_);
  if (count == 0) {
    GemmProblem none = item;
    none.batch = 0;
    return impl_->run_locked(impl_->queue_, none, a, b, c, 0, 0, 0, wait_for);
  }
  if (same_scalars && even(a_offsets) && even(b_offsets) && even(c_offsets)) {
    GemmProblem strided = item;
    strided.batch = count;
    strided.alpha = alphas[0], strided.beta = betas[0];
    strided.stride_a = a_offsets[1] - a_offsets[0];
    strided.stride_b = b_offsets[1] - b_offsets[0];
    strided.stride_c = c_offsets[1] - c_offsets[0];
    return impl_->run_locked(impl_->queue_, strided, a, b, c, a_offsets[0], b_offsets[0],
                             c_offsets[0], wait_for);
  }
  // Every item is checked before the first runs: a refused call changes nothing.
  for (std::size_t i = 0; i < count; ++i) {
    item.alpha = alphas[i], item.beta = betas[i];
    impl_->routine_.check(item, {&a, a_offsets[i]}, {&b, b_offsets[i]}, {&c, c_offsets[i]});
  }
  cl::Event last;
  for (std::size_t i = 0; i < count; ++i) {
    item.alpha = alphas[i], item.beta = betas[i];
    last = impl_->run_locked(impl_->queue_, item, a, b, c, a_offsets[i], b_offsets[i], c_offsets[i],
                             i == 0 ? wait_for : std::vector<cl::Event>{last});
  }
  return last;
}

}  // namespace mmtune
