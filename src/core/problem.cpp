#include "mmtune/problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/precision.hpp"
#include "mmtune/error.hpp"

namespace mmtune {

void validate(const GemmProblem& p) {
  if (p.m == 0 || p.n == 0 || p.k == 0) {
    throw UsageError("matrix sizes must be at least 1 (got m=" + std::to_string(p.m) +
                     ", n=" + std::to_string(p.n) + ", k=" + std::to_string(p.k) + ")");
  }
  if (p.batch == 0) throw UsageError("the batch must hold at least 1 multiplication");
  validate_call(p);
}

std::size_t addressable_end(std::size_t offset, std::size_t elements) {
  if (offset > kMaxKernelElements || elements > kMaxKernelElements - offset) return 0;
  return offset + elements;
}

namespace {

// A batch's strides: every item within 32-bit kernel indexing, and C's items apart (the kernels
// write them in parallel). The strides and spans are below 2^31 by then; doubles for the product.
void check_batch(const GemmProblem& p) {
  const auto check = [&](const char* name, std::size_t stride, std::size_t span) {
    if (double(p.batch - 1) * double(stride) + double(span) > double(kMaxKernelElements)) {
      throw UsageError("problem " + describe(p) + " is too large: " + name + "'s " +
                       std::to_string(p.batch) + " matrices " + std::to_string(stride) +
                       " elements apart exceed 2^31 elements");
    }
  };
  if (p.stride_c != 0 && p.stride_c < p.c_span()) {
    throw UsageError("stride_c=" + std::to_string(p.stride_c) +
                     " puts the batch's C matrices within each other's span: it must be at least " +
                     std::to_string(p.c_span()));
  }
  // Only the operands the call touches (gemm.hpp): none when C is empty, and neither A nor B
  // when k or alpha is 0 (alpha as the kernel's precision holds it, as GemmRoutine reads it).
  if (p.m == 0 || p.n == 0) return;
  if (p.k != 0 && round_to(p.alpha, p.precision) != 0.0) {
    check("A", p.stride_a_or_min(), p.a_span());
    check("B", p.stride_b_or_min(), p.b_span());
  }
  check("C", p.stride_c_or_min(), p.c_span());
}

}  // namespace

void validate_call(const GemmProblem& p) {
  if (p.precision != Precision::kHalf && p.precision != Precision::kSingle &&
      p.precision != Precision::kDouble) {
    throw UsageError("precision must be 16, 32 or 64 bits");
  }
  if (p.layout != Layout::kRowMajor && p.layout != Layout::kColMajor) {
    throw UsageError("layout must be row- or column-major");
  }
  const auto check_ld = [&](const char* name, std::size_t ld, std::size_t rows, std::size_t cols) {
    if (ld != 0 && ld < p.min_ld(rows, cols)) {
      throw UsageError(std::string(name) + "=" + std::to_string(ld) + " is smaller than " +
                       std::to_string(p.min_ld(rows, cols)));
    }
  };
  check_ld("lda", p.lda, p.a_rows(), p.a_cols());
  check_ld("ldb", p.ldb, p.b_rows(), p.b_cols());
  check_ld("ldc", p.ldc, p.m, p.n);
  // Kernels index with 32-bit ints; padding can add up to one 256-wide tile per dimension.
  // Doubles, because products of huge sizes overflow 64-bit integers (all values here are exact
  // below 2^53, and anything larger is refused either way).
  // A matrix spans its leading dimension times its other stored dimension (rows of a row-major
  // matrix), not times its larger one: 8 x 50000 is 400,000 elements.
  const double m = double(p.m) + 256.0, n = double(p.n) + 256.0, k = double(p.k) + 256.0;
  const auto span = [&](std::size_t ld, std::size_t rows, std::size_t cols) {
    const std::size_t outer = p.layout == Layout::kRowMajor ? rows : cols;
    return (double(ld) + 256.0) * (double(outer) + 256.0);
  };
  const double biggest = std::max({span(p.lda_or_min(), p.a_rows(), p.a_cols()),
                                   span(p.ldb_or_min(), p.b_rows(), p.b_cols()),
                                   span(p.ldc_or_min(), p.m, p.n), m * n, m * k, n * k});
  if (biggest > double(std::numeric_limits<int>::max())) {
    throw UsageError("problem " + describe(p) +
                     " is too large: a matrix would exceed 2^31 elements");
  }
  if (p.batch > 1) check_batch(p);
}

void check_fits(const GemmProblem& p, const DeviceInfo& d) {
  // Doubles: sizes like 99999999999^2 overflow 64-bit integers.
  const double es = double(p.element_size());
  const auto bytes = [&](std::size_t ld, std::size_t rows, std::size_t cols) {
    return double(ld ? ld : p.min_ld(rows, cols)) *
           double(p.layout == Layout::kRowMajor ? rows : cols) * es;
  };
  // A batch's operands each in one buffer, the items their strides apart.
  const double more = double(std::max<std::size_t>(p.batch, 1) - 1);
  const double a = bytes(p.lda, p.a_rows(), p.a_cols()) + more * double(p.stride_a_or_min()) * es;
  const double b = bytes(p.ldb, p.b_rows(), p.b_cols()) + more * double(p.stride_b_or_min()) * es;
  const double c = bytes(p.ldc, p.m, p.n) + more * double(p.stride_c_or_min()) * es;
  const auto gib = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g GiB", v / double(1ull << 30));
    return std::string(buf);
  };
  const double largest = std::max({a, b, c});
  if (largest > double(d.max_alloc_bytes)) {
    throw UsageError("problem " + describe(p) + " needs a " + gib(largest) + " buffer; device '" +
                     d.name + "' allocates at most " + gib(double(d.max_alloc_bytes)));
  }
  if (a + b + c > double(d.global_mem_bytes)) {
    throw UsageError("problem " + describe(p) + " needs " + gib(a + b + c) + "; device '" + d.name +
                     "' has " + gib(double(d.global_mem_bytes)));
  }
}

std::string describe(const GemmProblem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + " fp" +
         to_string(p.precision) + (p.layout == Layout::kRowMajor ? " row " : " col ") +
         (p.trans_a ? "T" : "N") + (p.trans_b ? "T" : "N") +
         (p.batch != 1 ? " batch " + std::to_string(p.batch) : "");
}

ColMajorProblem to_col_major(const GemmProblem& p) {
  ColMajorProblem c{p.m,       p.n,       p.k,  p.lda_or_min(), p.ldb_or_min(), p.ldc_or_min(),
                    p.trans_a, p.trans_b, false};
  if (p.layout == Layout::kRowMajor) {
    c = {p.n, p.m, p.k, p.ldb_or_min(), p.lda_or_min(), p.ldc_or_min(), p.trans_b, p.trans_a, true};
  }
  c.beta_zero = p.beta == 0.0;
  return c;
}

LogShape LogShape::of(std::size_t m, std::size_t n, std::size_t k, std::size_t batch) {
  const auto log = [](std::size_t v) { return std::log2(double(std::max<std::size_t>(v, 1))); };
  return {log(m), log(n), log(k), log(batch)};
}

double LogShape::distance2(const LogShape& o) const {
  const double dm = m - o.m, dn = n - o.n, dk = k - o.k, db = batch - o.batch;
  return dm * dm + dn * dn + dk * dk + db * db;
}

}  // namespace mmtune
