// The report's sections on kernels other than the GEMM families: users' kernels (spec files,
// docs/spec.md) and recorded ones (Kernel Tuner caches, docs/exchange.md). Per kernel and sizes
// its stored best, what was measured, and which parameters move its time.
#include <map>
#include <set>

#include "family/config_text.hpp"
#include "report/report_view.hpp"

namespace mmtune::report_detail {

void Report::other_kernels(Doc& doc, const DeviceRow& dev, const OtherKernels& kind) {
  // Ok measurements per kernel and sizes, in the store's order.
  std::map<std::pair<std::string, ProblemKey>, std::vector<const MeasRow*>> groups;
  // Every measurement, failed ones too: their count and sizes.
  std::map<std::pair<std::string, ProblemKey>, std::pair<std::size_t, GemmProblem>> all;
  for (const auto& m : d_.meas) {
    if (m.key != dev.key || m.kernel.rfind(kind.prefix, 0) != 0) continue;
    auto& [count, sizes] = all[{m.kernel, pkey(m.p)}];
    ++count, sizes = m.p;
    if (m.status == "Ok" && m.median_ms) groups[{m.kernel, pkey(m.p)}].push_back(&m);
  }
  if (all.empty()) return;
  doc.heading(3, kind.heading);
  Table t;
  t.head = {
      "kernel",        "sizes",       "measurements",     "Ok", "best configuration", "best [ms]",
      "best [GFLOPS]", "best [GB/s]", "slowest Ok / best"};
  for (const auto& [k, seen] : all) {
    const auto& [n, p] = seen;
    const auto& ok = groups[k];
    const BestRow* best = nullptr;
    for (const auto& b : d_.best) {
      if (b.key == dev.key && b.kernel == k.first && pkey(b.p) == k.second) best = &b;
    }
    double slowest = 0;
    std::optional<double> gbps;  // the best's, as measured
    for (const MeasRow* m : ok) {
      slowest = std::max(slowest, *m->median_ms);
      if (best && m->id == best->measurement_id) gbps = m->gbps;
    }
    t.rows.push_back(
        {code_cell(k.first), text_cell(spec_sizes(p)), number_cell(double(n)),
         number_cell(double(ok.size())), best ? code_cell(best->config) : text_cell("none"),
         best ? number_cell(best->median_ms) : Cell{"", true},
         best && best->gflops > 0 ? number_cell(best->gflops) : Cell{"", true},
         gbps ? number_cell(*gbps) : Cell{"", true},
         best && best->median_ms > 0 ? number_cell(slowest / best->median_ms) : Cell{"", true}});
  }
  doc.table(std::move(t));
  doc.note(kind.note);

  // Which parameters move the time, for the group with the most Ok measurements.
  const std::vector<const MeasRow*>* chosen = nullptr;
  for (const auto& [k, g] : groups) {
    if (!chosen || g.size() > chosen->size()) chosen = &g;
  }
  if (!chosen || chosen->size() < 8) return;
  const auto configs = per_configuration(*chosen, [](const MeasRow& m) { return *m.median_ms; });
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, std::vector<double>>> by_param;
  for (const auto& [config, ms] : configs) {
    for (const auto& [name, value] : config_pairs(config)) {
      if (!by_param.count(name)) order.push_back(name);
      by_param[name][value].push_back(ms);
    }
  }
  Table imp;
  imp.head = {"parameter",      "values tried",    "spread (worst / best median time)",
              "best value",     "its median [ms]", "worst value",
              "its median [ms]"};
  std::vector<std::pair<double, std::vector<Cell>>> rows;
  for (const auto& name : order) {
    const auto& values = by_param[name];
    if (values.size() < 2) continue;
    std::string best_v, worst_v;
    double best_ms = 0, worst_ms = 0;
    std::vector<std::string> sorted;
    for (const auto& [v, times] : values) sorted.push_back(v);
    std::sort(sorted.begin(), sorted.end(), value_rank_less);
    for (const auto& v : sorted) {
      const double med = median(values.at(v));
      if (best_v.empty() || med < best_ms) best_ms = med, best_v = v;
      if (worst_v.empty() || med > worst_ms) worst_ms = med, worst_v = v;
    }
    const double spread = best_ms > 0 ? worst_ms / best_ms : 0;
    rows.push_back(
        {spread,
         {code_cell(name), number_cell(double(values.size())), number_cell(spread),
          code_cell(best_v), number_cell(best_ms), code_cell(worst_v), number_cell(worst_ms)}});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [spread, cells] : rows) imp.rows.push_back(std::move(cells));
  if (imp.rows.empty()) return;
  doc.text("Which parameters matter for " + chosen->front()->kernel + " (" +
           std::to_string(chosen->size()) + " Ok measurements of " +
           std::to_string(configs.size()) + " configurations):");
  doc.table(std::move(imp));
  doc.note(
      "For each value of a parameter, the median time of the configurations with it, each "
      "counted once (as the median of its measurements). Parameters interact, so this ranks "
      "sensitivity, not cause.");
}

}  // namespace mmtune::report_detail
