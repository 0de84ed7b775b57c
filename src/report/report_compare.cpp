#include "report/report_view.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <sstream>

#include "mmtune/gemm_kernels.hpp"
#include "report/report.hpp"

namespace mmtune::report_detail {

void Report::implementations(Doc& doc) {
  std::set<std::string> platforms;
  for (const auto& dev : d_.devices) {
    if (!dev.imported()) platforms.insert(dev.platform);
  }
  doc.heading(2, "Implementations side by side", "implementations");
  if (platforms.size() < 2) {
    doc.text("The devices of this report come from one OpenCL implementation: nothing to compare.");
    return;
  }
  std::set<int> precisions;
  for (const auto& b : d_.bench) precisions.insert(int(b.p.precision));
  for (const int prec : precisions) {
    Table t;
    t.head = {"implementation",
              "device",
              "n",
              "tuned [GFLOPS]",
              "share of peak",
              "CLBlast [GFLOPS]",
              "tuned / CLBlast",
              "host BLAS [GFLOPS]"};
    for (const auto& dev : d_.devices) {
      const auto rows = latest_bench(dev.key, prec);
      const RoofRow* r = roof(dev.key, prec);
      std::map<std::size_t, std::map<std::string, const BenchRow*>> by_n;
      for (const BenchRow* b : rows) {
        // Single GEMMs by size: a batch of the same n is another problem.
        if (b->status == "Ok" && b->gflops && is_square(b->p) && b->p.batch == 1) {
          by_n[b->p.n][b->subject] = b;
        }
      }
      for (const auto& entry : by_n) {
        // Not a structured binding: a lambda below uses it (clang before 16 refuses that).
        const std::size_t n = entry.first;
        const auto& subjects = entry.second;
        const auto g = [&](const char* subject) -> Opt {
          const auto it = subjects.find(subject);
          return it == subjects.end() ? Opt() : it->second->gflops;
        };
        const Opt tuned = g("tuned"), clblast = g("clblast"), host = g("host-blas");
        t.rows.push_back(
            {text_cell(dev.platform), text_cell(display_name(dev)), number_cell(double(n)),
             tuned ? number_cell(*tuned) : Cell{"", true},
             Cell{tuned && r ? share_of_peak(*tuned, r->peak) : "", true},
             clblast ? number_cell(*clblast) : Cell{"", true},
             Cell{tuned && clblast ? svg::format_value(*tuned / *clblast) + "x" : "", true},
             host ? number_cell(*host) : Cell{"", true}});
      }
    }
    doc.heading(3, "Whole routine per size (" + precision_name(prec) + ")");
    if (t.rows.empty()) {
      doc.text("No bench results of this precision.");
      continue;
    }
    doc.table(std::move(t));
    doc.note(
        "Each device's latest mmtune bench: its tuned routine, CLBlast with its own parameters "
        "and the host BLAS, timed side by side in that run. Share of peak: of the device's own "
        "peak as mmtune roofline measured it (empty when not measured).");
  }
  // What each implementation's best asks of the hardware: the parameters that explain most of
  // the difference between implementations.
  Table shape;
  shape.head = {"implementation",
                "device",
                "problem",
                "kernel",
                "work-group size",
                "vector widths (m x n)",
                "local memory (A, B)"};
  for (const auto& dev : d_.devices) {
    if (dev.imported()) continue;  // no implementation of this machine, as counted above
    const BestRow* pick = nullptr;
    for (const auto* b : bests(dev.key)) {
      if (!pick || problem_size_axis(b->p) > problem_size_axis(pick->p)) pick = b;
    }
    if (!pick) continue;
    std::map<std::string, int> v;
    for (const auto& [name, value] : int_pairs(pick->kernel, pick->config)) v[name] = value;
    // CLBlast's Xgemm names its parameters as the tiled kernel does; other kernels (naive,
    // classic) have no such parameters, and their cells stay empty.
    const bool tiled =
        pick->kernel == kernel_name(KernelKind::kTiled) || pick->kernel == kClblastKernel;
    const bool direct = pick->kernel == kernel_name(KernelKind::kDirect);
    std::vector<Cell> row = {text_cell(dev.platform), text_cell(display_name(dev)),
                             text_cell(describe(pick->p)), text_cell(pick->kernel)};
    if (tiled || direct) {
      const std::string d = direct ? "D" : "";
      row.push_back(number_cell(double(v["MDIMC" + d] * v["NDIMC" + d])));
      row.push_back(text_cell(std::to_string(v["VWM" + d]) + " x " + std::to_string(v["VWN" + d])));
      row.push_back(text_cell(direct ? "yes, yes"  // the direct kernel always stages both
                                     : std::string(v["SA"] ? "yes" : "no") + ", " +
                                           (v["SB"] ? "yes" : "no")));
    } else {
      row.insert(row.end(), 3, text_cell(""));
    }
    shape.rows.push_back(std::move(row));
  }
  if (!shape.rows.empty()) {
    doc.heading(3, "What each best asks of the hardware");
    doc.table(std::move(shape));
    doc.note(
        "The best of each device's largest tuned problem, after as many evaluations as its "
        "tunes made (the cost table below): a short tune's best may be little more than a "
        "default. For comparison, what longer tunes found (docs/kernels.md): an implementation "
        "that loops over work-items (PoCL) rewarded few work-items with wide explicit vectors; "
        "one that maps work-items to SIMD lanes (llvmpipe) more work-items, wider vector loads "
        "and larger register tiles.");
  }

  Table cost;
  cost.head = {"implementation", "device", "sessions", "evaluations", "tuning wall time [s]"};
  for (const auto& dev : d_.devices) {
    if (dev.imported()) continue;
    std::size_t sessions = 0, evaluations = 0, timed = 0;
    double wall = 0;
    for (const auto& s : d_.sessions) {
      if (s.r.device_key != dev.key) continue;
      ++sessions;
      const auto it = by_session_.find(s.r.id);
      if (it != by_session_.end()) evaluations += it->second.size();
      // A file's results (a CLBlast or Kernel Tuner import) took no time here.
      const auto start = parse_time(s.r.started_at), end = parse_time(s.r.ended_at);
      if (start && end && s.r.outcome != kImportedOutcome) wall += *end - *start, ++timed;
    }
    if (sessions == 0) continue;
    cost.rows.push_back({text_cell(dev.platform), text_cell(display_name(dev)),
                         number_cell(double(sessions)), number_cell(double(evaluations)),
                         timed ? number_cell(wall) : Cell{"", true}});
  }
  if (!cost.rows.empty()) {
    doc.heading(3, "Cost of tuning");
    doc.table(std::move(cost));
    doc.note("Every stored session of the device: its measurements and its wall time.");
  }
}

void Report::comparison(Doc& doc) {
  doc.heading(2, "Across devices", "compare");
  if (d_.devices.size() < 2) {
    doc.text("Only one device is in this report: nothing to compare.");
    return;
  }
  std::set<int> precisions;
  for (const auto& [k, row] : best_of_) precisions.insert(int(row->p.precision));
  for (const auto& [k, row] : latest_) {
    if (std::get<1>(k) == "tuned" && shown_gflops(*row)) precisions.insert(int(row->p.precision));
  }
  for (const int prec : precisions) {
    const std::string pname = precision_name(prec);
    std::vector<GemmProblem> problems;
    const auto note_problem = [&](const GemmProblem& p) {
      if (int(p.precision) != prec) return;
      if (std::none_of(problems.begin(), problems.end(),
                       [&](const GemmProblem& q) { return pkey(q) == pkey(p); })) {
        problems.push_back(p);
      }
    };
    for (const auto& [k, row] : best_of_) note_problem(row->p);
    for (const auto& [k, row] : latest_) {
      if (std::get<1>(k) == "tuned" && shown_gflops(*row)) note_problem(row->p);
    }
    std::sort(problems.begin(), problems.end(), problem_less);
    std::vector<const DeviceRow*> devs;  // those with results of this precision
    for (const auto& dev : d_.devices) {
      if (std::any_of(problems.begin(), problems.end(),
                      [&](const GemmProblem& p) { return tuned(dev.key, p).has_value(); })) {
        devs.push_back(&dev);
      }
    }
    doc.heading(3, "Best GFLOPS per problem (" + pname + ")");
    if (devs.size() < 2) {  // none: every result of the precision is one the report hides
      doc.text(devs.empty() ? "No device has " + pname + " results to show."
                            : "Only " + display_name(*devs.front()) + " has " + pname +
                                  " results: nothing to compare.");
      continue;
    }
    svg::BarChart c;
    c.title = "Tuned GFLOPS relative to the fastest device (" + pname + ")";
    c.value_label = "relative to fastest [%]";
    c.value_max = 100.0;
    c.category_label = "problem (n for square problems)";
    for (const auto& p : problems) c.categories.push_back(short_label(p));
    Table t;
    t.head = {"problem"};
    for (std::size_t i = 0; i < devs.size(); ++i) {
      c.series.push_back({display_name(*devs[i]), {}, svg::palette(i)});
      t.head.push_back(display_name(*devs[i]) + " [GFLOPS]");
    }
    for (const auto& p : problems) {
      double fastest = 0;
      for (const auto* dev : devs) {
        if (const auto g = tuned(dev->key, p)) fastest = std::max(fastest, g->gflops);
      }
      std::vector<Cell> row{text_cell(describe(p))};
      for (std::size_t i = 0; i < devs.size(); ++i) {
        const auto g = tuned(devs[i]->key, p);
        c.series[i].values.push_back(g && fastest > 0 ? Opt(g->gflops / fastest * 100) : Opt());
        if (!g) {
          row.push_back(Cell{"", true});
          continue;
        }
        Cell cell{svg::format_value(g->gflops) + " (" +
                      (fastest > 0 ? pct(g->gflops / fastest) : "-") +
                      (g->source == "bench" ? ", bench)" : ")"),
                  true};
        cell.strong = g->gflops == fastest;
        row.push_back(cell);
      }
      t.rows.push_back(std::move(row));
    }
    doc.chart(c, "compare-" + pname);
    doc.table(std::move(t));
    doc.note(
        "Per device the latest mmtune bench tuned run (marked bench) or else the best "
        "stored tuning result; in parentheses the share of the fastest device's GFLOPS for "
        "that problem (bold: the fastest).");
  }

  // One row per device: the best configuration of its largest tuned square problem.
  doc.heading(3, "Best parameters per device");
  std::vector<std::pair<const DeviceRow*, const BestRow*>> picks;
  std::vector<std::string> params;
  for (const auto& dev : d_.devices) {
    const BestRow* pick = nullptr;
    for (const auto* b : bests(dev.key)) {
      const auto rank = [](const BestRow* r) {
        return std::make_tuple(is_square(r->p), problem_size_axis(r->p), int(r->p.precision) == 32);
      };
      if (!pick || rank(b) > rank(pick)) pick = b;
    }
    if (!pick) continue;
    picks.emplace_back(&dev, pick);
    for (const auto& [name, v] : int_pairs(pick->kernel, pick->config)) {
      if (std::find(params.begin(), params.end(), name) == params.end()) params.push_back(name);
    }
  }
  if (picks.empty()) {
    doc.text("No stored tuning results.");
  } else {
    // The most common value per parameter, where one is (a tie, two devices that differ, has
    // none); other values are highlighted.
    std::map<std::string, std::optional<int>> usual;
    for (const auto& name : params) {
      std::map<int, int> counts;
      for (const auto& [dev, b] : picks) {
        for (const auto& [n, v] : int_pairs(b->kernel, b->config)) {
          if (n == name) ++counts[v];
        }
      }
      int most = 0;
      for (const auto& [v, count] : counts) {
        if (count > most) {
          usual[name] = v, most = count;
        } else if (count == most) {
          usual[name].reset();
        }
      }
    }
    Table t;
    t.head = {"device", "problem", "kernel", "GFLOPS"};
    for (const auto& p : params) t.head.push_back(p);
    for (const auto& [dev, b] : picks) {
      std::vector<Cell> row{text_cell(display_name(*dev)), text_cell(describe(b->p)),
                            text_cell(b->kernel), number_cell(b->gflops)};
      const auto pairs = int_pairs(b->kernel, b->config);
      for (const auto& name : params) {
        const auto it = std::find_if(pairs.begin(), pairs.end(),
                                     [&](const auto& pr) { return pr.first == name; });
        if (it == pairs.end()) {
          row.push_back(Cell{"", true});
          continue;
        }
        Cell cell = number_cell(it->second);
        cell.highlight = usual[name] && it->second != *usual[name];
        row.push_back(cell);
      }
      t.rows.push_back(std::move(row));
    }
    doc.table(std::move(t));
    doc.note(
        "Highlighted: values that differ from the most common value among the devices "
        "(none where the most common values tie).");
  }

  doc.heading(3, "Which parameters matter, side by side");
  std::vector<Importance> imps;
  std::vector<const DeviceRow*> with;  // devices with something to show
  std::vector<std::string> names;
  for (const auto& dev : d_.devices) {
    Importance imp = importance(dev.key);
    if (imp.params.empty()) continue;
    imps.push_back(std::move(imp));
    with.push_back(&dev);
    for (const auto& s : imps.back().params) {
      if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
    }
  }
  if (names.empty()) {
    doc.text("Not enough measurements that vary parameters.");
    return;
  }
  const auto spread_of = [&](std::size_t i, const std::string& name) -> Opt {
    for (const auto& s : imps[i].params) {
      if (s.name == name) return s.spread;
    }
    return std::nullopt;
  };
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    double ma = 0, mb = 0;
    for (std::size_t i = 0; i < imps.size(); ++i) {
      ma = std::max(ma, spread_of(i, a).value_or(0)),
      mb = std::max(mb, spread_of(i, b).value_or(0));
    }
    return ma > mb;
  });
  Table t;
  t.head = {"parameter"};
  for (std::size_t i = 0; i < with.size(); ++i) {
    t.head.push_back(display_name(*with[i]) + " (" + imps[i].kernel + ", " +
                     short_label(imps[i].p) + ")");
  }
  for (const auto& name : names) {
    std::vector<Cell> row{code_cell(name)};
    for (std::size_t i = 0; i < imps.size(); ++i) {
      const auto s = spread_of(i, name);
      row.push_back(s ? Cell{svg::format_value(*s) + "\xC3\x97", true} : Cell{"", true});
    }
    t.rows.push_back(std::move(row));
  }
  doc.table(std::move(t));
  doc.note(
      "Spread: best / worst median GFLOPS over a parameter's values (1\xC3\x97: no effect), "
      "per device from the kernel and problem with the most Ok measurements.");
}

}  // namespace mmtune::report_detail
