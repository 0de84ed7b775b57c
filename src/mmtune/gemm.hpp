// A ready, tuned GEMM for library consumers: C = alpha * op(A) * op(B) + beta * C on OpenCL
// buffers, for any shape, layout and transposition, with the parameters the tuning database
// holds for the queue's device and the problem (or built-in defaults without a database).
//
// BLAS semantics:
//   - m = 0, n = 0 or batch = 0: nothing is computed or built; the returned event completes once
//     `wait_for` has.
//   - k = 0 or alpha = 0: C = beta * C; A and B are not read (they may hold NaN, or be null).
//   - beta = 0: C is not read (it may hold NaN); C = alpha * op(A) * op(B).
// Queues: any command queue of the Gemm's context and device, in-order or out-of-order (each
// command of a call waits for the one before it, so the returned event means "all done").
// Events: a call waits for `wait_for` before it starts and returns one event that completes
// when the whole routine (packing, GEMM, copy-back) is done, so calls chain without wait().
// Threads: a Gemm may be called from several host threads at once (calls are serialised by an
// internal lock; kernels and scratch buffers are per Gemm). ParameterLookup is immutable after
// construction and safe to share.
// Errors: every misuse throws a subclass of mmtune::Error (error.hpp) with a one-line message:
// UsageError for a malformed problem, null, foreign or too small buffers, offsets or leading
// dimensions beyond 32-bit kernel indexing, counting up to 256 of padding per dimension
// (validate_call in problem.hpp; all checks are overflow-safe); NoDeviceError when
// the device lacks the precision; OpenCLError when an OpenCL call fails; Error when a kernel
// fails to build. No OpenCL exception (cl::Error) escapes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mmtune/cl.hpp"
#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "mmtune/lookup.hpp"
#include "mmtune/problem.hpp"

namespace mmtune {

class Gemm {
 public:
  // `lookup` may be null: built-in defaults for the device type are used then. The queue must
  // belong to `context`. Throws UsageError for null or mismatched handles.
  Gemm(const cl::Context& context, const cl::CommandQueue& queue,
       std::shared_ptr<const ParameterLookup> lookup = nullptr);
  // The same from raw OpenCL handles (retained, not taken over).
  Gemm(cl_context context, cl_command_queue queue,
       std::shared_ptr<const ParameterLookup> lookup = nullptr);
  ~Gemm();

  // Enqueues the multiplication on the Gemm's queue and returns the event of the whole routine.
  // Offsets are in elements. A problem with batch > 1 is a strided-batched GEMM (CLBlast's
  // GemmStridedBatched): item i reads A at a_offset + i * stride_a (B and C likewise, see
  // problem.hpp); each buffer must hold every item. The tuned parameters are those of the
  // batch; the direct kernel runs the whole batch in one launch.
  cl::Event operator()(const GemmProblem& problem, const cl::Buffer& a, const cl::Buffer& b,
                       const cl::Buffer& c, std::size_t a_offset = 0, std::size_t b_offset = 0,
                       std::size_t c_offset = 0, const std::vector<cl::Event>& wait_for = {});

  // Batched GEMM (CLBlast's GemmBatched): item i computes C_i = alphas[i] op(A_i) op(B_i) +
  // betas[i] C_i of `problem`'s shape and leading dimensions (its batch must be 1, its alpha
  // and beta are not used), A_i at a_offsets[i] and so on. The five lists must be equally
  // long; each C matrix must have its span to itself (offsets at least C's span apart, even
  // where items would interleave in the gaps of a padded ldc). Evenly spaced offsets with equal
  // scalars run as one strided batch; otherwise one routine per item, in order.
  cl::Event batched(const GemmProblem& problem, const std::vector<double>& alphas,
                    const std::vector<double>& betas, const cl::Buffer& a,
                    const std::vector<std::size_t>& a_offsets, const cl::Buffer& b,
                    const std::vector<std::size_t>& b_offsets, const cl::Buffer& c,
                    const std::vector<std::size_t>& c_offsets,
                    const std::vector<cl::Event>& wait_for = {});

  // The same on another queue of the same context and device (UsageError otherwise).
  cl::Event enqueue(const cl::CommandQueue& queue, const GemmProblem& problem, const cl::Buffer& a,
                    const cl::Buffer& b, const cl::Buffer& c, std::size_t a_offset = 0,
                    std::size_t b_offset = 0, std::size_t c_offset = 0,
                    const std::vector<cl::Event>& wait_for = {});

  // The parameters used for a problem (looked up once per shape, then cached). Tuned parameters
  // that do not build or launch on this device (a database from another driver or a similar
  // device) give way to the built-in defaults at the shape's first call: kDefault while the
  // shape is held.
  // UsageError or NoDeviceError for a problem a call would refuse as such.
  TunedParameters parameters(const GemmProblem& problem);
  // Shapes whose parameters are cached: at most kShapesHeld, the least recently used dropped.
  static constexpr std::size_t kShapesHeld = 1024;
  std::size_t shapes_held() const;
  const DeviceInfo& device() const;
  const cl::Context& context() const;

 private:
  struct Impl;  // the routine, its program cache and the parameters chosen per shape
  std::unique_ptr<Impl> impl_;
};

}  // namespace mmtune
