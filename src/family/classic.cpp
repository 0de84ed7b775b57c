// The classic family (kernels/gemm_classic.cl): the textbook local-memory tiled kernel, one
// element of C per work-item. A reference point, not searched.
#include "family/typed_family.hpp"
#include "mmtune/gemm_kernels.hpp"

namespace mmtune {
namespace {

class ClassicFamily final : public TypedFamily<ClassicConfig> {
 public:
  constexpr ClassicFamily() = default;
  std::string_view name() const override { return "classic"; }
  FamilyRole role() const override { return FamilyRole::kReference; }
  std::string source_file() const override { return "gemm_classic.cl"; }
  KernelArguments arguments() const override { return KernelArguments::kBuffersAndTranspositions; }
  const ParamSpace<ClassicConfig>& space(SpaceSize s) const override { return classic_space(s); }

  std::size_t local_memory_bytes(const KernelConfig& c, Precision p) const override {
    const int tile = get<ClassicConfig>(c).TILE;
    return std::size_t(2 * tile * (tile + 1)) * family_limits::element_bytes(p);
  }
  std::vector<std::string> limit_violations(const KernelConfig& c, const DeviceInfo& d,
                                            Precision p) const override {
    auto out = family_limits::common(*this, c, d, p);
    const int tile = get<ClassicConfig>(c).TILE;
    family_limits::work_group(tile, tile, d, out);
    return out;
  }
  KernelLaunch launch(const KernelConfig& c, const ColMajorProblem& p) const override {
    const std::size_t tile = get<ClassicConfig>(c).TILE;
    KernelLaunch l;
    l.global = {family_limits::round_up(p.m, tile), family_limits::round_up(p.n, tile)};
    l.local = {tile, tile};
    return l;
  }
  std::array<double, 2> reuse_block(const KernelConfig& c) const override {
    const double t = get<ClassicConfig>(c).TILE;
    return {t, t};
  }
};

constinit const ClassicFamily classic_family;

}  // namespace

constinit const KernelKind KernelKind::kClassic{classic_family};

const ParamSpace<ClassicConfig>& classic_space(SpaceSize) {
  static const ParamSpace<ClassicConfig> space(
      {{"TILE", &ClassicConfig::TILE, {8, 16, 32}, "tile and work-group size"}}, {});
  return space;
}

}  // namespace mmtune
