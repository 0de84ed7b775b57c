#include "tune/finalists.hpp"

#include <algorithm>
#include <set>

#include "mmtune/error.hpp"

namespace mmtune {

bool runs_far_behind(const KnownMeasurement& m, double fastest_ms) {
  const Measurement& r = m.record.result;
  const auto t = lower_bound_ms(r) ? lower_bound_ms(r) : observed_time(r);
  return t && fastest_ms > 0 && *t / m.slowdown > kFarBehind * fastest_ms;
}

double fastest_normalized_ms(const KnownMeasurements& known) {
  double fastest = 0.0;
  for (const auto& [k, m] : known) {
    if (m.config && ok_time(m.record.result) && m.config->kind()->role() == FamilyRole::kSearched) {
      const double t = m.record.result.median_ms / m.slowdown;
      if (fastest == 0.0 || t < fastest) fastest = t;
    }
  }
  return fastest;
}

bool all_far_behind(const KnownMeasurements& known, KernelKind kind, std::int64_t session_id) {
  // Both sides normalized: a kernel measured while the machine ran slow is not behind for that.
  const double fastest = fastest_normalized_ms(known);
  if (fastest <= 0) return false;
  std::size_t seen = 0;
  for (const auto& [key, m] : known) {
    if (!m.config || kind_of(*m.config) != kind || m.record.session_id != session_id) continue;
    if (m.record.result.status == Status::kOk && !runs_far_behind(m, fastest)) return false;
    ++seen;
  }
  return seen >= kRetireAfter;
}

std::vector<KernelConfig> pick_finalists(const KnownMeasurements& known,
                                         const std::vector<KernelKind>& kernels,
                                         const std::vector<std::optional<BestRecord>>& bests,
                                         const std::vector<KernelConfig>& always, std::size_t count,
                                         const FamilyRegistry& families) {
  std::vector<const KnownMeasurement*> ok;
  for (const auto& [k, m] : known) {
    if (m.config && ok_time(m.record.result) && m.config->kind()->role() == FamilyRole::kSearched &&
        std::find(kernels.begin(), kernels.end(), kind_of(*m.config)) != kernels.end()) {
      ok.push_back(&m);
    }
  }
  std::sort(ok.begin(), ok.end(), [](const auto* x, const auto* y) {
    return x->record.result.median_ms / x->slowdown < y->record.result.median_ms / y->slowdown;
  });
  std::vector<KernelConfig> out;
  const auto pick = [&](const KernelConfig& c) {
    const auto same = [&](const KernelConfig& o) { return o == c; };
    if (std::none_of(out.begin(), out.end(), same)) out.push_back(c);
  };
  for (const KnownMeasurement* m : ok) {
    if (out.size() == count) break;
    pick(*m->config);
  }
  for (const auto& b : bests) {
    if (!b) continue;
    if (const auto it = known.find({b->kernel, b->config});
        it != known.end() && it->second.config) {
      pick(*it->second.config);
      continue;
    }
    try {  // a best the session has not read (--fresh): a stored row, parsed at this door
      if (const auto kind = parse_kernel_kind(b->kernel, families))
        pick(parse_config(*kind, b->config));
    } catch (const UsageError&) {  // a damaged stored row is not a finalist
    }
  }
  // A default measured far behind the fastest cannot win a round: no drift or load seen
  // shifts speeds by kFarBehind (a busy 2048^3 tune saw 1.9x), and confirming one cost a
  // 3-minute 4096^3 tune 25 s a round for the direct kernel's default (70x behind).
  // A default that failed in a way that repeats (a wrong result, a failed build or launch) fails
  // each round: a tune whose tiled kernel was broken measured its wrong default 3 times more.
  const auto fails_again = [](const Measurement& r) {
    switch (r.status) {
      case Status::kBuildFailed:
      case Status::kLaunchFailed:
      case Status::kWrongResult:
      case Status::kCrashed:
      case Status::kExceedsLimits:
        return true;
      default:
        return false;
    }
  };
  const double fastest = fastest_normalized_ms(known);
  for (const auto& c : always) {
    const auto it = known.find({kernel_name(kind_of(c)), to_string(c)});
    if (it != known.end() &&
        (runs_far_behind(it->second, fastest) || fails_again(it->second.record.result))) {
      continue;
    }
    pick(c);
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
    const std::vector<std::optional<MeasurementRecord>>& medians,
    const std::vector<CloseCall>& decided) {
  std::set<std::string> called;  // kernels decided head to head
  std::set<std::size_t> pair;    // the finalists that were
  for (const auto& c : decided) {
    for (const std::size_t i : {c.leader, c.runner_up}) {
      if (medians[i]) called.insert(medians[i]->kernel), pair.insert(i);
    }
  }
  std::map<std::string, MeasurementRecord> winners;
  for (std::size_t i = 0; i < medians.size(); ++i) {
    const auto& mid = medians[i];
    if (!mid || (called.count(mid->kernel) && !pair.count(i))) continue;
    const auto it = winners.find(mid->kernel);
    if (it == winners.end() || mid->result.median_ms < it->second.result.median_ms) {
      winners[mid->kernel] = *mid;
    }
  }
  return winners;
}

std::vector<CloseCall> close_calls(const std::vector<std::optional<MeasurementRecord>>& medians,
                                   double margin) {
  std::map<std::string, std::vector<std::size_t>> by_kernel;
  for (std::size_t i = 0; i < medians.size(); ++i) {
    if (medians[i]) by_kernel[medians[i]->kernel].push_back(i);
  }
  std::vector<CloseCall> out;
  for (auto& [kernel, idx] : by_kernel) {
    if (idx.size() < 2) continue;
    const auto ms = [&](std::size_t i) { return medians[i]->result.median_ms; };
    std::partial_sort(idx.begin(), idx.begin() + 2, idx.end(),
                      [&](std::size_t x, std::size_t y) { return ms(x) < ms(y); });
    if (ms(idx[1]) <= (1.0 + margin) * ms(idx[0])) out.push_back({idx[0], idx[1]});
  }
  return out;
}

}  // namespace mmtune
