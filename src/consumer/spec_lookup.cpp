#include "mmtune/spec_lookup.hpp"

#include <algorithm>
#include <cmath>

#include "family/config_text.hpp"
#include "family/spec.hpp"
#include "mmtune/error.hpp"
#include "store/queries.hpp"
#include "store/store.hpp"

namespace mmtune {
namespace {

// "a=1 b=x" -> pairs; nothing when the text is not NAME=TOKEN pairs (text from a database reaches
// a compiler's command line only after this check).
std::optional<std::vector<std::pair<std::string, std::string>>> parse(const std::string& text) {
  try {
    canonical_spec_config(text);
  } catch (const UsageError&) {
    return std::nullopt;
  }
  return config_pairs(text);
}

}  // namespace

std::string TunedDefines::build_options() const {
  std::string o;
  for (const auto& [name, value] : parameters) o += (o.empty() ? "-D" : " -D") + name + "=" + value;
  return o;
}

std::optional<TunedDefines> best_defines(const std::string& db_path, const std::string& spec_name,
                                         const DeviceInfo& device,
                                         const std::vector<long long>& sizes) {
  Store store(db_path, Store::Access::kReadOnly);
  const auto log_size = [&](std::size_t i) {
    return std::log2(double(i < sizes.size() ? std::max(sizes[i], 1LL) : 1LL));
  };
  const double want[3] = {log_size(0), log_size(1), log_size(2)};
  std::optional<TunedDefines> chosen;
  // This device before similar ones, then the nearest sizes, then the most recent tune.
  int chosen_relation = 0;
  double chosen_distance = 0;
  const auto relation_of = [&](const rows::SpecBest& b) {
    return b.key == device.key ? 2
           : ((b.platform.empty() || b.platform == device.platform_name) &&
              b.vendor == device.vendor && b.type == device.type)
               ? 1
               : 0;
  };
  // Its SQL errors arrive as mmtune::Error (rows:: translates them).
  const std::vector<rows::SpecBest> bests = rows::spec_bests(store, spec_name);
  // Only the version of the spec (its sources' hash) tuned last: an edited spec may no longer
  // list the values an older version's bests hold. Last on this device if it has any: another
  // host's later tune (a stale checkout, a late import) does not hide this device's own.
  std::string version, version_updated;
  int version_relation = 0;
  for (const auto& b : bests) {
    const int relation = relation_of(b);
    if (relation > version_relation ||
        (relation > 0 && relation == version_relation && b.updated_at >= version_updated)) {
      version = b.kernel, version_updated = b.updated_at, version_relation = relation;
    }
  }
  for (const auto& b : bests) {
    const int relation = relation_of(b);
    if (relation == 0 || b.kernel != version) continue;
    const double got[3] = {std::log2(double(b.p.m)), std::log2(double(b.p.n)),
                           std::log2(double(b.p.k))};
    double distance = 0;
    for (int d = 0; d < 3; ++d) distance += (got[d] - want[d]) * (got[d] - want[d]);
    const bool better = !chosen || relation > chosen_relation ||
                        (relation == chosen_relation && distance <= chosen_distance);
    if (!better) continue;
    auto parameters = parse(b.config);
    if (!parameters) continue;
    TunedDefines t;
    t.parameters = std::move(*parameters);
    t.source = relation == 1     ? LookupSource::kSimilarDevice
               : distance == 0.0 ? LookupSource::kExact
                                 : LookupSource::kNearestShape;
    t.kernel = b.kernel, t.device_key = b.key, t.device_name = b.name;
    t.sizes = {(long long)b.p.m, (long long)b.p.n, (long long)b.p.k};
    t.gflops = b.gflops;
    t.gbps = b.gbps.value_or(0.0);
    chosen = std::move(t);
    chosen_relation = relation, chosen_distance = distance;
  }
  return chosen;
}

}  // namespace mmtune
