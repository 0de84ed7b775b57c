// The report's replay section: the search strategies replayed on a device's stored landscapes
// (`mmtune simulate --curve --save`), as a table and a chart per landscape.
#include <set>

#include "report/replay_chart.hpp"
#include "report/report_view.hpp"

namespace mmtune::report_detail {

void Report::replays(Doc& doc, const DeviceRow& dev, const std::string& tag) {
  // The store orders replays by device, then landscape: one group per kernel and problem.
  std::vector<std::vector<const ReplayRow*>> groups;
  for (const auto& r : d_.replays) {
    if (r.key != dev.key) continue;
    if (groups.empty() || groups.back().front()->kernel != r.kernel ||
        pkey(groups.back().front()->p) != pkey(r.p)) {
      groups.emplace_back();
    }
    groups.back().push_back(&r);
  }
  if (groups.empty()) return;
  doc.heading(3, "Search strategies replayed on recorded landscapes");
  doc.note(
      "mmtune simulate --curve --save: each strategy asks, the stored measurements answer, over "
      "many seeds; no device involved. Fraction of the optimum: the best recorded time over the "
      "best time found so far, averaged over the seeds. A configuration that failed counts as an "
      "evaluation that found nothing.");
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& group = groups[g];
    const ReplayRow& first = *group.front();
    std::set<std::int64_t> checkpoints;
    for (const ReplayRow* r : group) {
      for (const auto& point : r->curve) checkpoints.insert(point.first);
    }
    doc.text(first.kernel + ", " + describe(first.p) + ": " + std::to_string(first.configurations) +
             " recorded configurations; random sampling " + "needs (N+1)/(k+1) = " +
             svg::format_value(first.random_expected) + " evaluations on average to come within " +
             svg::format_value(first.tolerance * 100) + " % of the best.");
    if (const auto it = d_.shapes.find(landscape_id(first)); it != d_.shapes.end()) {
      const LandscapeShape& s = it->second;
      const std::size_t timed = s.points - s.failed;
      const std::string within = " within " + svg::format_value(first.tolerance * 100) + " %";
      doc.text("Its shape (mmtune simulate --landscape): " + std::to_string(s.local_minima) +
               " local minima, " + std::to_string(s.minima_in_target) + " of them" + within +
               "; steepest descent over neighbouring values ends" + within + " from " +
               std::to_string(s.descent_to_target) + " of " + std::to_string(timed) +
               " timed configurations (" +
               svg::format_value(100.0 * double(s.descent_to_target) / double(timed)) + " %).");
    }
    Table t;
    t.head = {"strategy", "options"};
    for (const auto c : checkpoints) t.head.push_back("N=" + std::to_string(c));
    t.head.insert(t.head.end(), {"median evaluations to within the target", "reached", "seeds",
                                 "replayed (UTC)"});
    std::vector<ReplayCurve> curves;
    for (const ReplayRow* r : group) {
      std::vector<Cell> row = {text_cell(r->strategy), code_cell(r->settings)};
      for (const auto c : checkpoints) {
        Cell cell{"", true};
        for (const auto& [evaluations, fraction] : r->curve) {
          if (evaluations == c) cell = number_cell(fraction);
        }
        row.push_back(cell);
      }
      row.push_back(r->median_within_budget() ? number_cell(r->median_evaluations)
                                              : Cell{">" + std::to_string(r->budget), true});
      row.push_back(Cell{std::to_string(r->reached) + "/" + std::to_string(r->seeds), true});
      row.push_back(number_cell(double(r->seeds)));
      row.push_back(text_cell(r->measured_at));
      t.rows.push_back(std::move(row));
      auto& [name, points] =
          curves.emplace_back(r->strategy + (r->settings.empty() ? "" : " " + r->settings),
                              std::vector<std::pair<double, double>>{});
      for (const auto& [evaluations, fraction] : r->curve) {
        points.emplace_back(double(evaluations), fraction);
      }
    }
    doc.table(std::move(t));
    doc.chart(replay_curve_chart(dev.name + ": " + first.kernel + " " + short_label(first.p),
                                 std::move(curves)),
              tag + "-replay-" + std::to_string(g + 1));
  }
  doc.note(
      "Where half the runs or fewer came within the target, their median lies past the budget, "
      "shown as \">\" and the budget. The landscapes are what was measured once; a replay shows "
      "how a strategy searches that space, not how noisy a new measurement would be.");
}

}  // namespace mmtune::report_detail
