// A ready, tuned GEMM for library consumers: C = alpha * op(A) * op(B) + beta * C on OpenCL
// buffers, for any shape, layout and transposition, with the parameters the tuning database
// holds for the queue's device and the problem (or built-in defaults without a database).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "mmtune/cl.hpp"
#include "mmtune/device.hpp"
#include "mmtune/gemm_routine.hpp"
#include "mmtune/kernel_source.hpp"
#include "mmtune/lookup.hpp"
#include "mmtune/problem.hpp"
#include "mmtune/program_cache.hpp"

namespace mmtune {

class Gemm {
 public:
  // `lookup` may be null: built-in defaults for the device type are used then.
  Gemm(const cl::Context& context, const cl::CommandQueue& queue,
       std::shared_ptr<const ParameterLookup> lookup = nullptr);
  // The same from raw OpenCL handles (retained, not taken over).
  Gemm(cl_context context, cl_command_queue queue,
       std::shared_ptr<const ParameterLookup> lookup = nullptr);

  // Enqueues the multiplication and returns the event of its last command. Offsets are in
  // elements. Throws UsageError for a malformed problem or buffers that are too small,
  // NoDeviceError when the device lacks the precision, Error when a kernel fails to build.
  cl::Event operator()(const GemmProblem& problem, const cl::Buffer& a, const cl::Buffer& b,
                       const cl::Buffer& c, std::size_t a_offset = 0, std::size_t b_offset = 0,
                       std::size_t c_offset = 0);

  // The parameters used for a problem (looked up once per shape, then cached).
  const TunedParameters& parameters(const GemmProblem& problem);
  const DeviceInfo& device() const { return device_; }

 private:
  cl::Context context_;
  cl::CommandQueue queue_;
  DeviceInfo device_;
  std::shared_ptr<const ParameterLookup> lookup_;
  KernelSources sources_;
  ProgramCache cache_;
  GemmRoutine routine_;
  using ShapeKey = std::tuple<std::size_t, std::size_t, std::size_t, int, int, bool, bool>;
  std::map<ShapeKey, TunedParameters> chosen_;
};

}  // namespace mmtune
