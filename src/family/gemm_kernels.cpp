// Operations on any family's configuration, through the KernelFamily interface; the registry of
// the built-in families.
#include "mmtune/gemm_kernels.hpp"

#include <algorithm>
#include <sstream>

#include "family/config_text.hpp"
#include "mmtune/error.hpp"

namespace mmtune {

KernelConfig::KernelConfig() : KernelConfig(TiledConfig{}) {}

KernelConfig::KernelConfig(KernelKind kind, std::vector<int> values)
    : kind_(kind), values_(std::move(values)) {
  if (values_.size() != kind_->parameters(SpaceSize::kFull).size()) {
    throw std::logic_error("a " + std::string(kind_->name()) +
                           " configuration needs one value per parameter");
  }
}

const FamilyRegistry& FamilyRegistry::builtin() {
  static const FamilyRegistry r = [] {
    FamilyRegistry b;
    for (auto k :
         {KernelKind::kTiled, KernelKind::kDirect, KernelKind::kNaive, KernelKind::kClassic}) {
      b.add(k);
    }
    return b;
  }();
  return r;
}

void FamilyRegistry::add(KernelKind family) {
  if (find(family->name())) {
    throw std::logic_error("kernel family '" + std::string(family->name()) + "' added twice");
  }
  families_.push_back(family);
}

std::optional<KernelKind> FamilyRegistry::find(std::string_view name) const {
  for (const auto& f : families_) {
    if (f->name() == name) return f;
  }
  return std::nullopt;
}

std::vector<std::string> FamilyRegistry::searched_names() const {
  std::vector<std::string> out;
  for (const auto& f : families_) {
    if (f->role() == FamilyRole::kSearched) out.emplace_back(f->name());
  }
  return out;
}

std::string kernel_name(KernelKind k) {
  return std::string(k->name());
}

std::optional<KernelKind> parse_kernel_kind(std::string_view name, const FamilyRegistry& families) {
  return families.find(name);
}

KernelConfig default_config(KernelKind k) {
  return k->default_config();
}

std::string to_string(const KernelConfig& c) {
  std::string s;
  const auto& params = c.kind()->parameters(SpaceSize::kFull);
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i].absent && c.values()[i] == *params[i].absent) continue;
    s += (s.empty() ? "" : " ") + params[i].name + "=" + std::to_string(c.values()[i]);
  }
  return s;
}

KernelConfig parse_config(KernelKind k, const std::string& text) {
  const auto& params = k->parameters(SpaceSize::kFull);
  std::vector<int> values(params.size(), 0);
  std::vector<bool> seen(params.size(), false);
  std::istringstream in(text);
  std::string pair;
  while (in >> pair) {
    const auto eq = pair.find('=');
    const std::string name = pair.substr(0, eq);
    std::size_t i = 0;
    while (i < params.size() && params[i].name != name) ++i;
    if (eq == std::string::npos || i == params.size()) {
      throw UsageError(std::string("unknown parameter '") + name.substr(0, 40) + "' for the " +
                       kernel_name(k) + " kernel");
    }
    const auto& p = params[i];
    const auto v = whole_int(std::string_view(pair).substr(eq + 1));
    if (!v || seen[i] || std::find(p.values.begin(), p.values.end(), *v) == p.values.end()) {
      throw UsageError("invalid or repeated value for " + p.name + " in '" + text.substr(0, 200) +
                       "'");
    }
    values[i] = *v;
    seen[i] = true;
  }
  for (std::size_t i = 0; i < seen.size(); ++i) {
    if (seen[i]) continue;
    if (!params[i].absent) throw UsageError("configuration lacks " + params[i].name);
    values[i] = *params[i].absent;
  }
  KernelConfig cfg(k, std::move(values));
  if (auto v = k->constraint_violations(cfg); !v.empty()) {
    throw UsageError("configuration '" + text.substr(0, 200) + "' breaks " + v.front());
  }
  return cfg;
}

std::vector<std::string> parameter_names(KernelKind k) {
  std::vector<std::string> names;
  for (const auto& p : k->parameters(SpaceSize::kFull)) names.push_back(p.name);
  return names;
}

std::string build_options(const KernelConfig& c, Precision p) {
  std::string s = std::string("-DPRECISION=") + to_string(p);
  const auto& params = c.kind()->parameters(SpaceSize::kFull);
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i].host_only) continue;
    s += " -D" + params[i].name + "=" + std::to_string(c.values()[i]);
  }
  return s;
}

std::size_t local_memory_bytes(const KernelConfig& c, Precision p) {
  return c.kind()->local_memory_bytes(c, p);
}

std::vector<std::string> limit_violations(const KernelConfig& c, const DeviceInfo& d, Precision p) {
  return c.kind()->limit_violations(c, d, p);
}

std::vector<std::string> constraint_violations(const KernelConfig& c) {
  return c.kind()->constraint_violations(c);
}

std::vector<KernelConfig> enumerate(KernelKind k, SpaceSize s, const DeviceInfo* d, Precision p) {
  std::vector<KernelConfig> out = k->enumerate(s);
  if (d) {
    std::erase_if(out, [&](const KernelConfig& c) { return !limit_violations(c, *d, p).empty(); });
  }
  return out;
}

SpaceSummary summarize(KernelKind k, SpaceSize s, const DeviceInfo* d, Precision p) {
  SpaceSummary sum{k, s, {}, k->constraint_names(), 1, 0, std::nullopt};
  for (const auto& par : k->parameters(s)) {
    sum.product *= par.values.size();
    sum.params.push_back({par.name, par.help, par.values});
  }
  std::uint64_t fits = 0;
  for (const auto& cfg : k->enumerate(s)) {
    ++sum.valid;
    if (d && limit_violations(cfg, *d, p).empty()) ++fits;
  }
  if (d) sum.device = fits;
  return sum;
}

}  // namespace mmtune
