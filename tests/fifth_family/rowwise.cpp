#include "fifth_family/rowwise.hpp"

#include "family/typed_family.hpp"

namespace mmtune::test {
namespace {

// The family's own OpenCL C, built after kernels/common.cl; the arguments of gemm_naive.cl.
constexpr const char* kSource = R"CL(
#ifndef WPT
#define WPT 2  // rows of C per work-item
#endif
__kernel void gemm_rowwise(const int M, const int N, const int K, const real alpha,
                           const real beta, const __global real* restrict A, const int a_offset,
                           const int lda, const int a_trans, const __global real* restrict B,
                           const int b_offset, const int ldb, const int b_trans,
                           __global real* C, const int c_offset, const int ldc) {
  const int n = get_global_id(1);
  if (n >= N) return;
  A += a_offset;
  B += b_offset;
  for (int w = 0; w < WPT; ++w) {
    const int m = get_global_id(0) * WPT + w;
    if (m >= M) return;
    real sum = (real)0;
    for (int k = 0; k < K; ++k) {
      const real a = a_trans ? A[k + m * lda] : A[m + k * lda];
      const real b = b_trans ? B[n + k * ldb] : B[k + n * ldb];
      sum += a * b;
    }
    __global real* c = C + c_offset + m + n * ldc;
    *c = (beta != (real)0) ? alpha * sum + beta * *c : alpha * sum;
  }
}
)CL";

class RowwiseFamily final : public TypedFamily<RowwiseConfig> {
 public:
  constexpr RowwiseFamily() = default;
  std::string_view name() const override { return "rowwise"; }
  std::string source_file() const override { return "(tests/fifth_family/rowwise.cpp)"; }
  std::string source_text() const override { return kSource; }
  KernelArguments arguments() const override { return KernelArguments::kBuffersAndTranspositions; }
  const ParamSpace<RowwiseConfig>& space(SpaceSize) const override { return rowwise_space(); }
  std::size_t local_memory_bytes(const KernelConfig&, Precision) const override { return 0; }
  std::vector<std::string> limit_violations(const KernelConfig& c, const DeviceInfo& d,
                                            Precision p) const override {
    auto out = family_limits::common(*this, c, d, p);
    family_limits::work_group(get<RowwiseConfig>(c).WGM, 1, d, out);
    return out;
  }
  KernelLaunch launch(const KernelConfig& c, const ColMajorProblem& p) const override {
    const auto t = get<RowwiseConfig>(c);
    const std::size_t rows = (p.m + t.WPT - 1) / t.WPT;
    KernelLaunch l;
    l.global = {family_limits::round_up(rows, t.WGM), p.n};
    l.local = {std::size_t(t.WGM), 1};
    return l;
  }
};

constinit const RowwiseFamily rowwise;

}  // namespace

KernelKind rowwise_kind() {
  return rowwise;
}

const ParamSpace<RowwiseConfig>& rowwise_space() {
  using C = RowwiseConfig;
  static const ParamSpace<C> space(
      {{"WPT", &C::WPT, {1, 2, 4, 8}, "rows of C per work-item"},
       {"WGM", &C::WGM, {4, 8, 16, 32}, "work-items per work-group"}},
      {{"WPT*WGM <= 64", {"WPT", "WGM"}, [](const C& c) { return c.WPT * c.WGM <= 64; }}});
  return space;
}

const FamilyRegistry& families_with_rowwise() {
  static const FamilyRegistry r = [] {
    FamilyRegistry f = FamilyRegistry::builtin();
    f.add(rowwise_kind());
    return f;
  }();
  return r;
}

}  // namespace mmtune::test
