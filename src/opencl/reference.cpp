#include "opencl/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

namespace mmtune {
namespace {

double epsilon(Precision p) {
  switch (p) {
    case Precision::kHalf:
      return 0x1p-10;
    case Precision::kSingle:
      return 0x1p-23;
    case Precision::kDouble:
      return 0x1p-52;
  }
  return 0.0;
}

// The micro-kernel's clones: AVX2/AVX-512 where the CPU has them (the build itself targets any
// x86-64), picked once at load time. GCC only: clang builds (the fuzzers) take the plain code.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MMTUNE_CPU_CLONES \
  __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define MMTUNE_CPU_CLONES
#endif

constexpr std::size_t kRows = 64, kDepth = 256;  // A's block: 2 x 128 KiB of doubles
// 8 doubles as one value: one AVX-512 register, two AVX2 or four SSE2 ones (GNU vector extension).
using Vec8 = double __attribute__((vector_size(64)));
constexpr std::size_t kLanes = 8, kCols = 8;  // sums of C in registers: kLanes rows x kCols columns

// kCols columns of C, kLanes rows from the block's row r0: sum += blk * bc, abs_sum += abs_blk *
// abs_bc over `depth` (bc holds the columns' B interleaved: bc[l * kCols + c]). Each element
// sums over l in order; fp32 and fp16 products are exact in double, so every clone gives the
// same bits for them (in fp64 an FMA may change the last bit).
MMTUNE_CPU_CLONES void micro_kernel(const double* blk, const double* abs_blk, const double* bc,
                                    const double* abs_bc, std::size_t depth, double* sum,
                                    double* abs_sum, std::size_t ldc, std::size_t rows,
                                    std::size_t cols) {
  Vec8 s[kCols], t[kCols];
  for (std::size_t c = 0; c < kCols; ++c) {
    for (std::size_t r = 0; r < kLanes; ++r) {
      const bool in = c < cols && r < rows;
      s[c][r] = in ? sum[r + c * ldc] : 0.0;
      t[c][r] = in ? abs_sum[r + c * ldc] : 0.0;
    }
  }
  for (std::size_t l = 0; l < depth; ++l) {
    Vec8 x, y;
    std::memcpy(&x, blk + l * kRows, sizeof x);
    std::memcpy(&y, abs_blk + l * kRows, sizeof y);
    for (std::size_t c = 0; c < kCols; ++c) {
      s[c] += x * bc[l * kCols + c];
      t[c] += y * abs_bc[l * kCols + c];
    }
  }
  for (std::size_t c = 0; c < cols; ++c) {
    for (std::size_t r = 0; r < rows; ++r) {
      sum[r + c * ldc] = s[c][r];
      abs_sum[r + c * ldc] = t[c][r];
    }
  }
}

// Adds A*B and |A|*|B| for columns j0..j1 of C into sum and abs_sum (laid out as C, ldc). A
// block of kRows x kDepth of A, copied contiguous (either transposition) with its absolute
// values, stays in cache while every column uses it; kCols columns of B at a time share each
// load of it (2048^3 fp32 on 2 Zen 5 cores: 2.4-2.8 s with one column at a time, now 0.59 s).
void accumulate(const ColMajorProblem& cp, const double* a, const double* b, std::size_t j0,
                std::size_t j1, double* sum, double* abs_sum) {
  std::vector<double> blk(kRows * kDepth), abs_blk(kRows * kDepth);
  std::vector<double> bc(kDepth * kCols), abs_bc(kDepth * kCols);
  for (std::size_t l0 = 0; l0 < cp.k; l0 += kDepth) {
    const std::size_t depth = std::min(kDepth, cp.k - l0);
    for (std::size_t i0 = 0; i0 < cp.m; i0 += kRows) {
      const std::size_t rows = std::min(kRows, cp.m - i0);
      for (std::size_t l = 0; l < depth; ++l) {
        for (std::size_t ii = 0; ii < kRows; ++ii) {
          const std::size_t i = i0 + ii, ll = l0 + l;
          const double v = ii >= rows ? 0.0 : cp.trans_a ? a[ll + i * cp.lda] : a[i + ll * cp.lda];
          blk[l * kRows + ii] = v;
          abs_blk[l * kRows + ii] = std::fabs(v);
        }
      }
      for (std::size_t j = j0; j < j1; j += kCols) {
        const std::size_t cols = std::min(kCols, j1 - j);
        for (std::size_t l = 0; l < depth; ++l) {
          const std::size_t ll = l0 + l;
          for (std::size_t c = 0; c < kCols; ++c) {
            const double v = c >= cols    ? 0.0
                             : cp.trans_b ? b[j + c + ll * cp.ldb]
                                          : b[ll + (j + c) * cp.ldb];
            bc[l * kCols + c] = v;
            abs_bc[l * kCols + c] = std::fabs(v);
          }
        }
        for (std::size_t r0 = 0; r0 < rows; r0 += kLanes) {
          const std::size_t at = i0 + r0 + j * cp.ldc;
          micro_kernel(blk.data() + r0, abs_blk.data() + r0, bc.data(), abs_bc.data(), depth,
                       sum + at, abs_sum + at, cp.ldc, std::min(kLanes, rows - r0), cols);
        }
      }
    }
  }
}

}  // namespace

Reference reference_gemm(const GemmProblem& p, const Operands& in) {
  const ColMajorProblem cp = to_col_major(p);
  const std::vector<double>& a = cp.swapped ? in.b : in.a;
  const std::vector<double>& b = cp.swapped ? in.a : in.b;
  const std::size_t sa = cp.swapped ? p.stride_b_or_min() : p.stride_a_or_min();
  const std::size_t sb = cp.swapped ? p.stride_a_or_min() : p.stride_b_or_min();
  const std::size_t sc = p.stride_c_or_min();
  Reference r{in.c, std::vector<double>(in.c.size(), 0.0)};
  std::vector<double> sum(in.c.size(), 0.0);  // A*B, laid out as C; r.bound gets |A|*|B|
  // Columns j0..j1 of one item of the batch.
  const auto columns = [&](std::size_t item, std::size_t j0, std::size_t j1) {
    const std::size_t c0 = item * sc;
    accumulate(cp, a.data() + item * sa, b.data() + item * sb, j0, j1, sum.data() + c0,
               r.bound.data() + c0);
    for (std::size_t j = j0; j < j1; ++j) {
      for (std::size_t i = 0; i < cp.m; ++i) {
        const std::size_t at = c0 + i + j * cp.ldc;
        const double old = r.c[at];
        r.c[at] = p.alpha * sum[at] + (p.beta != 0.0 ? p.beta * old : 0.0);
        r.bound[at] =
            std::fabs(p.alpha) * r.bound[at] + (p.beta != 0.0 ? std::fabs(p.beta * old) : 0.0);
      }
    }
  };
  // Columns, or the items of a batch, are independent: split them over the cores (large
  // problems take seconds).
  const double work = double(cp.m) * double(cp.n) * double(cp.k) * double(p.batch);
  const std::size_t parts = p.batch > 1 ? p.batch : cp.n;
  const std::size_t threads =
      work < 1e7 ? 1
                 : std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), parts);
  const auto share = [&](std::size_t t0, std::size_t t1) {
    if (p.batch > 1) {
      for (std::size_t item = t0; item < t1; ++item) columns(item, 0, cp.n);
    } else {
      columns(0, t0, t1);
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back(share, parts * t / threads, parts * (t + 1) / threads);
  }
  for (auto& t : pool) t.join();
  return r;
}

Verdict verify(const GemmProblem& p, const Reference& ref, const std::vector<double>& got,
               const std::vector<double>& original_c) {
  Verdict v;
  if (got.size() != ref.c.size()) {
    v.ok = false;
    v.message = "result has " + std::to_string(got.size()) + " elements, expected " +
                std::to_string(ref.c.size());
    return v;
  }
  const ColMajorProblem cp = to_col_major(p);
  const double eps = epsilon(p.precision);
  const double factor = 2.0 * double(p.k + 2) * eps;
  // Elements of C inside a matrix of the batch; every other one must be untouched.
  std::vector<bool> inside(got.size(), false);
  for (std::size_t item = 0; item < p.batch; ++item) {
    const std::size_t c0 = item * p.stride_c_or_min();
    for (std::size_t j = 0; j < cp.n; ++j) {
      for (std::size_t i = 0; i < cp.m; ++i) {
        const std::size_t idx = c0 + i + j * cp.ldc;
        if (idx >= got.size()) break;
        inside[idx] = true;
        // The smallest normal number keeps exact-zero bounds from demanding bit equality.
        const double tol = factor * ref.bound[idx] + std::numeric_limits<float>::min();
        const double err = std::fabs(got[idx] - ref.c[idx]);
        const double scaled = std::isnan(err) ? std::numeric_limits<double>::infinity() : err / tol;
        v.max_tol_ratio = std::max(v.max_tol_ratio, scaled);
        v.max_error =
            std::max(v.max_error, std::isnan(err) ? std::numeric_limits<double>::infinity() : err);
        if (!(err <= tol) && v.ok) {
          v.ok = false;
          const std::size_t row = p.layout == Layout::kRowMajor ? j : i;
          const std::size_t col = p.layout == Layout::kRowMajor ? i : j;
          v.message = "C(" + std::to_string(row) + "," + std::to_string(col) + ")" +
                      (p.batch > 1 ? " of item " + std::to_string(item) : "") + " = " +
                      std::to_string(got[idx]) + ", expected " + std::to_string(ref.c[idx]);
        }
      }
    }
  }
  for (std::size_t idx = 0; idx < got.size() && v.ok; ++idx) {
    if (inside[idx]) continue;
    const bool same =
        std::isnan(original_c[idx]) ? std::isnan(got[idx]) : got[idx] == original_c[idx];
    if (!same) {
      v.ok = false;
      v.message = "element outside the matrix was modified at index " + std::to_string(idx);
    }
  }
  return v;
}

}  // namespace mmtune
