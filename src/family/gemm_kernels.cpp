#include "mmtune/gemm_kernels.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include "mmtune/error.hpp"

namespace mmtune {
namespace {

// a % b == 0 for a quotient b that is 0 when an earlier constraint already failed: violations()
// checks every constraint, so none may divide by zero (found by fuzz_config).
bool divisible(int a, int b) {
  return b > 0 && a % b == 0;
}

// ---- tiled ----------------------------------------------------------------------------------

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
      {"KWI", &C::KWI, q ? std::vector{2} : std::vector{2, 8}, "unroll of the k loop"},
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
  };
  return {std::move(p), std::move(k)};
}

// ---- direct ---------------------------------------------------------------------------------

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

ParamSpace<ClassicConfig> make_classic(SpaceSize) {
  return {{{"TILE", &ClassicConfig::TILE, {8, 16, 32}, "tile and work-group size"}}, {}};
}

// ---- shared helpers -------------------------------------------------------------------------

template <class C>
const ParamSpace<C>& space_of(SpaceSize s);
template <>
const ParamSpace<TiledConfig>& space_of(SpaceSize s) {
  return tiled_space(s);
}
template <>
const ParamSpace<DirectConfig>& space_of(SpaceSize s) {
  return direct_space(s);
}
template <>
const ParamSpace<NaiveConfig>& space_of(SpaceSize s) {
  return naive_space(s);
}
template <>
const ParamSpace<ClassicConfig>& space_of(SpaceSize s) {
  return classic_space(s);
}

// Calls f with a default-constructed config of the kernel's type (a type tag).
template <class F>
decltype(auto) with_kernel(KernelKind k, F&& f) {
  switch (k) {
    case KernelKind::kTiled:
      return f(TiledConfig{});
    case KernelKind::kDirect:
      return f(DirectConfig{});
    case KernelKind::kNaive:
      return f(NaiveConfig{});
    case KernelKind::kClassic:
      return f(ClassicConfig{});
  }
  throw std::logic_error("unknown kernel kind");
}

// Vectors wider than the device prefers only split into several registers; up to 8 is always
// allowed because GPUs that prefer scalars still load 16-32 bytes per access efficiently.
unsigned max_vector_width(const DeviceInfo& d, Precision p) {
  return std::max(8u, d.preferred_width(p));
}

void check_work_group(std::size_t x, std::size_t y, const DeviceInfo& d,
                      std::vector<std::string>& out) {
  if (x * y > d.max_work_group_size) {
    out.push_back("work-group size " + std::to_string(x * y) + " exceeds the device's " +
                  std::to_string(d.max_work_group_size));
  }
  if (d.max_work_item_sizes.size() >= 2 &&
      (x > d.max_work_item_sizes[0] || y > d.max_work_item_sizes[1])) {
    out.push_back("work-group shape " + std::to_string(x) + "x" + std::to_string(y) +
                  " exceeds the device's work-item sizes");
  }
}

void check_vectors(std::initializer_list<int> widths, const DeviceInfo& d, Precision p,
                   std::vector<std::string>& out) {
  for (int w : widths) {
    if (unsigned(w) > max_vector_width(d, p)) {
      out.push_back("vector width " + std::to_string(w) + " exceeds " +
                    std::to_string(max_vector_width(d, p)) + " for this device and precision");
    }
  }
}

std::size_t elem(Precision p) {
  return static_cast<std::size_t>(p) / 8;
}

}  // namespace

const ParamSpace<TiledConfig>& tiled_space(SpaceSize s) {
  static const ParamSpace<TiledConfig> full = make_tiled(SpaceSize::kFull);
  static const ParamSpace<TiledConfig> quick = make_tiled(SpaceSize::kQuick);
  return s == SpaceSize::kFull ? full : quick;
}
const ParamSpace<DirectConfig>& direct_space(SpaceSize s) {
  static const ParamSpace<DirectConfig> full = make_direct(SpaceSize::kFull);
  static const ParamSpace<DirectConfig> quick = make_direct(SpaceSize::kQuick);
  return s == SpaceSize::kFull ? full : quick;
}
const ParamSpace<ClassicConfig>& classic_space(SpaceSize s) {
  static const ParamSpace<ClassicConfig> space = make_classic(s);
  return space;
}
const ParamSpace<NaiveConfig>& naive_space(SpaceSize) {
  static const ParamSpace<NaiveConfig> space({}, {});
  return space;
}

const char* kernel_name(KernelKind k) {
  switch (k) {
    case KernelKind::kTiled:
      return "tiled";
    case KernelKind::kDirect:
      return "direct";
    case KernelKind::kNaive:
      return "naive";
    case KernelKind::kClassic:
      return "classic";
  }
  return "?";
}

std::optional<KernelKind> parse_kernel_kind(const std::string& name) {
  for (auto k :
       {KernelKind::kTiled, KernelKind::kDirect, KernelKind::kNaive, KernelKind::kClassic}) {
    if (name == kernel_name(k)) return k;
  }
  return std::nullopt;
}

KernelKind kind_of(const KernelConfig& c) {
  return static_cast<KernelKind>(c.index());
}

KernelConfig default_config(KernelKind k) {
  return with_kernel(k, [](auto tag) { return KernelConfig(tag); });
}

std::string to_string(const KernelConfig& c) {
  return std::visit(
      [](const auto& cfg) {
        using C = std::decay_t<decltype(cfg)>;
        std::string s;
        for (const auto& p : space_of<C>(SpaceSize::kFull).parameters()) {
          if (p.absent && cfg.*(p.field) == *p.absent) continue;
          s += (s.empty() ? "" : " ") + p.name + "=" + std::to_string(cfg.*(p.field));
        }
        return s;
      },
      c);
}

KernelConfig parse_config(KernelKind k, const std::string& text) {
  return with_kernel(k, [&](auto tag) -> KernelConfig {
    using C = decltype(tag);
    const auto& space = space_of<C>(SpaceSize::kFull);
    C cfg{};
    std::vector<bool> seen(space.parameters().size(), false);
    std::istringstream in(text);
    std::string pair;
    while (in >> pair) {
      const auto eq = pair.find('=');
      const std::string name = pair.substr(0, eq);
      std::size_t i = 0;
      while (i < space.parameters().size() && space.parameters()[i].name != name) ++i;
      if (eq == std::string::npos || i == space.parameters().size()) {
        throw UsageError(std::string("unknown parameter '") + name.substr(0, 40) + "' for the " +
                         kernel_name(k) + " kernel");
      }
      const auto& p = space.parameters()[i];
      int v = 0;
      const char* b = pair.data() + eq + 1;
      const char* e = pair.data() + pair.size();
      auto [ptr, ec] = std::from_chars(b, e, v);
      if (ec != std::errc() || ptr != e || seen[i] ||
          std::find(p.values.begin(), p.values.end(), v) == p.values.end()) {
        throw UsageError("invalid or repeated value for " + p.name + " in '" + text.substr(0, 200) +
                         "'");
      }
      if constexpr (!std::is_empty_v<C>) cfg.*(p.field) = v;
      seen[i] = true;
    }
    for (std::size_t i = 0; i < seen.size(); ++i) {
      const auto& p = space.parameters()[i];
      if (seen[i]) continue;
      if (!p.absent) throw UsageError("configuration lacks " + p.name);
      if constexpr (!std::is_empty_v<C>) cfg.*(p.field) = *p.absent;
    }
    if (auto v = space.violations(cfg); !v.empty()) {
      throw UsageError("configuration '" + text.substr(0, 200) + "' breaks " + v.front());
    }
    return cfg;
  });
}

std::vector<std::string> parameter_names(KernelKind k) {
  return with_kernel(k, [](auto tag) {
    std::vector<std::string> names;
    for (const auto& p : space_of<decltype(tag)>(SpaceSize::kFull).parameters())
      names.push_back(p.name);
    return names;
  });
}

std::vector<int> parameter_values(const KernelConfig& c) {
  return std::visit(
      [](const auto& cfg) {
        using C = std::decay_t<decltype(cfg)>;
        std::vector<int> v;
        for (const auto& p : space_of<C>(SpaceSize::kFull).parameters())
          v.push_back(cfg.*(p.field));
        return v;
      },
      c);
}

std::string build_options(const KernelConfig& c, Precision p) {
  std::string s = std::string("-DPRECISION=") + to_string(p);
  std::visit(
      [&](const auto& cfg) {
        using C = std::decay_t<decltype(cfg)>;
        for (const auto& par : space_of<C>(SpaceSize::kFull).parameters()) {
          s += " -D" + par.name + "=" + std::to_string(cfg.*(par.field));
        }
      },
      c);
  return s;
}

std::size_t local_memory_bytes(const KernelConfig& c, Precision p) {
  struct {
    Precision p;
    std::size_t operator()(const TiledConfig& t) const {
      return std::size_t(t.SA * t.KWG * t.MWG + t.SB * t.KWG * t.NWG) * elem(p);
    }
    std::size_t operator()(const DirectConfig& t) const {
      return std::size_t(t.WGD * (t.WGD + t.PADA) + t.WGD * (t.WGD + t.PADB)) * elem(p);
    }
    std::size_t operator()(const NaiveConfig&) const { return 0; }
    std::size_t operator()(const ClassicConfig& t) const {
      return std::size_t(2 * t.TILE * (t.TILE + 1)) * elem(p);
    }
  } bytes{p};
  return std::visit(bytes, c);
}

std::vector<std::string> limit_violations(const KernelConfig& c, const DeviceInfo& d, Precision p) {
  std::vector<std::string> out;
  if (!d.supports(p))
    out.push_back(std::string("the device has no fp") + to_string(p) + " support");
  if (const auto lm = local_memory_bytes(c, p); lm > d.local_mem_bytes) {
    out.push_back("local memory " + std::to_string(lm) + " B exceeds the device's " +
                  std::to_string(d.local_mem_bytes) + " B");
  }
  struct {
    const DeviceInfo& d;
    Precision p;
    std::vector<std::string>& out;
    void operator()(const TiledConfig& t) const {
      check_work_group(t.MDIMC, t.NDIMC, d, out);
      check_vectors({t.VWM, t.VWN}, d, p, out);
      if (t.IMG && !d.image_support) out.push_back("the device has no image support (IMG=1)");
      if (t.IMG && p != Precision::kSingle) out.push_back("IMG=1 reads fp32 texels only");
    }
    void operator()(const DirectConfig& t) const {
      check_work_group(t.MDIMCD, t.NDIMCD, d, out);
      check_vectors({t.VWMD, t.VWND}, d, p, out);
    }
    void operator()(const NaiveConfig&) const {}
    void operator()(const ClassicConfig& t) const { check_work_group(t.TILE, t.TILE, d, out); }
  } check{d, p, out};
  std::visit(check, c);
  return out;
}

std::vector<std::string> constraint_violations(const KernelConfig& c) {
  return std::visit(
      [](const auto& cfg) {
        using C = std::decay_t<decltype(cfg)>;
        return space_of<C>(SpaceSize::kFull).violations(cfg);
      },
      c);
}

std::vector<KernelConfig> enumerate(KernelKind k, SpaceSize s, const DeviceInfo* d, Precision p) {
  return with_kernel(k, [&](auto tag) {
    using C = decltype(tag);
    std::vector<KernelConfig> out;
    for (const C& cfg : space_of<C>(s).enumerate()) {
      if (!d || limit_violations(cfg, *d, p).empty()) out.emplace_back(cfg);
    }
    return out;
  });
}

SpaceSummary summarize(KernelKind k, SpaceSize s, const DeviceInfo* d, Precision p) {
  return with_kernel(k, [&](auto tag) {
    using C = decltype(tag);
    const auto& space = space_of<C>(s);
    SpaceSummary sum{k, s, {}, {}, space.product_size(), 0, std::nullopt};
    for (const auto& par : space.parameters())
      sum.params.push_back({par.name, par.help, par.values});
    for (const auto& con : space.constraints()) sum.constraints.push_back(con.name);
    std::uint64_t fits = 0;
    for (const C& cfg : space.enumerate()) {
      ++sum.valid;
      if (d && limit_violations(cfg, *d, p).empty()) ++fits;
    }
    if (d) sum.device = fits;
    return sum;
  });
}

}  // namespace mmtune
