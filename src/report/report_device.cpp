#include "report/report_view.hpp"

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "core/cpu_load.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "report/report.hpp"

namespace mmtune::report_detail {

void Report::performance(Doc& doc, const DeviceRow& dev, const std::string& tag) {
  std::set<int> precisions;
  for (const auto& b : d_.bench) {
    if (b.key == dev.key) precisions.insert(int(b.p.precision));
  }
  for (const auto* b : bests(dev.key)) precisions.insert(int(b->p.precision));
  for (const int prec : precisions) {
    const std::string pname = precision_name(prec);
    const RoofRow* peak = roof(dev.key, prec);
    const auto rows = latest_bench(dev.key, prec);
    doc.heading(3, "Performance against problem size (" + pname + ")");

    // (series name, colour key, points with their problems)
    struct Line {
      std::string name, color_key;
      svg::Mark mark;
      std::vector<std::pair<double, double>> points;
    };
    std::vector<Line> lines;
    bool all_square = true;
    const auto add = [&](const std::string& name, const std::string& color_key,
                         const GemmProblem& p, double g) {
      all_square = all_square && is_square(p);
      // Other shapes and layouts get their own series: joined to the square ones they would
      // draw slopes that no problem has. Non-square problems are single points.
      std::string series = name;
      if (p.layout != Layout::kRowMajor || p.trans_a || p.trans_b) {
        series += std::string(p.layout == Layout::kRowMajor ? " (row " : " (col ") +
                  (p.trans_a ? "T" : "N") + (p.trans_b ? "T" : "N") + ")";
      }
      if (!is_square(p)) series += " (non-square)";
      if (p.batch != 1) series += " (batch " + std::to_string(p.batch) + ")";
      auto it =
          std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.name == series; });
      if (it == lines.end()) {
        it = lines.insert(
            lines.end(),
            Line{
                series, color_key, is_square(p) ? svg::Mark::kLinePoints : svg::Mark::kPoints, {}});
      }
      it->points.emplace_back(problem_size_axis(p), g);
    };
    std::vector<const BenchRow*> sorted = rows;
    std::stable_sort(sorted.begin(), sorted.end(), [](const BenchRow* a, const BenchRow* b) {
      return subject_rank(a->subject) < subject_rank(b->subject);
    });
    if (!rows.empty()) {
      for (const auto* r : sorted) {
        if (const auto g = shown_gflops(*r)) add(r->subject, r->subject, r->p, *g);
      }
    } else {
      for (const std::string& kernel : tuned_kernels()) {
        for (const auto& b : d_.best) {
          if (b.key == dev.key && int(b.p.precision) == prec && b.kernel == kernel) {
            add("best " + b.kernel, b.kernel, b.p, b.gflops);
          }
        }
      }
    }
    const std::string x_label = all_square ? "problem size n (square n x n x n) [elements]"
                                           : "problem size n, or (m n k)^(1/3) [elements]";
    svg::XYChart c;
    c.title = dev.name + ": GFLOPS against problem size (" + pname + ")";
    c.x = axis(x_label, svg::Scale::kLog2);
    c.y = axis("performance [GFLOPS]", svg::Scale::kLinear, 0.0);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      c.series.push_back(
          {lines[i].name, lines[i].points, lines[i].mark, subject_color(lines[i].color_key, i)});
    }
    doc.chart(c, tag + "-gflops-" + pname);
    doc.note(rows.empty() ? "From the stored best tuning results (table best), per kernel; no "
                            "mmtune bench rows for this precision."
                          : "From mmtune bench (table bench): the latest run per subject and "
                            "size.");
    if (peak) {
      svg::XYChart f = c;
      f.title = dev.name + ": share of the measured peak (" + pname + ", " +
                svg::format_value(peak->peak) + " GFLOPS)";
      f.y = axis("share of measured peak [%]", svg::Scale::kLinear, 0.0);
      f.series.clear();
      for (std::size_t i = 0; i < lines.size(); ++i) {
        if (!on_device(lines[i].color_key)) continue;
        auto s = c.series[i];
        // Above the peak the table says n/a (a busy machine measured the roof): no point.
        std::erase_if(s.points, [&](const auto& pt) { return pt.second > peak->peak; });
        for (auto& pt : s.points) pt.second = pt.second / peak->peak * 100.0;
        f.series.push_back(std::move(s));
      }
      doc.chart(f, tag + "-peak-" + pname);
    }
    if (rows.empty()) continue;  // the best-configuration table shows these numbers
    std::vector<std::string> subjects;
    std::vector<GemmProblem> problems;
    std::map<std::pair<std::string, ProblemKey>, const BenchRow*> cell;
    for (const auto* r : sorted) {
      if (r->status == "NotAvailable") continue;  // not built in: a column of it says nothing
      if (std::find(subjects.begin(), subjects.end(), r->subject) == subjects.end()) {
        subjects.push_back(r->subject);
      }
      if (std::none_of(problems.begin(), problems.end(),
                       [&](const GemmProblem& p) { return pkey(p) == pkey(r->p); })) {
        problems.push_back(r->p);
      }
      cell[{r->subject, pkey(r->p)}] = r;
    }
    std::sort(problems.begin(), problems.end(), problem_less);
    bool above_peak = false;
    Table t;
    t.head = {"problem"};
    for (const auto& s : subjects) t.head.push_back(s + " [GFLOPS]");
    for (const auto& p : problems) {
      std::vector<Cell> row{text_cell(short_label(p))};
      for (const auto& s : subjects) {
        const auto it = cell.find({s, pkey(p)});
        if (it == cell.end()) {
          row.push_back(Cell{"", true});
        } else if (!shown_gflops(*it->second)) {
          row.push_back(Cell{it->second->status, true});
        } else {
          const double g = *shown_gflops(*it->second);
          const bool share = peak && on_device(s);
          above_peak = above_peak || (share && g > peak->peak);
          row.push_back(
              Cell{svg::format_value(g) + (share ? " (" + share_of_peak(g, peak->peak) + ")" : ""),
                   true});
        }
      }
      t.rows.push_back(std::move(row));
    }
    doc.table(std::move(t));
    if (peak) {
      doc.note("In parentheses: share of the measured " + pname + " peak of " +
               svg::format_value(peak->peak) + " GFLOPS (mmtune roofline, " + peak->measured_at +
               "); none for host BLAS, which runs on the host's CPU, not this device." +
               (above_peak ? " Above the peak, the roof was measured on a busy machine: run "
                             "mmtune roofline again."
                           : ""));
    }
  }
}

std::string Report::noise(std::int64_t measurement_id) const {
  const auto it = meas_by_id_.find(measurement_id);
  if (it == meas_by_id_.end()) return "";
  const MeasRow& m = *it->second;
  std::string out;
  if (m.runs >= 2 && m.median_ms && m.min_ms && m.max_ms && *m.median_ms > 0) {
    out = "spread " + pct((*m.max_ms - *m.min_ms) / *m.median_ms);
  }
  if (m.other_load) out += (out.empty() ? "" : ", ") + ("others " + pct(*m.other_load) + " CPU");
  return out;
}

void Report::best_table(Doc& doc, const DeviceRow& dev) {
  const auto rows = bests(dev.key);
  if (rows.empty()) return;
  doc.heading(3, "Best configuration per problem");
  Table t;
  t.head = {"problem",       "kernel",        "configuration", "median [ms]", "GFLOPS",
            "kernel GFLOPS", "share of peak", "noise",         "measurement", "updated (UTC)"};
  bool busy = false;
  for (const auto* b : rows) {
    const RoofRow* peak = roof(dev.key, int(b->p.precision));
    t.rows.push_back({text_cell(describe_for(b->kernel, b->p)), text_cell(b->kernel),
                      code_cell(b->config), number_cell(b->median_ms), number_cell(b->gflops),
                      b->kernel_gflops ? number_cell(*b->kernel_gflops) : Cell{"", true},
                      Cell{peak ? share_of_peak(b->gflops, peak->peak) : "", true},
                      text_cell(noise(b->measurement_id)),
                      Cell{"#" + std::to_string(b->measurement_id), true},
                      text_cell(b->updated_at)});
    const auto m = meas_by_id_.find(b->measurement_id);
    busy = busy || (m != meas_by_id_.end() && m->second->other_load.value_or(0) > kBusyShare);
  }
  doc.table(std::move(t));
  doc.note(
      "Noise: the spread of the measurement's runs, (max - min) / median, and other processes' "
      "share of the machine's CPUs while it ran (from /proc; blank where unknown).");
  if (busy) {
    doc.note("Some bests were measured while other processes used over " + pct(kBusyShare) +
             " of the CPUs: their figures are lower and noisier than on an idle machine.");
  }
}

void Report::roofline(Doc& doc, const DeviceRow& dev, const std::string& tag) {
  for (const auto& rf : d_.roof) {
    if (rf.key != dev.key) continue;
    const std::string pname = precision_name(rf.precision);
    doc.heading(3, "Roofline (" + pname + ")");
    struct Point {
      std::string subject, kernel, config;
      double ai, gflops;
    };
    std::vector<Point> points;
    std::optional<GemmProblem> problem;
    const auto rows = latest_bench(dev.key, rf.precision);
    // The largest problem measured: the one closest to the device's steady state.
    for (const auto* r : rows) {
      if (!problem || problem_less(*problem, r->p)) problem = r->p;
    }
    const auto place = [&](const std::string& subject, std::string kernel, std::string config,
                           double g) {
      if (kernel.empty()) {
        // A bench subject without a kernel: the baselines are named after their kernels.
        const auto baseline = parse_kernel_kind(subject);
        kernel = kernel_name(baseline ? *baseline : KernelKind::kTiled);
      }
      const auto kind = parse_kernel_kind(kernel);
      if (config.empty() && kind) config = to_string(default_config(*kind));
      if (const auto ai = arithmetic_intensity(*problem, kernel, config)) {
        points.push_back({subject, kernel, config, *ai, g});
      }
    };
    if (problem) {
      for (const auto* r : rows) {
        const bool placeable = r->subject == "tuned" || r->subject == "default" ||
                               r->subject == "naive" || r->subject == "classic";
        if (pkey(r->p) == pkey(*problem) && placeable && shown_gflops(*r)) {
          place(r->subject, r->kernel, r->config, *shown_gflops(*r));
        }
      }
    } else {
      for (const auto* b : bests(dev.key)) {
        if (int(b->p.precision) == rf.precision && (!problem || problem_less(*problem, b->p))) {
          problem = b->p;
        }
      }
      if (problem) {
        const BestRow* top = best_of_.at({dev.key, pkey(*problem)});
        place("tuned", top->kernel, top->config, top->gflops);
        for (const auto& b : d_.best) {
          if (b.key == dev.key && pkey(b.p) == pkey(*problem) &&
              (b.kernel == kernel_name(KernelKind::kNaive) ||
               b.kernel == kernel_name(KernelKind::kClassic))) {
            place(b.kernel, b.kernel, b.config, b.gflops);
          }
        }
        // The tuner measures the tiled default configuration as a baseline.
        const std::string def = to_string(default_config(KernelKind::kTiled));
        const MeasRow* latest = nullptr;
        for (const auto& m : d_.meas) {
          if (m.key == dev.key && pkey(m.p) == pkey(*problem) &&
              m.kernel == kernel_name(KernelKind::kTiled) && m.config == def && m.ok()) {
            latest = &m;
          }
        }
        if (latest) place("default", kernel_name(KernelKind::kTiled), def, *latest->gflops);
      }
    }
    std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
      return subject_rank(a.subject) < subject_rank(b.subject);
    });
    const double ridge = rf.peak / rf.bandwidth;
    double lo = ridge, hi = ridge;
    for (const auto& p : points) lo = std::min(lo, p.ai), hi = std::max(hi, p.ai);
    lo /= 4, hi *= 4;
    svg::XYChart c;
    c.title = dev.name + ": roofline (" + pname + ")";
    c.x = axis("arithmetic intensity [FLOP/byte]", svg::Scale::kLog10);
    c.y = axis("performance [GFLOPS]", svg::Scale::kLog10);
    c.series.push_back(
        {"roof: " + svg::format_value(rf.peak) + " GFLOPS, " + svg::format_value(rf.bandwidth) +
             " GB/s",
         {{lo, std::min(rf.peak, rf.bandwidth * lo)}, {ridge, rf.peak}, {hi, rf.peak}},
         svg::Mark::kLine,
         "#555555"});
    for (std::size_t i = 0; i < points.size(); ++i) {
      c.series.push_back({points[i].subject + ": " + svg::format_value(points[i].ai) + " FLOP/byte",
                          {{points[i].ai, points[i].gflops}},
                          svg::Mark::kPoints,
                          subject_color(points[i].subject, i)});
    }
    doc.chart(c, tag + "-roofline-" + pname);
    std::string what = "Roof from mmtune roofline (" + rf.measured_at + "): peak " +
                       svg::format_value(rf.peak) + " GFLOPS, bandwidth " +
                       svg::format_value(rf.bandwidth) + " GB/s, ridge at " +
                       svg::format_value(ridge) + " FLOP/byte.";
    if (problem) {
      what += " Kernels placed for " + describe(*problem) +
              "; intensity = 2mnk / bytes the kernel reads and writes in global memory, "
              "assuming no cache reuse between work-groups (CLBlast and host BLAS have no "
              "traffic model and are not placed).";
    } else {
      what += " No " + pname + " results to place on it.";
    }
    doc.note(what);
    if (points.empty()) continue;
    bool above_bandwidth = false, above_peak = false;
    Table t;
    t.head = {"kernel", "configuration",       "intensity [FLOP/byte]",
              "GFLOPS", "roof there [GFLOPS]", "share of roof"};
    for (const auto& p : points) {
      const double attainable = std::min(rf.peak, rf.bandwidth * p.ai);
      // Past the roof the model, not the kernel, is wrong: no share above 100 % is printed.
      const std::string share = p.gflops <= attainable ? pct(p.gflops / attainable)
                                : p.gflops <= rf.peak  ? "n/a (cache reuse)"
                                                       : share_of_peak(p.gflops, rf.peak);
      above_bandwidth = above_bandwidth || (p.gflops > attainable && p.gflops <= rf.peak);
      above_peak = above_peak || p.gflops > rf.peak;
      t.rows.push_back({text_cell(p.subject + " (" + p.kernel + ")"), code_cell(p.config),
                        number_cell(p.ai), number_cell(p.gflops), number_cell(attainable),
                        Cell{share, true}});
    }
    doc.table(std::move(t));
    if (above_bandwidth) {
      doc.note(
          "A kernel faster than the bandwidth roof at its intensity read its data from "
          "caches more than once, which the traffic model leaves out: its intensity is "
          "higher than placed, and no share is given.");
    }
    if (above_peak) {
      doc.note(
          "A kernel faster than the stored peak means the roof was measured on a busy "
          "machine: run mmtune roofline again (a roof is the fastest measured).");
    }
  }
}

void Report::sessions(Doc& doc, const DeviceRow& dev, const std::string& tag) {
  std::vector<const SessionRow*> list;
  for (const auto& s : d_.sessions) {
    if (s.r.device_key == dev.key) list.push_back(&s);
  }
  if (list.empty()) return;
  doc.heading(3, "Tuning sessions: cost and convergence");
  Table t;
  t.head = {"session",  "problem",      "strategy", "kernels",       "started (UTC)",
            "wall [s]", "evaluations",  "Ok",       "stopped early", "failures by status",
            "outcome",  "best [GFLOPS]"};
  svg::XYChart c;
  c.title = dev.name + ": convergence (best so far per evaluation)";
  c.x = axis("evaluation number", svg::Scale::kLinear, 0.0);
  c.x.integer = true;
  c.y = axis("best so far [GFLOPS]", svg::Scale::kLinear, 0.0);
  // The most recent sessions only: more lines than colours are unreadable.
  constexpr std::size_t kMaxLines = 10;
  std::size_t drawn = 0;
  std::map<std::string, bool> reference;  // by kernel name, decided once
  const auto baseline = [&](const std::string& kernel) {
    const auto [it, added] = reference.try_emplace(kernel, false);
    if (added) it->second = is_reference_kernel(kernel);
    return it->second;
  };
  for (std::size_t i = list.size(); i-- > 0;) {
    const SessionRow& s = *list[i];
    const auto it = by_session_.find(s.r.id);
    if (it == by_session_.end() || drawn >= kMaxLines) continue;
    std::vector<std::pair<double, double>> pts;
    double best = 0;
    for (std::size_t e = 0; e < it->second.size(); ++e) {
      const MeasRow* m = it->second[e];
      if (!m->ok() || *m->gflops <= best || baseline(m->kernel)) continue;
      best = *m->gflops;
      pts.emplace_back(double(e + 1), best);
    }
    if (pts.empty()) continue;
    pts.emplace_back(double(it->second.size()), best);  // flat to the last evaluation
    c.series.insert(c.series.begin(), {"#" + std::to_string(s.r.id) + " " +
                                           short_label(s.r.problem) + " " + s.r.strategy,
                                       pts, svg::Mark::kStep, svg::palette(i)});
    ++drawn;
  }
  for (const SessionRow* s : list) {
    const auto it = by_session_.find(s->r.id);
    const std::vector<const MeasRow*> none;
    const auto& ms = it == by_session_.end() ? none : it->second;
    const auto [ok, stopped_early, failures, best] = session_stats(ms);
    std::string fail;
    for (const auto& [status, n] : failures) {
      fail += (fail.empty() ? "" : ", ") + status + " " + std::to_string(n);
    }
    std::string wall;  // none for a file's results (a CLBlast or Kernel Tuner import): untimed
    const auto start = parse_time(s->r.started_at);
    if (s->r.outcome == kImportedOutcome) {
    } else if (const auto end = parse_time(s->r.ended_at); start && end) {
      wall = svg::format_value(*end - *start);
    } else if (const auto last = ms.empty() ? std::nullopt : parse_time(ms.back()->measured_at);
               start && last) {
      wall = "\xE2\x89\xA5 " +
             svg::format_value(*last - *start);  // not ended: up to its last measurement
    }
    t.rows.push_back({Cell{"#" + std::to_string(s->r.id), true},
                      text_cell(describe_for(s->r.kernels, s->r.problem)), text_cell(s->r.strategy),
                      text_cell(s->r.kernels), text_cell(s->r.started_at), Cell{wall, true},
                      number_cell(double(ms.size())), number_cell(double(ok)),
                      number_cell(double(stopped_early)), text_cell(fail.empty() ? "none" : fail),
                      text_cell(s->r.outcome), best ? number_cell(*best) : Cell{"", true}});
  }
  doc.table(std::move(t));
  doc.note(
      "Evaluations: the session's measurements, every status; stopped early: clearly slower "
      "than the best, timed no further (SlowerEarlyStop, no failure). Wall time from its start "
      "to its end (\xE2\x89\xA5: not ended, up to its last measurement). Best: the session's "
      "fastest measurement of the kernels it searched (not of the naive and classic baselines); "
      "the best table holds the stored best, measured again side by side "
      "where the tune confirmed its finalists, which a lucky single measurement may exceed.");
  if (!c.series.empty()) {
    doc.chart(c, tag + "-convergence");
    doc.note(
        "Best-so-far GFLOPS of the searched kernels' Ok measurements against evaluation number "
        "(failures and baselines count as evaluations)" +
        std::string(drawn == kMaxLines ? "; the 10 most recent sessions." : "."));
  }
}

void Report::parameters(Doc& doc, const DeviceRow& dev, const std::string& tag) {
  const Importance imp = importance(dev.key);
  if (imp.params.empty()) return;
  doc.heading(3, "Which parameters matter");
  svg::BarChart c;
  c.title = dev.name + ": parameter influence (" + imp.kernel + ", " + short_label(imp.p) + ")";
  c.horizontal = true;
  c.baseline = 1.0;
  c.value_suffix = "\xC3\x97";
  c.value_label = "best / worst median GFLOPS over the parameter's values [ratio]";
  svg::BarSeries s{"spread", {}, "#4e79a7"};
  for (const auto& p : imp.params) {
    c.categories.push_back(p.name);
    s.values.push_back(p.spread);
  }
  c.series.push_back(s);
  doc.chart(c, tag + "-parameters");
  Table t;
  t.head = {"parameter",           "values tried", "spread (best / worst)", "best value",
            "its median [GFLOPS]", "worst value",  "its median [GFLOPS]"};
  for (const auto& p : imp.params) {
    t.rows.push_back({code_cell(p.name), number_cell(double(p.values)), number_cell(p.spread),
                      number_cell(p.best_value), number_cell(p.best_median),
                      number_cell(p.worst_value), number_cell(p.worst_median)});
  }
  doc.table(std::move(t));
  doc.note("From " + std::to_string(imp.measurements) + " Ok measurements of " +
           std::to_string(imp.configurations) + " configurations of the " + imp.kernel +
           " kernel for " + describe(imp.p) +
           ": for each value of a parameter the median GFLOPS of the configurations with it, "
           "each counted once (as the median of its measurements). "
           "Parameters interact, so this ranks sensitivity, not cause.");
}

}  // namespace mmtune::report_detail
