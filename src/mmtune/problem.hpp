// A GEMM problem: C = alpha * op(A) * op(B) + beta * C with op(A) m x k, op(B) k x n, C m x n,
// or `batch` such problems at once on matrices `stride_*` elements apart (strided-batched GEMM).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "mmtune/device_info.hpp"

namespace mmtune {

enum class Layout { kRowMajor, kColMajor };

struct GemmProblem {
  std::size_t m = 0, n = 0, k = 0;
  Precision precision = Precision::kSingle;
  Layout layout = Layout::kRowMajor;
  bool trans_a = false, trans_b = false;
  std::size_t lda = 0, ldb = 0, ldc = 0;  // 0: tight (the minimum for the layout)
  double alpha = 1.0, beta = 0.0;
  // Strided-batched: `batch` independent multiplications; item i reads A at offset + i *
  // stride_a (B, C likewise). A stride of 0 is tight: the operand's elements (ld * rows or
  // columns), matrices back to back. batch = 1 is a plain GEMM and ignores the strides.
  std::size_t batch = 1;
  std::size_t stride_a = 0, stride_b = 0, stride_c = 0;

  // Stored shape of each operand: rows x cols in the storage order of `layout`.
  std::size_t a_rows() const { return trans_a ? k : m; }
  std::size_t a_cols() const { return trans_a ? m : k; }
  std::size_t b_rows() const { return trans_b ? n : k; }
  std::size_t b_cols() const { return trans_b ? k : n; }
  // The minimum leading dimension of a rows x cols matrix in this layout.
  std::size_t min_ld(std::size_t rows, std::size_t cols) const {
    return layout == Layout::kRowMajor ? cols : rows;
  }
  std::size_t lda_or_min() const { return lda ? lda : min_ld(a_rows(), a_cols()); }
  std::size_t ldb_or_min() const { return ldb ? ldb : min_ld(b_rows(), b_cols()); }
  std::size_t ldc_or_min() const { return ldc ? ldc : min_ld(m, n); }
  // Elements each buffer must hold.
  std::size_t a_elements() const {
    return lda_or_min() * (layout == Layout::kRowMajor ? a_rows() : a_cols());
  }
  std::size_t b_elements() const {
    return ldb_or_min() * (layout == Layout::kRowMajor ? b_rows() : b_cols());
  }
  std::size_t c_elements() const { return ldc_or_min() * (layout == Layout::kRowMajor ? m : n); }
  // Elements from an operand's first to its last element: what its buffer must hold past the
  // offset (BLAS: the last row or column needs no padding to the leading dimension); 0 when
  // empty. Meaningful once validate_call() has passed (no overflow then).
  std::size_t span(std::size_t ld, std::size_t rows, std::size_t cols) const {
    const std::size_t outer = layout == Layout::kRowMajor ? rows : cols;
    const std::size_t inner = layout == Layout::kRowMajor ? cols : rows;
    return outer == 0 || inner == 0 ? 0 : (outer - 1) * ld + inner;
  }
  std::size_t a_span() const { return span(lda_or_min(), a_rows(), a_cols()); }
  std::size_t b_span() const { return span(ldb_or_min(), b_rows(), b_cols()); }
  std::size_t c_span() const { return span(ldc_or_min(), m, n); }
  std::size_t stride_a_or_min() const { return stride_a ? stride_a : a_elements(); }
  std::size_t stride_b_or_min() const { return stride_b ? stride_b : b_elements(); }
  std::size_t stride_c_or_min() const { return stride_c ? stride_c : c_elements(); }
  // Elements from the first item's first element to the last item's last one (0 when empty).
  // Meaningful once validate_call() has passed.
  std::size_t batch_span(std::size_t stride, std::size_t one) const {
    return batch == 0 || one == 0 ? 0 : (batch - 1) * stride + one;
  }
  std::size_t a_batch_span() const { return batch_span(stride_a_or_min(), a_span()); }
  std::size_t b_batch_span() const { return batch_span(stride_b_or_min(), b_span()); }
  std::size_t c_batch_span() const { return batch_span(stride_c_or_min(), c_span()); }
  std::size_t element_size() const { return static_cast<std::size_t>(precision) / 8; }
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
};

// Throws UsageError when the problem is malformed (zero size or batch, leading dimension too
// small, indices beyond 32-bit kernel arithmetic). For tuning and benchmarks, where an empty
// problem means nothing.
void validate(const GemmProblem& p);

// The same for a call of the GEMM routine, where BLAS allows m, n, k or batch to be 0 (see
// gemm.hpp). The C matrices of a batch must not overlap or interleave (stride_c >= C's span).
// 32-bit indexing is checked with room for the kernels' padding: (ld + 256) x (other dimension +
// 256) per matrix and (m + 256) x (k + 256) etc. below 2^31, which refuses some long thin problems
// that would fit (1 x 1 x 9,000,000) but keeps every padded index of every family in range.
void validate_call(const GemmProblem& p);

// Largest element index + 1 that the kernels can address: they index with 32-bit ints.
inline constexpr std::size_t kMaxKernelElements = 2147483647;

// The elements a buffer must hold from its first element for an operand that starts at `offset`
// and spans `elements`, or 0 when offset + elements cannot be addressed by the kernels (past
// kMaxKernelElements, or wrapping size_t). Never overflows.
std::size_t addressable_end(std::size_t offset, std::size_t elements);

// Throws UsageError when the problem's buffers exceed the device's memory or largest allocation.
void check_fits(const GemmProblem& p, const DeviceInfo& d);

// e.g. "2048x2048x2048 fp32 row NN", "64x64x64 fp32 row NN batch 1000"
std::string describe(const GemmProblem& p);

// A shape on a log scale, for picking tuned parameters of the nearest tuned shape (the consumer
// lookup, a tune's warm start): log2 of m, n, k and batch, an empty dimension counted as 1.
struct LogShape {
  double m = 0, n = 0, k = 0, batch = 0;
  static LogShape of(std::size_t m, std::size_t n, std::size_t k, std::size_t batch);
  static LogShape of(const GemmProblem& p) { return of(p.m, p.n, p.k, p.batch); }
  double distance2(const LogShape& o) const;  // squared Euclidean distance
};

// The column-major problem equivalent to `p`: a row-major C = op(A) op(B) is the column-major
// C^T = op(B)^T op(A)^T, so m/n, A/B and their transpositions swap. `swapped` says whether the
// caller's A and B buffers trade places.
struct ColMajorProblem {
  std::size_t m, n, k, lda, ldb, ldc;
  bool trans_a, trans_b;
  bool swapped;
  bool beta_zero = true;  // beta == 0: C is only written
};
ColMajorProblem to_col_major(const GemmProblem& p);

}  // namespace mmtune
