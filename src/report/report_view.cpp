#include "report/report_view.hpp"

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "mmtune/gemm_kernels.hpp"
#include "report/report.hpp"

namespace mmtune::report_detail {

std::vector<const BenchRow*> Report::latest_bench(const std::string& key, int precision) const {
  std::vector<const BenchRow*> out;
  for (const auto& [k, row] : latest_) {
    if (std::get<0>(k) == key && int(row->p.precision) == precision) out.push_back(row);
  }
  return out;
}

// The best tuned configuration per problem of a device, by problem.
std::vector<const BestRow*> Report::bests(const std::string& key) const {
  std::vector<const BestRow*> out;
  for (const auto& [k, row] : best_of_) {
    if (k.first == key) out.push_back(row);
  }
  std::sort(out.begin(), out.end(),
            [](const BestRow* a, const BestRow* b) { return problem_less(a->p, b->p); });
  return out;
}

// A device's tuned GFLOPS for a problem: the latest mmtune bench run of the tuned subject when
// there is one, else the best stored tuning result.
std::optional<Report::Tuned> Report::tuned(const std::string& key, const GemmProblem& p) const {
  const auto it = latest_.find(std::make_tuple(key, std::string("tuned"), pkey(p)));
  if (it != latest_.end() && shown_gflops(*it->second)) {
    return Tuned{*shown_gflops(*it->second), "bench"};
  }
  const auto b = best_of_.find(std::make_pair(key, pkey(p)));
  if (b != best_of_.end()) return Tuned{b->second->gflops, "tuning"};
  return std::nullopt;
}

std::vector<std::pair<std::string, double>> per_configuration(
    const std::vector<const MeasRow*>& rows, const std::function<double(const MeasRow&)>& value) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> values;
  for (const MeasRow* m : rows) {
    auto& v = values[m->config];
    if (v.empty()) order.push_back(m->config);
    v.push_back(value(*m));
  }
  std::vector<std::pair<std::string, double>> out;
  for (const auto& config : order) out.emplace_back(config, median(values[config]));
  return out;
}

// How much performance moves with each parameter, over the Ok measurements of the kernel and
// problem with the most of them (the tiled kernel when it has a fair sample).
Report::Importance Report::importance(const std::string& key) const {
  std::map<std::pair<std::string, ProblemKey>, std::vector<const MeasRow*>> groups;
  for (const auto& m : d_.meas) {
    if (m.key == key && m.ok() && is_tuned_kernel(m.kernel)) {
      groups[{m.kernel, pkey(m.p)}].push_back(&m);
    }
  }
  const std::vector<const MeasRow*>* chosen = nullptr;
  auto rank = [](const std::vector<const MeasRow*>& g) {
    return std::make_pair(g.front()->kernel == kernel_name(KernelKind::kTiled) && g.size() >= 8,
                          g.size());
  };
  for (const auto& [k, g] : groups) {
    if (!chosen || rank(g) > rank(*chosen)) chosen = &g;
  }
  Importance imp;
  if (!chosen) return imp;
  imp.kernel = chosen->front()->kernel, imp.p = chosen->front()->p;
  imp.measurements = chosen->size();
  const auto configs = per_configuration(*chosen, [](const MeasRow& m) { return *m.gflops; });
  imp.configurations = configs.size();
  std::vector<std::string> order;
  std::map<std::string, std::map<int, std::vector<double>>> by_param;
  for (const auto& [config, gflops] : configs) {
    for (const auto& [name, value] : int_pairs(imp.kernel, config)) {
      if (!by_param.count(name)) order.push_back(name);
      by_param[name][value].push_back(gflops);
    }
  }
  for (const auto& name : order) {
    const auto& values = by_param[name];
    if (values.size() < 2) continue;  // not varied: nothing to say
    Spread s;
    s.name = name, s.values = values.size();
    bool first = true;
    for (const auto& [value, g] : values) {
      const double med = median(g);
      if (first || med > s.best_median) s.best_median = med, s.best_value = value;
      if (first || med < s.worst_median) s.worst_median = med, s.worst_value = value;
      first = false;
    }
    s.spread = s.worst_median > 0 ? s.best_median / s.worst_median : 0.0;
    imp.params.push_back(s);
  }
  std::stable_sort(imp.params.begin(), imp.params.end(),
                   [](const Spread& a, const Spread& b) { return a.spread > b.spread; });
  return imp;
}

void Report::build(Doc& doc) {
  overview(doc);
  for (std::size_t i = 0; i < d_.devices.size(); ++i) device_section(doc, d_.devices[i], i + 1);
  comparison(doc);
  implementations(doc);
}

// Implementations (OpenCL platforms) compared on their latest bench: each tuned routine beside
// CLBlast and the host BLAS of the same run, as a share of that device's own measured peak, and
// what tuning it cost.

void Report::overview(Doc& doc) {
  doc.heading(1, "mmtune report");
  doc.text("Generated " + now_utc() + " from " + d_.db_path + ": " +
           std::to_string(d_.devices.size()) + " device(s), " + std::to_string(d_.sessions.size()) +
           " tuning session(s), " + std::to_string(d_.meas.size()) + " measurement(s), " +
           std::to_string(d_.bench.size()) + " benchmark row(s).");
  doc.note(
      "Numbers are rounded for display only; bench.csv, best.csv, measurements.csv, sessions.csv "
      "and roofline.csv beside this report hold the database's values at full precision. GFLOPS "
      "are 2mnk / time of the whole routine (copies included) unless marked as kernel GFLOPS.");
  doc.toc();
  Table t;
  t.head = {"device", "vendor", "type", "source", "key", "sessions", "measurements", "bench rows"};
  for (const auto& dev : d_.devices) {
    std::size_t n_sessions = 0, n_meas = 0, n_bench = 0;
    for (const auto& s : d_.sessions) n_sessions += s.r.device_key == dev.key;
    for (const auto& m : d_.meas) n_meas += m.key == dev.key;
    for (const auto& b : d_.bench) n_bench += b.key == dev.key;
    t.rows.push_back({text_cell(dev.name), text_cell(dev.vendor), text_cell(dev.type),
                      Cell{dev.source, false, false, false, dev.imported()}, code_cell(dev.key),
                      number_cell(double(n_sessions)), number_cell(double(n_meas)),
                      number_cell(double(n_bench))});
  }
  doc.table(std::move(t));
}

void Report::device_section(Doc& doc, const DeviceRow& dev, std::size_t index) {
  const std::string tag = "d" + std::to_string(index);
  doc.heading(2, distinct_name(dev), tag,
              dev.imported() ? "imported: " + dev.source.substr(9) : "");
  std::string facts = dev.vendor + ", " + (dev.type.empty() ? "unknown type" : dev.type);
  if (dev.compute_units) {
    facts += ", " + std::to_string(dev.compute_units) + " compute units at " +
             std::to_string(dev.clock_mhz) + " MHz";
  }
  if (dev.global_mem)
    facts += ", " + svg::format_value(double(dev.global_mem) / (1 << 30)) + " GiB global memory";
  if (!dev.driver.empty()) facts += ", driver " + dev.driver;  // an imported device may have none
  if (!dev.platform.empty()) facts += ", platform " + dev.platform;
  facts += ". Key " + dev.key + ", source " + dev.source + ".";
  doc.text(facts);
  if (dev.imported()) {
    doc.note(
        "Imported results: measured elsewhere (e.g. a CLBlast tuner file) and shown as "
        "recorded; this database did not measure them.");
  }
  const bool any = std::any_of(d_.best.begin(), d_.best.end(),
                               [&](const BestRow& b) { return b.key == dev.key; }) ||
                   std::any_of(d_.bench.begin(), d_.bench.end(),
                               [&](const BenchRow& b) { return b.key == dev.key; }) ||
                   std::any_of(d_.meas.begin(), d_.meas.end(),
                               [&](const MeasRow& m) { return m.key == dev.key; }) ||
                   std::any_of(d_.roof.begin(), d_.roof.end(),
                               [&](const RoofRow& r) { return r.key == dev.key; }) ||
                   std::any_of(d_.sessions.begin(), d_.sessions.end(),
                               [&](const SessionRow& s) { return s.r.device_key == dev.key; });
  if (!any) {
    doc.text("No results are stored for this device.");
    return;
  }
  performance(doc, dev, tag);
  best_table(doc, dev);
  roofline(doc, dev, tag);
  sessions(doc, dev, tag);
  parameters(doc, dev, tag);
  other_kernels(doc, dev,
                {"spec:", "Users' kernels (spec files)",
                 "Sizes as stored: the spec's sizes in order, 1 where it has fewer than three. "
                 "GFLOPS need the spec's `flops`, GB/s its `bytes` (over the kernel's time: "
                 "its events where usable); a spec's kernel name ends in the hash of its file "
                 "and sources."});
  other_kernels(doc, dev,
                {"kt:", "Recorded kernels (imported from Kernel Tuner)",
                 "Times as Kernel Tuner recorded them on this device; sizes as given at import. "
                 "No GFLOPS: a cache file holds no operation count. These kernels cannot run "
                 "here: mmtune simulate replays them."});
  replays(doc, dev, tag);
}

}  // namespace mmtune::report_detail
