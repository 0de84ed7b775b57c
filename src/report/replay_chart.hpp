// The replay benchmark's chart: per strategy, the mean fraction of the optimum reached after N
// evaluations (mmtune simulate --curve --svg).
#pragma once

#include <string>
#include <vector>

#include "search/simulate.hpp"

namespace mmtune {

// A standalone SVG; `checkpoints` are the evaluation counts of every result's mean_fraction.
std::string replay_curve_svg(const std::string& title, const std::vector<std::size_t>& checkpoints,
                             const std::vector<SimulationResult>& results);

}  // namespace mmtune
