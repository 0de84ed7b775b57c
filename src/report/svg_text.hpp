// Text inside SVG (svg_chart.cpp's helpers): valid UTF-8, escaping, estimated widths.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/text.hpp"

namespace mmtune::svg {

// Text metrics are estimated (no font engine): an average glyph of a 12 px sans-serif font is
// about 6.8 px wide; erring wide keeps labels from overlapping.
inline constexpr double kCharWidth = 7.0;

std::size_t code_points(std::string_view s);
// At most `max` code points of valid UTF-8, with an ellipsis when cut.
std::string shorten(const std::string& valid, std::size_t max);
double text_width(const std::string& s, double char_width = kCharWidth);
// XML escaping of valid UTF-8.
std::string esc(const std::string& valid);

}  // namespace mmtune::svg
