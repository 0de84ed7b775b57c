#include "mmtune/lookup.hpp"

#include <cmath>
#include <limits>

#include "mmtune/error.hpp"
#include "mmtune/store.hpp"

namespace mmtune {
namespace {

// Distance between shapes on a log scale, so 1024 vs 2048 is as far as 64 vs 128.
double shape_distance(std::size_t m1, std::size_t n1, std::size_t k1, const GemmProblem& p) {
  const auto d = [](std::size_t a, std::size_t b) { return std::log2(double(a) / double(b)); };
  return std::sqrt(d(m1, p.m) * d(m1, p.m) + d(n1, p.n) * d(n1, p.n) + d(k1, p.k) * d(k1, p.k));
}

}  // namespace

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

TunedParameters default_parameters(const DeviceInfo& device, const GemmProblem& problem) {
  TunedParameters t;
  t.source = LookupSource::kDefault;
  // CPUs: few work-items with wide vectors (the implementation loops over work-items); GPUs:
  // 8x8 work-groups with 4-wide vectors staged through local memory.
  TiledConfig cpu;
  cpu.MWG = 64, cpu.NWG = 64, cpu.KWG = 32, cpu.MDIMC = 4, cpu.NDIMC = 4, cpu.VWM = 16,
  cpu.VWN = 16, cpu.KWI = 2, cpu.SA = 0, cpu.SB = 0, cpu.MDIMA = 4, cpu.NDIMB = 4;
  const std::vector<KernelConfig> candidates = {
      device.is_cpu() ? KernelConfig(cpu) : KernelConfig(TiledConfig{}), TiledConfig{},
      DirectConfig{}, ClassicConfig{8}, NaiveConfig{}};
  for (const auto& c : candidates) {
    if (limit_violations(c, device, problem.precision).empty()) {
      t.config = c;
      return t;
    }
  }
  t.config = NaiveConfig{};
  return t;
}

ParameterLookup::ParameterLookup(const std::string& db_path) {
  Store store(db_path);
  auto q = store.db().prepare(
      "SELECT d.key, d.vendor, d.type, d.name, b.m, b.n, b.k, b.precision, b.layout, b.trans_a, "
      "b.trans_b, b.kernel, b.config, b.median_ms, b.gflops, b.measurement_id FROM best b "
      "JOIN devices d ON d.id = b.device_id WHERE b.kernel IN ('tiled', 'direct')");
  while (q.step()) {
    const auto kind = parse_kernel_kind(q.text(11));
    KernelConfig config;
    try {
      config = parse_config(*kind, q.text(12));  // a tampered row never reaches a compiler
    } catch (const UsageError&) {
      continue;
    }
    entries_.push_back(
        {q.text(0), q.text(1), q.text(2), q.text(3), std::size_t(q.integer(4)),
         std::size_t(q.integer(5)), std::size_t(q.integer(6)), static_cast<Precision>(q.integer(7)),
         q.text(8) == "col" ? Layout::kColMajor : Layout::kRowMajor, q.integer(9) != 0,
         q.integer(10) != 0, config, q.real(13), q.real(14), q.integer(15)});
  }
}

TunedParameters ParameterLookup::lookup(const DeviceInfo& device, const GemmProblem& p) const {
  // Per shape, the routine's pick is the faster of the tiled and direct bests.
  const Entry* exact = nullptr;
  const Entry* near = nullptr;
  const Entry* similar = nullptr;
  double near_d = std::numeric_limits<double>::infinity(), similar_d = near_d;
  for (const auto& e : entries_) {
    if (e.precision != p.precision || e.layout != p.layout || e.trans_a != p.trans_a ||
        e.trans_b != p.trans_b || !limit_violations(e.config, device, p.precision).empty()) {
      continue;
    }
    const double d = shape_distance(e.m, e.n, e.k, p);
    if (e.device_key == device.key) {
      if (d == 0.0 && (!exact || e.median_ms < exact->median_ms)) exact = &e;
      if (d < near_d || (d == near_d && near && e.median_ms < near->median_ms))
        near = &e, near_d = d;
    } else if (e.vendor == device.vendor && e.type == device.type) {
      if (d < similar_d || (d == similar_d && similar && e.median_ms < similar->median_ms)) {
        similar = &e, similar_d = d;
      }
    }
  }
  const Entry* chosen = exact ? exact : near ? near : similar;
  if (!chosen) return default_parameters(device, p);
  TunedParameters t;
  t.config = chosen->config;
  t.source = exact  ? LookupSource::kExact
             : near ? LookupSource::kNearestShape
                    : LookupSource::kSimilarDevice;
  t.device_key = chosen->device_key;
  t.device_name = chosen->name;
  t.m = chosen->m, t.n = chosen->n, t.k = chosen->k;
  t.gflops = chosen->gflops;
  t.measurement_id = chosen->measurement_id;
  return t;
}

}  // namespace mmtune
