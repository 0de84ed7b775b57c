// What a GEMM routine's call must be given (declared in gemm_routine.hpp): a well-formed problem
// and, for each operand it reads or writes, a buffer of this context, large enough, addressable
// by 32-bit indexing, and created with access flags that allow what the call does to it.
#include "mmtune/error.hpp"
#include "opencl/gemm_routine.hpp"

namespace mmtune {

void GemmRoutine::check_operand(const char* name, const Operand& o, std::size_t elements,
                                std::size_t element_size, Access access) const {
  if (!o.buffer || !(*o.buffer)()) throw UsageError(std::string("buffer ") + name + " is null");
  cl_context owner = nullptr;
  std::size_t have = 0;
  cl_mem_flags flags = 0;
  cl_mem_object_type type = 0;
  if (clGetMemObjectInfo((*o.buffer)(), CL_MEM_TYPE, sizeof type, &type, nullptr) != CL_SUCCESS ||
      clGetMemObjectInfo((*o.buffer)(), CL_MEM_CONTEXT, sizeof owner, &owner, nullptr) !=
          CL_SUCCESS ||
      clGetMemObjectInfo((*o.buffer)(), CL_MEM_SIZE, sizeof have, &have, nullptr) != CL_SUCCESS ||
      clGetMemObjectInfo((*o.buffer)(), CL_MEM_FLAGS, sizeof flags, &flags, nullptr) !=
          CL_SUCCESS) {
    throw UsageError(std::string("buffer ") + name + " is not a valid OpenCL buffer");
  }
  if (type != CL_MEM_OBJECT_BUFFER) {  // an image or pipe handed over as a cl::Buffer
    throw UsageError(std::string("buffer ") + name + " is an OpenCL image or pipe, not a buffer");
  }
  if (owner != cache_.context()()) {
    throw UsageError(std::string("buffer ") + name + " belongs to another OpenCL context");
  }
  // A kernel reading a write-only buffer, or writing a read-only one, is undefined in OpenCL.
  if ((flags & CL_MEM_WRITE_ONLY) && access != Access::kWrite) {
    throw UsageError(std::string("buffer ") + name +
                     " was created CL_MEM_WRITE_ONLY, but the GEMM reads it" +
                     (access == Access::kReadWrite ? " (beta is not 0)" : ""));
  }
  if ((flags & CL_MEM_READ_ONLY) && access != Access::kRead) {
    throw UsageError(std::string("buffer ") + name +
                     " was created CL_MEM_READ_ONLY, but the GEMM writes it");
  }
  // Kernels index with 32-bit ints from the buffer's start, offset included.
  const std::size_t end = addressable_end(o.offset, elements);
  if (end == 0 && elements != 0) {
    throw UsageError(std::string("buffer ") + name + ": offset " + std::to_string(o.offset) +
                     " plus " + std::to_string(elements) +
                     " elements is beyond the 2^31 - 1 elements the kernels can address");
  }
  if (end > have / element_size) {  // end <= 2^31 and element_size <= 8: no overflow below
    throw UsageError(std::string("buffer ") + name + " holds " + std::to_string(have) +
                     " bytes, the problem needs " + std::to_string(end * element_size) +
                     " (offset " + std::to_string(o.offset) + " + " + std::to_string(elements) +
                     " elements)");
  }
}

void GemmRoutine::check(const GemmProblem& problem, Operand a, Operand b, Operand c) const {
  validate_call(problem);
  if (problem.m == 0 || problem.n == 0 || problem.batch == 0) return;
  const std::size_t es = problem.element_size();
  if (multiplies(problem)) {
    check_operand("A", a, problem.a_batch_span(), es, Access::kRead);
    check_operand("B", b, problem.b_batch_span(), es, Access::kRead);
  }
  check_operand("C", c, problem.c_batch_span(), es,
                problem.beta == 0.0 ? Access::kWrite : Access::kReadWrite);
}

}  // namespace mmtune
