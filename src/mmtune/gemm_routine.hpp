// Runs one configuration of the kernel family as a complete GEMM routine on OpenCL buffers: the
// tiled kernel with the pad/transpose copies it needs, or one of the copy-free kernels.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mmtune/cl.hpp"
#include "mmtune/device.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/kernel_source.hpp"
#include "mmtune/problem.hpp"
#include "mmtune/program_cache.hpp"

namespace mmtune {

// Events of one routine call, in enqueue order. `main` indexes the GEMM kernel itself.
struct RoutineEvents {
  std::vector<cl::Event> events;
  std::size_t main = 0;
};

struct Operand {
  const cl::Buffer* buffer;
  std::size_t offset = 0;  // in elements
};

class GemmRoutine {
 public:
  GemmRoutine(const KernelSources& sources, ProgramCache& cache, const DeviceInfo& device);

  // Builds everything `config` needs for this problem (its precision; the direct kernel also
  // specialises on the transpositions). On failure returns false and the log. Builds are
  // cached, so calling it again is cheap. Thread-safe.
  struct Prepared {
    bool ok = false;
    std::string log;
    double build_seconds = 0.0;
  };
  Prepared prepare(const KernelConfig& config, const GemmProblem& problem);

  // Enqueues C = alpha op(A) op(B) + beta C. Throws UsageError for buffers too small or a
  // malformed problem, and cl::Error when the launch fails. prepare() must have succeeded.
  RoutineEvents enqueue(cl::CommandQueue& queue, const GemmProblem& problem,
                        const KernelConfig& config, Operand a, Operand b, Operand c);

 private:
  // OpenCL build options of the main program for a configuration and problem.
  static std::string options(const KernelConfig& config, const GemmProblem& problem);
  cl::Kernel& kernel(const KernelConfig& config, const GemmProblem& problem);
  cl::Buffer& scratch(int slot, std::size_t bytes);

  const KernelSources& sources_;
  ProgramCache& cache_;
  DeviceInfo device_;
  std::map<std::string, cl::Kernel> kernels_;                    // key: build options
  struct CopyKernels {
    cl::Kernel pack_rows, pack_cols, unpad;  // kernels/copy.cl
  };
  std::map<Precision, CopyKernels> copy_;
  cl::Buffer scratch_[3];
  std::size_t scratch_bytes_[3] = {0, 0, 0};
};

}  // namespace mmtune
