#include "report/replay_chart.hpp"

#include "report/svg_chart.hpp"

namespace mmtune {

std::string replay_curve_svg(const std::string& title, const std::vector<std::size_t>& checkpoints,
                             const std::vector<SimulationResult>& results) {
  svg::XYChart chart;
  chart.id = "replay";
  chart.title = title;
  chart.x = {"evaluations", svg::Scale::kLog2, std::nullopt, std::nullopt, true};
  chart.y = {"mean fraction of the optimum", svg::Scale::kLinear, std::nullopt, 1.0, false};
  for (const auto& r : results) {
    svg::Series s;
    s.name = r.strategy;
    for (std::size_t c = 0; c < checkpoints.size() && c < r.mean_fraction.size(); ++c) {
      s.points.emplace_back(double(checkpoints[c]), r.mean_fraction[c]);
    }
    chart.series.push_back(std::move(s));
  }
  return svg::render(chart, true);
}

}  // namespace mmtune
