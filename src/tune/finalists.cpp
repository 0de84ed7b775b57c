#include "tune/finalists.hpp"

#include <algorithm>

#include "mmtune/error.hpp"

namespace mmtune {

std::vector<KernelConfig> pick_finalists(const KnownMeasurements& known,
                                         const std::vector<std::optional<BestRecord>>& bests,
                                         const std::vector<KernelConfig>& always,
                                         std::size_t count) {
  std::vector<MeasurementRecord> ok;
  for (const auto& [k, r] : known) {
    if (r.result.status == Status::kOk && (k.first == kernel_name(KernelKind::kTiled) ||
                                           k.first == kernel_name(KernelKind::kDirect))) {
      ok.push_back(r);
    }
  }
  std::sort(ok.begin(), ok.end(),
            [](const auto& x, const auto& y) { return x.result.median_ms < y.result.median_ms; });
  std::vector<std::pair<std::string, std::string>> picked;
  const auto pick = [&](const std::string& kernel, const std::string& config) {
    if (std::find(picked.begin(), picked.end(), std::pair(kernel, config)) == picked.end()) {
      picked.emplace_back(kernel, config);
    }
  };
  for (const auto& r : ok) {
    if (picked.size() == count) break;
    pick(r.kernel, r.config);
  }
  for (const auto& b : bests) {
    if (b) pick(b->kernel, b->config);
  }
  for (const auto& c : always) pick(kernel_name(kind_of(c)), to_string(c));
  std::vector<KernelConfig> out;
  for (const auto& [kernel, config] : picked) {
    try {
      out.push_back(parse_config(*parse_kernel_kind(kernel), config));
    } catch (const UsageError&) {  // a damaged stored row is not a finalist
    }
  }
  return out;
}

std::vector<std::optional<MeasurementRecord>> median_rounds(
    std::vector<std::vector<MeasurementRecord>> rounds) {
  std::vector<std::optional<MeasurementRecord>> out;
  for (auto& rs : rounds) {
    if (rs.empty() || std::any_of(rs.begin(), rs.end(),
                                  [](const auto& r) { return r.result.status != Status::kOk; })) {
      out.emplace_back();
      continue;
    }
    std::sort(rs.begin(), rs.end(),
              [](const auto& x, const auto& y) { return x.result.median_ms < y.result.median_ms; });
    out.push_back(rs[(rs.size() - 1) / 2]);
  }
  return out;
}

std::map<std::string, MeasurementRecord> confirmed_bests(
    const std::vector<std::optional<MeasurementRecord>>& medians) {
  std::map<std::string, MeasurementRecord> winners;
  for (const auto& mid : medians) {
    if (!mid) continue;
    const auto it = winners.find(mid->kernel);
    if (it == winners.end() || mid->result.median_ms < it->second.result.median_ms) {
      winners[mid->kernel] = *mid;
    }
  }
  return winners;
}

}  // namespace mmtune
