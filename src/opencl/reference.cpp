#include "opencl/reference.hpp"

#include <algorithm>
#include <cmath>
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

}  // namespace

Reference reference_gemm(const GemmProblem& p, const Operands& in) {
  const ColMajorProblem cp = to_col_major(p);
  const std::vector<double>& a = cp.swapped ? in.b : in.a;
  const std::vector<double>& b = cp.swapped ? in.a : in.b;
  const std::size_t sa = cp.swapped ? p.stride_b_or_min() : p.stride_a_or_min();
  const std::size_t sb = cp.swapped ? p.stride_a_or_min() : p.stride_b_or_min();
  const std::size_t sc = p.stride_c_or_min();
  Reference r{in.c, std::vector<double>(in.c.size(), 0.0)};
  // Columns j0..j1 of one item of the batch.
  const auto columns = [&](std::size_t item, std::size_t j0, std::size_t j1) {
    const double* ai = a.data() + item * sa;
    const double* bi = b.data() + item * sb;
    const std::size_t c0 = item * sc;
    std::vector<double> sum(cp.m), abs_sum(cp.m);
    for (std::size_t j = j0; j < j1; ++j) {
      std::fill(sum.begin(), sum.end(), 0.0);
      std::fill(abs_sum.begin(), abs_sum.end(), 0.0);
      for (std::size_t l = 0; l < cp.k; ++l) {
        const double bv = cp.trans_b ? bi[j + l * cp.ldb] : bi[l + j * cp.ldb];
        // The inner loop runs along m, contiguous in A when it is not transposed.
        for (std::size_t i = 0; i < cp.m; ++i) {
          const double av = cp.trans_a ? ai[l + i * cp.lda] : ai[i + l * cp.lda];
          sum[i] += av * bv;
          abs_sum[i] += std::fabs(av * bv);
        }
      }
      for (std::size_t i = 0; i < cp.m; ++i) {
        double& c = r.c[c0 + i + j * cp.ldc];
        const double old = c;
        c = p.alpha * sum[i] + (p.beta != 0.0 ? p.beta * old : 0.0);
        r.bound[c0 + i + j * cp.ldc] =
            std::fabs(p.alpha) * abs_sum[i] + (p.beta != 0.0 ? std::fabs(p.beta * old) : 0.0);
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
