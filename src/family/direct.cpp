// The direct family (kernels/gemm_direct.cl): no copies, each work-group loads its tiles of A
// and B straight from the caller's buffers; the transpositions are build options.
#include "family/typed_family.hpp"
#include "mmtune/gemm_kernels.hpp"

namespace mmtune {
namespace {

using family_limits::divisible;

ParamSpace<DirectConfig> make_direct(SpaceSize s) {
  using C = DirectConfig;
  const bool q = s == SpaceSize::kQuick;
  std::vector<Parameter<C>> p = {
      {"WGD", &C::WGD, q ? std::vector{16, 32} : std::vector{8, 16, 32, 64},
       "tile size in m, n and k"},
      {"MDIMCD", &C::MDIMCD, q ? std::vector{4, 8} : std::vector{1, 2, 4, 8, 16, 32},
       "work-group size in m"},
      {"NDIMCD", &C::NDIMCD, q ? std::vector{4, 8} : std::vector{1, 2, 4, 8, 16, 32},
       "work-group size in n"},
      {"VWMD", &C::VWMD, q ? std::vector{1, 4} : std::vector{1, 2, 4, 8}, "vector width in m"},
      {"VWND", &C::VWND, q ? std::vector{1, 4} : std::vector{1, 2, 4, 8}, "vector width in n"},
      {"KWID", &C::KWID, q ? std::vector{2} : std::vector{2, 8}, "unroll of the k loop"},
      {"MDIMAD", &C::MDIMAD, q ? std::vector{4, 8} : std::vector{1, 2, 4, 8, 16, 32},
       "work-items along A's contiguous dimension when loading"},
      {"NDIMBD", &C::NDIMBD, q ? std::vector{4, 8} : std::vector{1, 2, 4, 8, 16, 32},
       "work-items along B's contiguous dimension when loading"},
      {"PADA", &C::PADA, q ? std::vector{1} : std::vector{0, 1}, "local-memory padding of A"},
      {"PADB", &C::PADB, q ? std::vector{1} : std::vector{0, 1}, "local-memory padding of B"},
  };
  std::vector<Constraint<C>> k = {
      {"WGD % (MDIMCD*VWMD) == 0",
       {"WGD", "MDIMCD", "VWMD"},
       [](const C& c) { return c.WGD % (c.MDIMCD * c.VWMD) == 0; }},
      {"WGD % (NDIMCD*VWND) == 0",
       {"WGD", "NDIMCD", "VWND"},
       [](const C& c) { return c.WGD % (c.NDIMCD * c.VWND) == 0; }},
      {"MWID*NWID <= 256 (accumulators fit in registers)",
       {"WGD", "MDIMCD", "NDIMCD"},
       [](const C& c) { return (c.WGD / c.MDIMCD) * (c.WGD / c.NDIMCD) <= 256; }},
      {"WGD % KWID == 0", {"WGD", "KWID"}, [](const C& c) { return c.WGD % c.KWID == 0; }},
      {"MDIMAD, NDIMBD >= 8 (or the whole work-group)",
       {"MDIMAD", "NDIMBD", "MDIMCD", "NDIMCD"},
       [](const C& c) {
         const int floor = std::min(8, c.MDIMCD * c.NDIMCD);
         return c.MDIMAD >= floor && c.NDIMBD >= floor;
       }},
      {"(MDIMCD*NDIMCD) % MDIMAD == 0",
       {"MDIMCD", "NDIMCD", "MDIMAD"},
       [](const C& c) { return (c.MDIMCD * c.NDIMCD) % c.MDIMAD == 0; }},
      {"WGD % MDIMAD == 0 and WGD % KDIMAD == 0",
       {"WGD", "MDIMCD", "NDIMCD", "MDIMAD"},
       [](const C& c) {
         return c.WGD % c.MDIMAD == 0 && divisible(c.WGD, (c.MDIMCD * c.NDIMCD) / c.MDIMAD);
       }},
      {"(MDIMCD*NDIMCD) % NDIMBD == 0",
       {"MDIMCD", "NDIMCD", "NDIMBD"},
       [](const C& c) { return (c.MDIMCD * c.NDIMCD) % c.NDIMBD == 0; }},
      {"WGD % NDIMBD == 0 and WGD % KDIMBD == 0",
       {"WGD", "MDIMCD", "NDIMCD", "NDIMBD"},
       [](const C& c) {
         return c.WGD % c.NDIMBD == 0 && divisible(c.WGD, (c.MDIMCD * c.NDIMCD) / c.NDIMBD);
       }},
  };
  return {std::move(p), std::move(k)};
}

class DirectFamily final : public TypedFamily<DirectConfig> {
 public:
  constexpr DirectFamily() = default;
  std::string_view name() const override { return "direct"; }
  std::string source_file() const override { return "gemm_direct.cl"; }
  KernelArguments arguments() const override { return KernelArguments::kBuffers; }
  bool batches() const override { return true; }
  const ParamSpace<DirectConfig>& space(SpaceSize s) const override { return direct_space(s); }

  std::size_t local_memory_bytes(const KernelConfig& c, Precision p) const override {
    const auto t = get<DirectConfig>(c);
    return std::size_t(t.WGD * (t.WGD + t.PADA) + t.WGD * (t.WGD + t.PADB)) *
           family_limits::element_bytes(p);
  }
  std::vector<std::string> limit_violations(const KernelConfig& c, const DeviceInfo& d,
                                            Precision p) const override {
    auto out = family_limits::common(*this, c, d, p);
    const auto t = get<DirectConfig>(c);
    family_limits::work_group(t.MDIMCD, t.NDIMCD, d, out);
    family_limits::vectors({t.VWMD, t.VWND}, d, p, out);
    return out;
  }
  std::string extra_build_options(const KernelConfig&, const ColMajorProblem& p) const override {
    return std::string(" -DTRANS_A=") + (p.trans_a ? "1" : "0") +
           " -DTRANS_B=" + (p.trans_b ? "1" : "0");
  }
  KernelLaunch launch(const KernelConfig& c, const ColMajorProblem& p) const override {
    const auto t = get<DirectConfig>(c);
    KernelLaunch l;
    l.global = {family_limits::round_up(p.m, t.WGD) / t.WGD * t.MDIMCD,
                family_limits::round_up(p.n, t.WGD) / t.WGD * t.NDIMCD};
    l.local = {std::size_t(t.MDIMCD), std::size_t(t.NDIMCD)};
    return l;
  }
  std::array<double, 2> reuse_block(const KernelConfig& c) const override {
    const double w = get<DirectConfig>(c).WGD;
    return {w, w};
  }
};

constinit const DirectFamily direct_family;

}  // namespace

constinit const KernelKind KernelKind::kDirect{direct_family};

const ParamSpace<DirectConfig>& direct_space(SpaceSize s) {
  static const ParamSpace<DirectConfig> full = make_direct(SpaceSize::kFull);
  static const ParamSpace<DirectConfig> quick = make_direct(SpaceSize::kQuick);
  return s == SpaceSize::kFull ? full : quick;
}

}  // namespace mmtune
