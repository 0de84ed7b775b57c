#include "report/replay_chart.hpp"

namespace mmtune {

svg::XYChart replay_curve_chart(const std::string& title, std::vector<ReplayCurve> curves) {
  svg::XYChart chart;
  chart.id = "replay";
  chart.title = title;
  chart.x = {"evaluations", svg::Scale::kLog2, std::nullopt, std::nullopt, true};
  chart.y = {"mean fraction of the optimum", svg::Scale::kLinear, std::nullopt, 1.0, false};
  for (auto& [name, points] : curves) {
    svg::Series s;
    s.name = std::move(name);
    s.points = std::move(points);
    chart.series.push_back(std::move(s));
  }
  return chart;
}

std::string replay_curve_svg(const std::string& title, const std::vector<std::size_t>& checkpoints,
                             const std::vector<SimulationResult>& results) {
  std::vector<ReplayCurve> curves;
  for (const auto& r : results) {
    auto& [name, points] =
        curves.emplace_back(r.strategy, std::vector<std::pair<double, double>>{});
    for (std::size_t c = 0; c < checkpoints.size() && c < r.mean_fraction.size(); ++c) {
      points.emplace_back(double(checkpoints[c]), r.mean_fraction[c]);
    }
  }
  return svg::render(replay_curve_chart(title, std::move(curves)), true);
}

}  // namespace mmtune
