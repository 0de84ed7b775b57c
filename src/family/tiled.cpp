// The tiled family (kernels/gemm_tiled.cl, after CLBlast's xgemm): macro tiles per work-group,
// micro tiles per work-item, operands packed into panels (or images) by copy.cl first.
#include "family/typed_family.hpp"
#include "mmtune/gemm_kernels.hpp"

namespace mmtune {
namespace {

using family_limits::divisible;

ParamSpace<TiledConfig> make_tiled(SpaceSize s) {
  using C = TiledConfig;
  const bool q = s == SpaceSize::kQuick;
  std::vector<Parameter<C>> p = {
      {"MWG", &C::MWG, q ? std::vector{32, 64, 128} : std::vector{16, 32, 64, 128},
       "macro tile in m (rows of C per work-group)"},
      {"NWG", &C::NWG, q ? std::vector{32, 64, 128} : std::vector{16, 32, 64, 128},
       "macro tile in n (columns of C per work-group)"},
      {"KWG", &C::KWG, q ? std::vector{32} : std::vector{16, 32}, "k-slice per iteration"},
      {"MDIMC", &C::MDIMC, q ? std::vector{2, 4, 8} : std::vector{1, 2, 4, 8, 16, 32},
       "work-group size in m"},
      {"NDIMC", &C::NDIMC, q ? std::vector{2, 4, 8} : std::vector{1, 2, 4, 8, 16, 32},
       "work-group size in n"},
      {"VWM", &C::VWM, q ? std::vector{8, 16} : std::vector{1, 2, 4, 8, 16},
       "vector width in m (A, C)"},
      {"VWN", &C::VWN, q ? std::vector{8, 16} : std::vector{1, 2, 4, 8, 16},
       "vector width in n (B)"},
      {"KWI", &C::KWI, q ? std::vector{2} : std::vector{1, 2, 8}, "unroll of the k loop"},
      {"SA", &C::SA, q ? std::vector{0} : std::vector{0, 1}, "stage A in local memory"},
      {"SB", &C::SB, {0, 1}, "stage B in local memory"},
      {"MDIMA", &C::MDIMA, q ? std::vector{2, 4, 8} : std::vector{1, 2, 4, 8, 16, 32},
       "re-shaped work-items along m for loading A (SA=1)"},
      {"NDIMB", &C::NDIMB, q ? std::vector{2, 4, 8, 16} : std::vector{1, 2, 4, 8, 16, 32},
       "re-shaped work-items along n for loading B (SB=1)"},
      {"STRM", &C::STRM, q ? std::vector{0} : std::vector{0, 1},
       "strided (1) or contiguous (0) m-vectors per work-item"},
      {"STRN", &C::STRN, {0, 1}, "strided (1) or contiguous (0) n-vectors per work-item"},
      {"IMG", &C::IMG, q ? std::vector{0} : std::vector{0, 1},
       "read A and B through images of float4 texels (1) or buffers (0)", 0},
      {"PACK", &C::PACK, q ? std::vector{0, 1} : std::vector{0, 1, 2},
       "pack A and B into panels first (1), only A (2: B read in place where it is k-contiguous "
       "and whole tiles), or neither where the shape allows (0)",
       1},
      {"KC", &C::KC, q ? std::vector{0} : std::vector{0, 1024},
       "k per launch (0: all of k): slices keep a work-group's panels in cache", 0,
       /*host_only=*/true},
  };
  auto mwi = [](const C& c) { return c.MWG / c.MDIMC; };
  auto nwi = [](const C& c) { return c.NWG / c.NDIMC; };
  std::vector<Constraint<C>> k = {
      {"MWG % (MDIMC*VWM) == 0",
       {"MWG", "MDIMC", "VWM"},
       [](const C& c) { return c.MWG % (c.MDIMC * c.VWM) == 0; }},
      {"NWG % (NDIMC*VWN) == 0",
       {"NWG", "NDIMC", "VWN"},
       [](const C& c) { return c.NWG % (c.NDIMC * c.VWN) == 0; }},
      {"MWI*NWI <= 256 (accumulators fit in registers)",
       {"MWG", "NWG", "MDIMC", "NDIMC"},
       [=](const C& c) { return mwi(c) * nwi(c) <= 256; }},
      {"KWG % KWI == 0", {"KWG", "KWI"}, [](const C& c) { return c.KWG % c.KWI == 0; }},
      {"SA=0 -> MDIMA == MDIMC (MDIMA unused)",
       {"SA", "MDIMA", "MDIMC"},
       [](const C& c) { return c.SA || c.MDIMA == c.MDIMC; }},
      // Fewer than 8 loaders gain nothing from staging; this also keeps the space searchable.
      {"SA=1 -> MDIMA >= 8 (or the whole work-group)",
       {"SA", "MDIMA", "MDIMC", "NDIMC"},
       [=](const C& c) { return !c.SA || c.MDIMA >= std::min(8, c.MDIMC * c.NDIMC); }},
      {"SB=1 -> NDIMB >= 8 (or the whole work-group)",
       {"SB", "NDIMB", "MDIMC", "NDIMC"},
       [=](const C& c) { return !c.SB || c.NDIMB >= std::min(8, c.MDIMC * c.NDIMC); }},
      {"SA=1 -> (MDIMC*NDIMC) % MDIMA == 0",
       {"SA", "MDIMA", "MDIMC", "NDIMC"},
       [](const C& c) { return !c.SA || (c.MDIMC * c.NDIMC) % c.MDIMA == 0; }},
      {"SA=1 -> MWG % (MDIMA*VWM) == 0",
       {"SA", "MDIMA", "MWG", "VWM"},
       [](const C& c) { return !c.SA || c.MWG % (c.MDIMA * c.VWM) == 0; }},
      {"SA=1 -> KWG % KDIMA == 0",
       {"SA", "MDIMA", "MDIMC", "NDIMC", "KWG"},
       [](const C& c) { return !c.SA || divisible(c.KWG, (c.MDIMC * c.NDIMC) / c.MDIMA); }},
      {"SB=0 -> NDIMB == NDIMC (NDIMB unused)",
       {"SB", "NDIMB", "NDIMC"},
       [](const C& c) { return c.SB || c.NDIMB == c.NDIMC; }},
      {"SB=1 -> (MDIMC*NDIMC) % NDIMB == 0",
       {"SB", "NDIMB", "MDIMC", "NDIMC"},
       [](const C& c) { return !c.SB || (c.MDIMC * c.NDIMC) % c.NDIMB == 0; }},
      {"SB=1 -> NWG % (NDIMB*VWN) == 0",
       {"SB", "NDIMB", "NWG", "VWN"},
       [](const C& c) { return !c.SB || c.NWG % (c.NDIMB * c.VWN) == 0; }},
      {"SB=1 -> KWG % KDIMB == 0",
       {"SB", "NDIMB", "MDIMC", "NDIMC", "KWG"},
       [](const C& c) { return !c.SB || divisible(c.KWG, (c.MDIMC * c.NDIMC) / c.NDIMB); }},
      // With one vector per work-item both assignments are the same kernel.
      {"MWI == VWM -> STRM == 0",
       {"STRM", "MWG", "MDIMC", "VWM"},
       [=](const C& c) { return c.STRM == 0 || mwi(c) > c.VWM; }},
      {"NWI == VWN -> STRN == 0",
       {"STRN", "NWG", "NDIMC", "VWN"},
       [=](const C& c) { return c.STRN == 0 || nwi(c) > c.VWN; }},
      // Images replace the buffers entirely, and a work-item's vectors are whole texels.
      {"IMG=1 -> SA=0 and SB=0",
       {"IMG", "SA", "SB"},
       [](const C& c) { return !c.IMG || (c.SA == 0 && c.SB == 0); }},
      {"IMG=1 -> VWM % 4 == 0 and VWN % 4 == 0",
       {"IMG", "VWM", "VWN"},
       [](const C& c) { return !c.IMG || (c.VWM % 4 == 0 && c.VWN % 4 == 0); }},
      {"KC % KWG == 0", {"KC", "KWG"}, [](const C& c) { return c.KC % c.KWG == 0; }},
      // Slices offset the packed panels; images and in-place reads run k whole.
      {"KC>0 -> PACK>0 and IMG=0",
       {"KC", "IMG", "PACK"},
       [](const C& c) { return !c.KC || (c.PACK && !c.IMG); }},
      // Reading in place goes through global memory or images (B's layout is a build option).
      {"PACK=0 -> SA=0 and SB=0",
       {"PACK", "SA", "SB"},
       [](const C& c) { return c.PACK || (c.SA == 0 && c.SB == 0); }},
      // B read in place goes through global memory, column by column (-DBK=1).
      {"PACK=2 -> SB=0 and IMG=0",
       {"PACK", "SB", "IMG"},
       [](const C& c) { return c.PACK != 2 || (c.SB == 0 && c.IMG == 0); }},
  };
  return {std::move(p), std::move(k)};
}

class TiledFamily final : public TypedFamily<TiledConfig> {
  // PACK=0 from buffers with A's m contiguous (the kernel's vectors run along m): no copies.
  static bool in_place(const TiledConfig& t, const ColMajorProblem& p) {
    return !t.PACK && !t.IMG && !p.trans_a;
  }
  // Image kernels only store C: the beta code cost llvmpipe its registers (docs/kernels.md).
  static bool stores_c_only(const TiledConfig& t) { return t.IMG != 0; }
  // PACK=0 through images with B k-contiguous: B's texels run along k, in place or packed so.
  static bool b_k_texels(const TiledConfig& t, const ColMajorProblem& p) {
    return !t.PACK && t.IMG && !p.trans_b;
  }
  // PACK=2 with B k-contiguous (untransposed) on whole tiles of n and k: only A is packed, the
  // kernel reads B's columns where they are (a CPU's prefetchers follow a column like a panel,
  // and the transposing copy costs more than the plain one of A).
  static bool b_in_place(const TiledConfig& t, const ColMajorProblem& p) {
    return t.PACK == 2 && !p.trans_b && p.n % std::size_t(t.NWG) == 0 &&
           p.k % std::size_t(t.KWG) == 0;
  }
  static bool whole_tiles(const TiledConfig& t, const ColMajorProblem& p) {
    return p.m % std::size_t(t.MWG) == 0 && p.n % std::size_t(t.NWG) == 0 &&
           p.k % std::size_t(t.KWG) == 0;
  }

 public:
  constexpr TiledFamily() = default;
  std::string_view name() const override { return "tiled"; }
  double search_weight() const override { return 3.0; }  // the fastest family gets most tries
  std::string source_file() const override { return "gemm_tiled.cl"; }
  bool batches() const override { return true; }
  KernelArguments arguments() const override { return KernelArguments::kPackedPanels; }
  const ParamSpace<TiledConfig>& space(SpaceSize s) const override { return tiled_space(s); }

  std::size_t local_memory_bytes(const KernelConfig& c, Precision p) const override {
    const auto t = get<TiledConfig>(c);
    return std::size_t(t.SA * t.KWG * t.MWG + t.SB * t.KWG * t.NWG) *
           family_limits::element_bytes(p);
  }
  std::vector<std::string> limit_violations(const KernelConfig& c, const DeviceInfo& d,
                                            Precision p) const override {
    auto out = family_limits::common(*this, c, d, p);
    const auto t = get<TiledConfig>(c);
    family_limits::work_group(t.MDIMC, t.NDIMC, d, out);
    family_limits::vectors({t.VWM, t.VWN}, d, p, out);
    if (t.IMG && !d.image_support) out.push_back("the device has no image support (IMG=1)");
    if (t.IMG && p != Precision::kSingle) out.push_back("IMG=1 reads fp32 texels only");
    return out;
  }
  KernelLaunch launch(const KernelConfig& c, const ColMajorProblem& p) const override {
    const auto t = get<TiledConfig>(c);
    KernelLaunch l;
    l.pad_m = t.MWG, l.pad_n = t.NWG, l.pad_k = t.KWG, l.images = t.IMG != 0;
    l.stores_c_only = stores_c_only(t);
    l.in_place = in_place(t, p);
    l.b_in_place = b_in_place(t, p);
    l.images_in_place = t.IMG && !t.PACK;
    l.b_k_texels = b_k_texels(t, p);
    if (!l.in_place && !l.images) l.k_slice = std::size_t(t.KC);
    l.global = {family_limits::round_up(p.m, t.MWG) / t.MWG * t.MDIMC,
                family_limits::round_up(p.n, t.NWG) / t.NWG * t.NDIMC};
    l.local = {std::size_t(t.MDIMC), std::size_t(t.NDIMC)};
    return l;
  }
  // In place, B stored untransposed is k-contiguous (read column by column, or through images
  // as texels of four k), and partial tiles build the guarded edge path (buffers only, and only
  // then: it costs build time and code size). PACK=2 reads such a B in place beside a packed A,
  // on whole tiles only.
  // A kernel that only stores C builds without the beta code, which cost llvmpipe its
  // registers (docs/kernels.md): where beta is 0 and no later k slice adds to C, and always on
  // images, whose C the routine sends through its scratch buffer where beta is not 0.
  std::string extra_build_options(const KernelConfig& c, const ColMajorProblem& p) const override {
    const auto t = get<TiledConfig>(c);
    const std::string store = (p.beta_zero || stores_c_only(t)) && t.KC == 0 ? " -DCBETA=0" : "";
    if (b_in_place(t, p) || b_k_texels(t, p)) return " -DBK=1" + store;
    if (!in_place(t, p)) return store;
    return std::string(p.trans_b ? "" : " -DBK=1") + (whole_tiles(t, p) ? "" : " -DEDGE=1") + store;
  }
  std::array<double, 2> reuse_block(const KernelConfig& c) const override {
    const auto t = get<TiledConfig>(c);
    return {double(t.MWG), double(t.NWG)};
  }
};

constinit const TiledFamily tiled_family;

}  // namespace

constinit const KernelKind KernelKind::kTiled{tiled_family};

const ParamSpace<TiledConfig>& tiled_space(SpaceSize s) {
  static const ParamSpace<TiledConfig> full = make_tiled(SpaceSize::kFull);
  static const ParamSpace<TiledConfig> quick = make_tiled(SpaceSize::kQuick);
  return s == SpaceSize::kFull ? full : quick;
}

}  // namespace mmtune
