#include "mmtune/lookup.hpp"

#include <algorithm>
#include <limits>

#include "family/typed_family.hpp"
#include "mmtune/error.hpp"
#include "store/queries.hpp"
#include "store/store.hpp"

namespace mmtune {
const char* to_string(LookupSource s) {
  switch (s) {
    case LookupSource::kExact:
      return "exact";
    case LookupSource::kNearestShape:
      return "nearest-shape";
    case LookupSource::kSimilarDevice:
      return "similar-device";
    case LookupSource::kDefault:
      return "default";
  }
  return "?";
}

bool images_fit(const KernelConfig& config, const DeviceInfo& device, const GemmProblem& problem) {
  if (!constraint_violations(config).empty()) return false;  // launch() divides by its tiles
  const ColMajorProblem cp = to_col_major(problem);
  const KernelLaunch l = config.kind()->launch(config, cp);
  if (!l.images) return true;
  using family_limits::round_up;
  const std::size_t k = round_up(cp.k, l.pad_k);
  return problem.batch <= 1 && device.image_support &&
         round_up(cp.m, l.pad_m) / 4 * k <= device.image_max_buffer_texels &&
         round_up(cp.n, l.pad_n) / 4 * k <= device.image_max_buffer_texels;
}

TunedParameters default_parameters(const DeviceInfo& device, const GemmProblem& problem) {
  TunedParameters t;
  t.source = LookupSource::kDefault;
  // Implementations that want explicit vectors (a preferred width of 4 or more: PoCL on CPUs)
  // run few work-items with wide vectors, looping over work-items: two of the device's preferred
  // vectors of m per work-item by as many columns as keep the accumulators in registers, as many
  // work-items along n sharing each A panel (docs/kernels.md, "Packed panels"). Those that prefer
  // scalars map work-items to SIMD lanes (GPUs, Mesa's llvmpipe): 8x8 work-groups with 4-wide
  // vectors staged through local memory, or read from images where local memory is global.
  const int vw = std::clamp(static_cast<int>(device.preferred_width(problem.precision)), 1, 16);
  // Columns per work-item: 8 where a preferred vector is 64 bytes (16 accumulators: AVX-512's 32
  // registers hold them), 4 where it is 32 bytes (8 accumulators: with 16 registers, 16 spill;
  // 1.5x faster at 1024^3 in fp32, 1.8x in fp64, on an AVX2 machine).
  const int vector_bytes = vw * static_cast<int>(problem.precision) / 8;  // Precision is in bits
  const int nwi = std::clamp(vector_bytes / 8, 4, 8);
  TiledConfig wide;
  wide.MWG = std::max(16, 2 * vw), wide.NWG = nwi * nwi, wide.KWG = 32;
  wide.MDIMC = wide.MWG / (2 * vw), wide.NDIMC = nwi, wide.VWM = vw, wide.VWN = nwi, wide.KWI = 8;
  wide.SA = 0, wide.SB = 0, wide.MDIMA = wide.MDIMC, wide.NDIMB = nwi;
  // A batch of small matrices: reading them in place beat packing 2.3x at 1000 x 64^3.
  wide.PACK = problem.batch > 1 ? 0 : 1;
  // Scalar work-items without a local-memory scratchpad (Mesa's llvmpipe) load buffers one lane
  // at a time, so staging gains nothing; images gather all lanes at once. Read A and B as
  // float4 texels, 16x16 of C per work-item where that leaves every compute unit 8 work-groups,
  // else 8x8 (docs/kernels.md, "How Mesa's llvmpipe runs it"), through images over the caller's
  // buffers where the layout allows (PACK=0): each launch there costs about 0.5 ms, a pack of
  // 512^2 1 ms.
  TiledConfig sampled;
  sampled.KWG = 32, sampled.VWM = 8, sampled.VWN = 4, sampled.SA = 0, sampled.SB = 0,
  sampled.IMG = 1, sampled.PACK = 0;
  const ColMajorProblem cp = to_col_major(problem);
  const std::size_t big_groups = (cp.m + 127) / 128 * ((cp.n + 127) / 128) * problem.batch;
  if (big_groups >= 8 * std::size_t(device.compute_units)) {
    sampled.MWG = sampled.NWG = 128, sampled.VWN = 8, sampled.KWI = 1;
  }
  const bool sample = vw < 4 && !device.local_mem_dedicated && images_fit(sampled, device, problem);
  const std::vector<KernelConfig> candidates = {vw >= 4  ? KernelConfig(wide)
                                                : sample ? KernelConfig(sampled)
                                                         : KernelConfig(TiledConfig{}),
                                                TiledConfig{}, DirectConfig{}, ClassicConfig{8},
                                                NaiveConfig{}};
  for (const auto& c : candidates) {
    if (constraint_violations(c).empty() &&
        limit_violations(c, device, problem.precision).empty()) {
      t.config = c;
      return t;
    }
  }
  t.config = NaiveConfig{};
  return t;
}

bool copies_dominate(const GemmProblem& problem) {
  const double m = double(std::max<std::size_t>(problem.m, 1));
  const double n = double(std::max<std::size_t>(problem.n, 1));
  return 2.0 * m * n / (m + n) < 128.0;  // 2mnk / (mk + kn), k cancels
}

std::optional<KernelConfig> in_place_variant(const KernelConfig& config) {
  std::optional<TiledConfig> t = config.as<TiledConfig>();
  if (!t || !t->PACK || t->SA || t->SB) return std::nullopt;
  t->PACK = 0, t->KC = 0;  // in place, k runs whole
  return KernelConfig(*t);
}

std::optional<KernelConfig> packed_variant(const KernelConfig& config) {
  std::optional<TiledConfig> t = config.as<TiledConfig>();
  if (!t || t->PACK) return std::nullopt;
  // In place stages nothing (SB=0), so packing only A holds where B reads buffers (IMG=0): B
  // stays in place, which is what the in-place form was measured reading.
  t->PACK = 2;
  if (!constraint_violations(KernelConfig(*t)).empty()) return std::nullopt;
  return KernelConfig(*t);
}

std::optional<KernelConfig> precision_variant(const KernelConfig& config, Precision from,
                                              Precision to, const DeviceInfo& device) {
  std::optional<TiledConfig> t = config.as<TiledConfig>();
  if (!t || from == to) return std::nullopt;
  const int bits_from = static_cast<int>(from), bits_to = static_cast<int>(to);
  if (bits_to > bits_from) {  // wider elements: fewer of them
    for (int r = bits_to / bits_from; r > 1; r /= 2) {
      if (t->VWM > 1) t->VWM /= 2;
      if (t->MWG % 2 != 0) return std::nullopt;
      t->MWG /= 2;
    }
  } else {
    for (int r = bits_from / bits_to; r > 1; r /= 2) t->VWM *= 2, t->MWG *= 2;
  }
  const KernelConfig c(*t);
  if (!constraint_violations(c).empty() || !limit_violations(c, device, to).empty()) {
    return std::nullopt;
  }
  return c;
}

std::optional<KernelConfig> narrower_variant(const KernelConfig& config,
                                             const GemmProblem& problem) {
  const std::optional<TiledConfig> t = config.as<TiledConfig>();
  if (!t) return std::nullopt;
  const ColMajorProblem cp = to_col_major(problem);
  const bool along_m = cp.m <= cp.n;
  const std::size_t side = std::max<std::size_t>(1, along_m ? cp.m : cp.n);
  const ParamSpace<TiledConfig>& space = tiled_space(SpaceSize::kFull);
  std::optional<TiledConfig> out;
  for (TiledConfig c = *t;;) {
    int& tile = along_m ? c.MWG : c.NWG;
    int& threads = along_m ? c.MDIMC : c.NDIMC;
    if (tile < 2 || std::size_t(tile / 2) < side) break;  // half would no longer cover C
    tile /= 2;
    if (threads > 1) threads /= 2;  // each work-item keeps its share: its vectors still fit
    if (!c.SA) c.MDIMA = c.MDIMC;   // loaders that stage nothing follow the work-group
    if (!c.SB) c.NDIMB = c.NDIMC;
    // One vector per work-item left: strided and contiguous are the same kernel (constraints).
    if (c.MWG / c.MDIMC == c.VWM) c.STRM = 0;
    if (c.NWG / c.NDIMC == c.VWN) c.STRN = 0;
    if (!space.in_value_sets(c) || !space.violations(c).empty()) break;
    out = c;
  }
  if (!out) return std::nullopt;
  return KernelConfig(*out);
}

std::optional<KernelConfig> whole_k_variant(const KernelConfig& config,
                                            const GemmProblem& problem) {
  std::optional<TiledConfig> t = config.as<TiledConfig>();
  if (!t || !t->KC || std::size_t(t->KC) < to_col_major(problem).k) return std::nullopt;
  t->KC = 0;
  return KernelConfig(*t);
}

std::optional<KernelConfig> k_sliced_variant(const KernelConfig& config,
                                             const GemmProblem& problem) {
  std::optional<TiledConfig> t = config.as<TiledConfig>();
  if (!t || !t->PACK || t->IMG || t->KC || problem.k < 2 * std::size_t(kSliceK)) {
    return std::nullopt;
  }
  t->KC = kSliceK;
  const KernelConfig sliced(*t);
  if (!constraint_violations(sliced).empty()) return std::nullopt;
  return sliced;
}

ParameterLookup::ParameterLookup(const std::string& db_path, const FamilyRegistry& families) {
  Store store(db_path, Store::Access::kReadOnly);
  store.set_routine_kernels(families.searched_names());
  // Its SQL errors arrive as mmtune::Error (rows:: translates them).
  const std::vector<rows::LookupBest> bests = rows::routine_bests(store);
  for (const rows::LookupBest& b : bests) {
    KernelConfig config;
    try {
      const auto kind = parse_kernel_kind(b.kernel, families);
      if (!kind) continue;
      config = parse_config(*kind, b.config);  // a tampered row never reaches a compiler
    } catch (const UsageError&) {
      continue;
    }
    if (devices_.empty() || devices_.back().key != b.key) {
      devices_.push_back({b.key, b.vendor, b.type, b.name, b.platform});
    }
    Entry e;
    e.device = devices_.size() - 1;
    e.m = b.p.m, e.n = b.p.n, e.k = b.p.k;
    e.batch = b.p.batch;
    e.shape = LogShape::of(b.p);
    // Images hold one item each: such a configuration runs a batch item by item.
    e.batches =
        config.kind()->batches() && !config.kind()->launch(config, to_col_major(b.p)).images;
    e.config = config;
    e.median_ms = b.median_ms, e.gflops = b.gflops, e.measurement_id = b.measurement_id;
    const Class c{int(b.p.precision), b.p.layout == Layout::kColMajor ? 1 : 0, b.p.trans_a,
                  b.p.trans_b};
    entries_[c].push_back(std::move(e));
    ++count_;
  }
}

TunedParameters ParameterLookup::lookup(const DeviceInfo& device, const GemmProblem& p) const {
  const Class c{static_cast<int>(p.precision), p.layout == Layout::kColMajor ? 1 : 0, p.trans_a,
                p.trans_b};
  const auto group = entries_.find(c);
  if (group == entries_.end()) return default_parameters(device, p);
  // Which stored devices are this one, and which are similar: the same implementation (OpenCL
  // platform) on hardware of the same vendor and type. Another implementation of the same
  // hardware is not similar: its compiler rewards other parameters (PoCL's best runs on Mesa's
  // llvmpipe several times slower than llvmpipe's default; docs/kernels.md). An imported device
  // of unknown platform is compared by vendor and type; a CLBlast file names its platform by
  // vendor (CL_PLATFORM_VENDOR: "The pocl project", not "Portable Computing Language"). Decided
  // once.
  std::vector<char> relation(devices_.size(), 0);  // 2: this device, 1: similar, 0: other
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const Stored& d = devices_[i];
    relation[i] = d.key == device.key
                      ? 2
                      : ((d.platform.empty() || d.platform == device.platform_name ||
                          d.platform == device.platform_vendor) &&
                         d.vendor == device.vendor && d.type == device.type);
  }
  // An empty dimension (a BLAS no-op) is measured as 1, so distances stay finite.
  const LogShape shape = LogShape::of(p);
  // Ranks candidates: this device before similar ones, then the nearest shape, then the fastest
  // by time per flop (shapes as near as each other differ: 128^3 lies as near 64^3 as 256^3,
  // whose milliseconds are no measure of its speed).
  struct Rank {
    int relation;
    double distance, ms_per_flop;
    bool better_than(const Rank& o) const {
      if (relation != o.relation) return relation > o.relation;
      if (distance != o.distance) return distance < o.distance;
      return ms_per_flop < o.ms_per_flop;
    }
  };
  const Entry* chosen = nullptr;
  Rank best{0, 0, 0};
  for (const Entry& e : group->second) {
    const int rel = relation[e.device];
    // A batch runs item by item in a family that does not batch: those are not candidates.
    if (rel == 0 || (p.batch > 1 && !e.batches)) continue;
    const auto dim = [](std::size_t v) { return double(std::max<std::size_t>(v, 1)); };
    const double flops = 2.0 * dim(e.m) * dim(e.n) * dim(e.k) * dim(e.batch);
    const Rank r{rel, e.shape.distance2(shape), e.median_ms / flops};
    // The device-limit checks are the costly part: only for a candidate that would win. Images
    // tuned at a smaller shape may outgrow the device's image limits at this one.
    if ((!chosen || r.better_than(best)) &&
        limit_violations(e.config, device, p.precision).empty() &&
        images_fit(e.config, device, p)) {
      chosen = &e;
      best = r;
    }
  }
  if (!chosen) return default_parameters(device, p);
  TunedParameters t;
  t.config = chosen->config;
  t.source = best.relation == 1     ? LookupSource::kSimilarDevice
             : best.distance == 0.0 ? LookupSource::kExact
                                    : LookupSource::kNearestShape;
  t.device_key = devices_[chosen->device].key;
  t.device_name = devices_[chosen->device].name;
  t.m = chosen->m, t.n = chosen->n, t.k = chosen->k, t.batch = chosen->batch;
  t.gflops = chosen->gflops;
  t.measurement_id = chosen->measurement_id;
  return t;
}

}  // namespace mmtune
