// A drop-in for CLBlast's GEMM: the same signature, enums and status codes as clblast::Gemm<T>
// (clblast.h, CLBlast 1.5), so a CLBlast user switches by changing the include and the
// namespace:
//
//   #include <clblast.h>                 ->  #include <mmtune/clblast_compat.hpp>
//   clblast::Gemm<float>(clblast::...)   ->  mmtune::clblast_compat::Gemm<float>(...)
//
// Differences from CLBlast, all documented here:
//   - m = 0 or n = 0 is a no-op and k = 0 or alpha = 0 computes C = beta * C without reading A
//     and B (BLAS semantics; CLBlast returns kInvalidDimension for zero sizes): their buffers are
//     not checked then, their leading dimensions are.
//   - Offsets plus the extent of a matrix must stay below 2^31 elements (the kernels index with
//     32-bit ints), and so must each matrix with room for the kernels' padding: (leading
//     dimension + 256) x (other dimension + 256), and likewise m x k, k x n and m x n. So a
//     1 x 1 x 9,000,000 problem is refused although A holds 9 M elements. Beyond that the call
//     returns kInvalidValue and touches nothing.
//   - A C buffer created CL_MEM_READ_ONLY (or A or B CL_MEM_WRITE_ONLY), or a buffer of another
//     context, returns kInvalidValue (CLBlast does not check).
//   - A tuning database that opens but cannot be read returns kDatabaseError, one that cannot
//     be opened (no such file, not an mmtune database) kInvalidValue: from SetTuningDatabase()
//     at once, through $MMTUNE_DB from every Gemm call.
//   - `temp_buffer` is ignored: scratch buffers are kept per device and context.
//   - Parameters come from the tuning database set with SetTuningDatabase(), else from the one
//     $MMTUNE_DB names (when set), else built-in defaults per device type.
// One mmtune::Gemm is kept per OpenCL context and device, created on first use (it retains the
// context and the first queue until ClearCache()); calls from several threads are safe.
#pragma once

#include <cstddef>
#include <string>

#include "mmtune/cl.hpp"

namespace mmtune::clblast_compat {

// The values of clblast::StatusCode.
enum class StatusCode {
  kSuccess = 0,
  kOpenCLCompilerNotAvailable = -3,
  kTempBufferAllocFailure = -4,
  kOpenCLOutOfResources = -5,
  kOpenCLOutOfHostMemory = -6,
  kOpenCLBuildProgramFailure = -11,
  kInvalidValue = -30,
  kInvalidCommandQueue = -36,
  kInvalidMemObject = -38,
  kInvalidEventWaitList = -57,
  kInvalidEvent = -58,
  kInvalidOperation = -59,
  kInvalidBufferSize = -61,
  kNotImplemented = -1024,
  kInvalidMatrixA = -1022,
  kInvalidMatrixB = -1021,
  kInvalidMatrixC = -1020,
  kInvalidDimension = -1017,
  kInvalidLeadDimA = -1016,
  kInvalidLeadDimB = -1015,
  kInvalidLeadDimC = -1014,
  kInsufficientMemoryA = -1011,
  kInsufficientMemoryB = -1010,
  kInsufficientMemoryC = -1009,
  kNoHalfPrecision = -2045,
  kNoDoublePrecision = -2044,
  kDatabaseError = -2041,
  kUnknownError = -2040,
  kUnexpectedError = -2039,
};

enum class Layout { kRowMajor = 101, kColMajor = 102 };
enum class Transpose { kNo = 111, kYes = 112, kConjugate = 113 };  // kConjugate = kYes (real)

// C = alpha * op(A) * op(B) + beta * C. T is float, double or cl_half (fp16 bits). On success
// `*event` (when not null) is the routine's last event, retained for the caller to release.
template <typename T>
StatusCode Gemm(const Layout layout, const Transpose a_transpose, const Transpose b_transpose,
                const std::size_t m, const std::size_t n, const std::size_t k, const T alpha,
                const cl_mem a_buffer, const std::size_t a_offset, const std::size_t a_ld,
                const cl_mem b_buffer, const std::size_t b_offset, const std::size_t b_ld,
                const T beta, cl_mem c_buffer, const std::size_t c_offset, const std::size_t c_ld,
                cl_command_queue* queue, cl_event* event = nullptr, cl_mem temp_buffer = nullptr);

// Uses the tuning database at `path` (opened read-only) for every later call; an empty path
// goes back to built-in defaults. kInvalidValue when it cannot be opened, kDatabaseError when it
// cannot be read (nothing changes then).
StatusCode SetTuningDatabase(const std::string& path);

// Drops every cached Gemm (and the contexts and queues they retain).
StatusCode ClearCache();

}  // namespace mmtune::clblast_compat
