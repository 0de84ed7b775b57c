// A small SVG chart writer for reports: line / scatter / step charts on linear, log2 or log10
// axes (roofline plots are log-log line + scatter charts), and grouped or horizontal bar charts.
// Output is plain SVG text with every string escaped, no scripts and no external references.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mmtune::svg {

enum class Scale { kLinear, kLog2, kLog10 };

struct Axis {
  std::string label;  // with its unit, e.g. "performance [GFLOPS]"
  Scale scale = Scale::kLinear;
  std::optional<double> min, max;  // fixed ends; otherwise the data's range (padded, rounded)
  bool integer = false;            // linear ticks on whole numbers only (e.g. evaluation counts)
};

enum class Mark { kLine, kPoints, kLinePoints, kStep };

struct Series {
  std::string name;                               // legend entry; empty: not in the legend
  std::vector<std::pair<double, double>> points;  // (x, y); non-positive values skip log axes
  Mark mark = Mark::kLinePoints;
  std::string color;  // CSS colour; empty: the palette entry of the series' position
  bool dashed = false;
};

struct XYChart {
  std::string id;  // unique among the charts of one document (prefixes internal ids)
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  int width = 940, height = 420;
};

struct BarSeries {
  std::string name;
  std::vector<std::optional<double>> values;  // one per category; nullopt: no bar
  std::string color;
};

struct BarChart {
  std::string id, title;
  std::vector<std::string> categories;
  std::vector<BarSeries> series;
  std::string value_label;          // the value axis, with its unit
  std::string category_label;       // below vertical bars (e.g. "problem size"); optional
  bool horizontal = false;          // categories down the left side, bars to the right
  std::optional<double> baseline;   // where bars start (e.g. 1 for ratios); default 0
  std::optional<double> value_max;  // fixed end of the value axis (e.g. 100 for percentages)
  std::string value_suffix;         // printed after each bar's value, e.g. "x"; empty: no values
  int width = 940;
};

// The SVG document. `standalone` adds the XML namespace a separate .svg file needs; inline SVG in
// HTML is left without it (so the page holds no URL at all).
std::string render(const XYChart& chart, bool standalone);
std::string render(const BarChart& chart, bool standalone);

// Text for XML/HTML content and attributes: & < > " ' escaped, invalid UTF-8 and control
// characters replaced, so that any device name yields well-formed output.
std::string escape_xml(std::string_view text);

// Compact numbers for tick labels: 0.25, 12.5, 1024, 16384, 2M, 3G.
std::string tick_label(double v);
// A value for display: 4 significant digits, no exponent for ordinary magnitudes.
std::string format_value(double v);

// The colour of series i.
const std::string& palette(std::size_t i);

}  // namespace mmtune::svg
