#include "family/recorded.hpp"

#include <algorithm>
#include <stdexcept>

#include "family/config_text.hpp"
#include "mmtune/error.hpp"

namespace mmtune {

RecordedFamily::RecordedFamily(std::string name, std::vector<ParameterInfo> params)
    : name_(std::move(name)), params_(std::move(params)) {}

std::unique_ptr<RecordedFamily> RecordedFamily::from_texts(const std::string& name,
                                                           const std::vector<std::string>& texts) {
  std::vector<ParameterInfo> params;
  for (std::size_t t = 0; t < texts.size(); ++t) {
    const auto pairs = int_config(texts[t]);
    if (!pairs) {
      throw UsageError("recorded " + name + " configuration '" + texts[t].substr(0, 200) +
                       "' is not NAME=INTEGER pairs (of 32-bit integers)");
    }
    // The first configuration gives the parameters' order; others may list them in any order
    // (a file edited by hand, or merged from two), as a configuration is parsed by name.
    // Each parameter once: "a=1 a=2" is not {a, b}.
    std::vector<bool> seen(params.size(), false);
    for (const auto& [pname, v] : *pairs) {
      if (t == 0) {
        params.push_back({pname, "recorded parameter", {}, std::nullopt});
        seen.push_back(false);
      }
      const auto p =
          std::find_if(params.begin(), params.end(),
                       [&pname = pname](const ParameterInfo& q) { return q.name == pname; });
      const auto at = std::size_t(p - params.begin());
      if (p == params.end() || seen[at]) {
        throw UsageError("recorded " + name + " configurations name different parameters");
      }
      seen[at] = true;
      auto& vals = p->values;
      const auto it = std::lower_bound(vals.begin(), vals.end(), v);
      if (it == vals.end() || *it != v) vals.insert(it, v);
    }
    if (std::find(seen.begin(), seen.end(), false) != seen.end()) {
      throw UsageError("recorded " + name + " configurations name different parameters");
    }
  }
  return std::make_unique<RecordedFamily>(name, std::move(params));
}

KernelConfig RecordedFamily::default_config() const {
  std::vector<int> v;
  for (const auto& p : params_) v.push_back(p.values.empty() ? 0 : p.values.front());
  return KernelConfig(*this, std::move(v));
}

KernelLaunch RecordedFamily::launch(const KernelConfig&, const ColMajorProblem&) const {
  throw std::logic_error("a recorded kernel cannot be launched");
}

}  // namespace mmtune
