// The naive family (kernels/gemm_naive.cl): one work-item per element of C, straight from
// global memory, no parameters. Shows what tuning gains.
#include "family/typed_family.hpp"
#include "mmtune/gemm_kernels.hpp"

namespace mmtune {
namespace {

class NaiveFamily final : public TypedFamily<NaiveConfig> {
 public:
  constexpr NaiveFamily() = default;
  std::string_view name() const override { return "naive"; }
  FamilyRole role() const override { return FamilyRole::kReference; }
  std::string source_file() const override { return "gemm_naive.cl"; }
  KernelArguments arguments() const override { return KernelArguments::kBuffersAndTranspositions; }
  const ParamSpace<NaiveConfig>& space(SpaceSize s) const override { return naive_space(s); }

  std::size_t local_memory_bytes(const KernelConfig&, Precision) const override { return 0; }
  std::vector<std::string> limit_violations(const KernelConfig& c, const DeviceInfo& d,
                                            Precision p) const override {
    return family_limits::common(*this, c, d, p);
  }
  KernelLaunch launch(const KernelConfig&, const ColMajorProblem& p) const override {
    KernelLaunch l;
    l.global = {p.m, p.n};
    return l;
  }
};

constinit const NaiveFamily naive_family;

}  // namespace

constinit const KernelKind KernelKind::kNaive{naive_family};

const ParamSpace<NaiveConfig>& naive_space(SpaceSize) {
  static const ParamSpace<NaiveConfig> space({}, {});
  return space;
}

}  // namespace mmtune
