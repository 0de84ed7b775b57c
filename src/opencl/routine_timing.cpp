// The kernel-alone time of a routine's call (declared in gemm_routine.hpp): from its events, or
// by running the GEMM kernel once more where event timestamps are unusable.
#include <chrono>
#include <limits>

#include "opencl/gemm_routine.hpp"

namespace mmtune {

double rerun_main_ms(const cl::CommandQueue& queue, const RoutineEvents& call) {
  if (call.item_loop) return std::numeric_limits<double>::quiet_NaN();
  if (!call.main_kernel()) return 0.0;  // a call that only scaled C
  queue.finish();
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < call.main_launches; ++i) {
    if (call.select_slice) call.select_slice(i);
    queue.enqueueNDRangeKernel(call.main_kernel, cl::NullRange, call.main_global, call.main_local);
  }
  queue.finish();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double main_kernel_ms(const cl::CommandQueue& queue, const RoutineEvents& call,
                      bool events_usable) {
  if (!events_usable || call.item_loop) return rerun_main_ms(queue, call);
  double ns = 0;
  for (std::size_t i = call.main; i < call.main + call.main_launches; ++i) {
    const cl::Event& e = call.events[i];
    ns += double(e.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                 e.getProfilingInfo<CL_PROFILING_COMMAND_START>());
  }
  return ns * 1e-6;
}

}  // namespace mmtune
