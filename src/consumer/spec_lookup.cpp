#include "mmtune/spec_lookup.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "store/queries.hpp"
#include "store/store.hpp"

namespace mmtune {
namespace {

bool is_token(const std::string& s, bool name) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           (!name && (c == '.' || c == '-'));
  });
}

// "a=1 b=x" -> pairs; nothing when a part is not NAME=TOKEN (text from a database reaches a
// compiler's command line only after this check).
std::optional<std::vector<std::pair<std::string, std::string>>> parse(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(' ', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) return std::nullopt;
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (!is_token(name, true) || !is_token(value, false)) return std::nullopt;
    out.emplace_back(std::move(name), std::move(value));
  }
  if (out.empty()) return std::nullopt;
  return out;
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
  for (const auto& b : rows::spec_bests(store, spec_name)) {
    const int relation = b.key == device.key ? 2
                         : ((b.platform.empty() || b.platform == device.platform_name) &&
                            b.vendor == device.vendor && b.type == device.type)
                             ? 1
                             : 0;
    if (relation == 0) continue;
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
    chosen = std::move(t);
    chosen_relation = relation, chosen_distance = distance;
  }
  return chosen;
}

}  // namespace mmtune
