#include "bench/bench_backends.hpp"

#ifdef MMTUNE_HAVE_CBLAS
#include <cblas.h>

#include <cctype>
#include <set>
#endif

namespace mmtune::bench_detail {

#ifdef MMTUNE_HAVE_CBLAS
bool host_blas_available() {
  return true;
}

std::string host_blas_name() {
#ifdef MMTUNE_HAVE_OPENBLAS_CONFIG
  // OpenBLAS picks its kernels by CPU model at run time and falls back to generic ones for
  // models it does not know (OPENBLAS_CORETYPE overrides): the core belongs in every result.
  return std::string(openblas_get_config()) + ", core " + openblas_get_corename();
#else
  return "CBLAS";
#endif
}

std::string host_blas_warning() {
#if defined(MMTUNE_HAVE_OPENBLAS_CONFIG) && defined(__x86_64__)
  // OpenBLAS's kernel sets that use AVX2 or AVX-512; its fallback for a model it does not know
  // is an SSE one (Prescott for Intel), about a fifth of the speed of a current CPU.
  static const std::set<std::string> wide = {"haswell",        "zen",      "skylakex", "cooperlake",
                                             "sapphirerapids", "excavator"};
  const std::string core = openblas_get_corename();
  std::string lower = core;
  for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  const char* isa = __builtin_cpu_supports("avx512f") ? "AVX-512"
                    : __builtin_cpu_supports("avx2")  ? "AVX2"
                                                      : nullptr;
  if (isa && !wide.count(lower)) {
    return "OpenBLAS runs its " + core + " kernels on a CPU with " + isa +
           " (it does not know this model), far below the CPU's speed: set OPENBLAS_CORETYPE "
           "(SkylakeX for AVX-512, Haswell for AVX2) for a fair baseline";
  }
#endif
  return "";
}

bool host_gemm(const GemmProblem& p, const std::vector<unsigned char>& a,
               const std::vector<unsigned char>& b, std::vector<unsigned char>& c,
               std::string& error) {
  const auto order = p.layout == Layout::kRowMajor ? CblasRowMajor : CblasColMajor;
  const auto ta = p.trans_a ? CblasTrans : CblasNoTrans;
  const auto tb = p.trans_b ? CblasTrans : CblasNoTrans;
  const int m = int(p.m), n = int(p.n), k = int(p.k);
  const int lda = int(p.lda_or_min()), ldb = int(p.ldb_or_min()), ldc = int(p.ldc_or_min());
  if (p.precision != Precision::kDouble && p.precision != Precision::kSingle) {
    error = "the host BLAS has no fp16 GEMM";
    return false;
  }
  // A batch: one call per item, as a program without a batched BLAS would do.
  const std::size_t sa = p.stride_a_or_min(), sb = p.stride_b_or_min(), sc = p.stride_c_or_min();
  for (std::size_t i = 0; i < p.batch; ++i) {
    if (p.precision == Precision::kDouble) {
      cblas_dgemm(order, ta, tb, m, n, k, p.alpha,
                  reinterpret_cast<const double*>(a.data()) + i * sa, lda,
                  reinterpret_cast<const double*>(b.data()) + i * sb, ldb, p.beta,
                  reinterpret_cast<double*>(c.data()) + i * sc, ldc);
    } else {
      cblas_sgemm(order, ta, tb, m, n, k, float(p.alpha),
                  reinterpret_cast<const float*>(a.data()) + i * sa, lda,
                  reinterpret_cast<const float*>(b.data()) + i * sb, ldb, float(p.beta),
                  reinterpret_cast<float*>(c.data()) + i * sc, ldc);
    }
  }
  return true;
}
#else
bool host_blas_available() {
  return false;
}

std::string host_blas_name() {
  return "none";
}

std::string host_blas_warning() {
  return "";
}

bool host_gemm(const GemmProblem&, const std::vector<unsigned char>&,
               const std::vector<unsigned char>&, std::vector<unsigned char>&, std::string& error) {
  error = "not available (built without a CBLAS)";
  return false;
}
#endif

}  // namespace mmtune::bench_detail
