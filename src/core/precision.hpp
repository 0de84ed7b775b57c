// Scalars as a kernel of each precision sees them.
#pragma once

#include <cstdint>

#include "mmtune/problem.hpp"

namespace mmtune {

// IEEE binary16 conversions (round to nearest even), for fp16 buffers.
std::uint16_t to_half(float f);
float from_half(std::uint16_t h);

// Rounds a value to what the precision can represent.
double round_to(double v, Precision p);

}  // namespace mmtune
