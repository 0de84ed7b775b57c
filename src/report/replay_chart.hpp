// The replay benchmark's chart: per strategy, the mean fraction of the optimum reached after N
// evaluations (mmtune simulate --curve --svg, and the report's replay section).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/svg_chart.hpp"
#include "search/simulate.hpp"

namespace mmtune {

// One line per strategy: its name and (evaluations, mean fraction of the optimum) points.
using ReplayCurve = std::pair<std::string, std::vector<std::pair<double, double>>>;
svg::XYChart replay_curve_chart(const std::string& title, std::vector<ReplayCurve> curves);

// A standalone SVG; `checkpoints` are the evaluation counts of every result's mean_fraction.
std::string replay_curve_svg(const std::string& title, const std::vector<std::size_t>& checkpoints,
                             const std::vector<SimulationResult>& results);

}  // namespace mmtune
