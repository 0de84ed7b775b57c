#include "report/svg_chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <sstream>

#include "report/svg_text.hpp"

namespace mmtune::svg {
namespace {

constexpr int kLegendChars = 36;
constexpr int kCategoryChars = 26;

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// 1, 2, 2.5 or 5 times a power of ten, at least `raw`.
double nice_step(double raw, bool integer) {
  if (!(raw > 0)) return 1.0;
  const double e = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / e;
  double step = f <= 1 ? 1 : f <= 2 ? 2 : (f <= 2.5 && !integer) ? 2.5 : f <= 5 ? 5 : 10;
  step *= e;
  return integer ? std::max(1.0, std::round(step)) : step;
}

struct Range {
  Scale scale = Scale::kLinear;
  double lo = 0, hi = 1;  // in transformed units (log_b for log scales)
  std::vector<double> ticks;
  std::vector<double> minor;  // unlabelled grid lines (log10 axes)

  double transform(double v) const {
    switch (scale) {
      case Scale::kLog2:
        return std::log2(v);
      case Scale::kLog10:
        return std::log10(v);
      case Scale::kLinear:
        break;
    }
    return v;
  }
  double fraction(double v) const { return (transform(v) - lo) / (hi - lo); }
  bool usable(double v) const { return std::isfinite(v) && (scale == Scale::kLinear || v > 0); }
};

Range make_range(const Axis& a, const std::vector<double>& raw) {
  Range r;
  r.scale = a.scale;
  std::vector<double> v;
  for (double x : raw) {
    if (r.usable(x)) v.push_back(r.transform(x));
  }
  if (a.scale == Scale::kLinear) {
    double lo = v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
    double hi = v.empty() ? 1.0 : *std::max_element(v.begin(), v.end());
    if (a.min) lo = *a.min;
    if (a.max) hi = *a.max;
    // An empty range widens away from a fixed end (a fraction of the optimum stays <= 1).
    if (!(hi > lo) && a.max && !a.min) {
      lo = hi - std::max(1.0, std::fabs(hi) * 0.5);
    } else if (!(hi > lo)) {
      hi = lo + std::max(1.0, std::fabs(lo) * 0.5);
    }
    const double step = nice_step((hi - lo) / 5.0, a.integer);
    r.lo = a.min ? lo : std::floor(lo / step) * step;
    r.hi = a.max ? hi : std::ceil(hi / step) * step;
    // Headroom so that the largest value does not sit on the frame.
    if (!a.max && r.hi - hi < step * 0.05) r.hi += step;
    for (double t = std::ceil(r.lo / step - 1e-9); t * step <= r.hi + step * 1e-9; t += 1) {
      r.ticks.push_back(t * step);
    }
    return r;
  }
  const double base = a.scale == Scale::kLog2 ? 2.0 : 10.0;
  const double pad = a.scale == Scale::kLog2 ? 0.4 : 0.2;
  double lo = v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()) - pad;
  double hi = v.empty() ? 1.0 : *std::max_element(v.begin(), v.end()) + pad;
  if (a.min && *a.min > 0) lo = std::log(*a.min) / std::log(base);
  if (a.max && *a.max > 0) hi = std::log(*a.max) / std::log(base);
  // At least two labelled powers on a log2 axis, one decade on a log10 axis.
  const double min_span = a.scale == Scale::kLog2 ? 2.0 : 1.0;
  if (hi - lo < min_span) {
    const double mid = (hi + lo) / 2;
    lo = mid - min_span / 2, hi = mid + min_span / 2;
  }
  r.lo = lo, r.hi = hi;
  const int first = int(std::ceil(lo - 1e-9)), last = int(std::floor(hi + 1e-9));
  const int count = last - first + 1;
  const int every = count > 9 ? (count + 7) / 8 : 1;
  for (int e = first; e <= last; ++e) {
    if (e % every == 0) r.ticks.push_back(std::pow(base, e));
  }
  if (a.scale == Scale::kLog10) {
    const bool label_minor = r.ticks.size() < 3;
    for (int e = first - 1; e <= last; ++e) {
      for (int m = 2; m <= 9; ++m) {
        const double x = m * std::pow(10.0, e);
        const double t = std::log10(x);
        if (t < lo || t > hi) continue;
        if (label_minor && (m == 2 || m == 5)) {
          r.ticks.push_back(x);
        } else if (hi - lo <= 6) {
          r.minor.push_back(x);
        }
      }
    }
    std::sort(r.ticks.begin(), r.ticks.end());
  }
  return r;
}

// Pixel mapping of a range onto [p0, p1].
struct Mapper {
  const Range* range;
  double p0, p1;
  double operator()(double v) const { return p0 + range->fraction(v) * (p1 - p0); }
};

void open_svg(std::ostringstream& o, int w, int h, const std::string& title, bool standalone) {
  o << "<svg";
  if (standalone) o << " xmlns=\"http://www.w3.org/2000/svg\"";
  o << " width=\"" << w << "\" height=\"" << h << "\" viewBox=\"0 0 " << w << ' ' << h
    << "\" role=\"img\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
       "font-size=\"12\">\n";
  // A title names a stored device: bytes XML does not allow would make the chart unreadable.
  const std::string clean = valid_utf8(title);
  o << "<title>" << esc(clean) << "</title>\n";
  o << "<rect x=\"0\" y=\"0\" width=\"" << w << "\" height=\"" << h << "\" fill=\"#ffffff\"/>\n";
  o << "<text x=\"" << w / 2
    << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" "
       "font-weight=\"bold\" fill=\"#222\">"
    << esc(shorten(clean, std::size_t(w / 8.5))) << "</text>\n";
}

void text(std::ostringstream& o, double x, double y, const std::string& valid, const char* anchor,
          const std::string& extra = "") {
  o << "<text x=\"" << px(x) << "\" y=\"" << px(y) << "\" text-anchor=\"" << anchor << "\""
    << (extra.empty() ? "" : " ") << extra << ">" << esc(valid) << "</text>\n";
}

struct LegendEntry {
  std::string name;  // valid UTF-8
  std::string color;
  bool line = true, marker = true, dashed = false;
};

double legend_width(const std::vector<LegendEntry>& entries) {
  double w = 0;
  for (const auto& e : entries) w = std::max(w, text_width(shorten(e.name, kLegendChars)));
  return entries.empty() ? 0.0 : w + 44;
}

void legend(std::ostringstream& o, const std::vector<LegendEntry>& entries, double x, double y,
            double max_height) {
  const std::size_t fit = std::max<std::size_t>(1, std::size_t(max_height / 18));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const double ey = y + double(i) * 18;
    if (i + 1 == fit && entries.size() > fit) {
      text(o, x, ey + 4, "+ " + std::to_string(entries.size() - i) + " more", "start",
           "fill=\"#555\"");
      break;
    }
    const auto& e = entries[i];
    if (e.line) {
      o << "<line x1=\"" << px(x) << "\" y1=\"" << px(ey) << "\" x2=\"" << px(x + 22) << "\" y2=\""
        << px(ey) << "\" stroke=\"" << esc(e.color) << "\" stroke-width=\"2.5\""
        << (e.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
    }
    if (e.marker) {
      o << "<circle cx=\"" << px(x + 11) << "\" cy=\"" << px(ey) << "\" r=\"4\" fill=\""
        << esc(e.color) << "\" stroke=\"#fff\" stroke-width=\"1\"/>\n";
    }
    if (!e.line && !e.marker) {
      o << "<rect x=\"" << px(x + 4) << "\" y=\"" << px(ey - 6) << "\" width=\"14\" height=\"12\" "
        << "fill=\"" << esc(e.color) << "\"/>\n";
    }
    o << "<text x=\"" << px(x + 30) << "\" y=\"" << px(ey + 4) << "\">"
      << "<title>" << esc(e.name) << "</title>" << esc(shorten(e.name, kLegendChars))
      << "</text>\n";
  }
}

}  // namespace

std::string render(const XYChart& c, bool standalone) {
  std::vector<double> xs, ys;
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) xs.push_back(x), ys.push_back(y);
  }
  const Range rx = make_range(c.x, xs), ry = make_range(c.y, ys);

  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    if (s.name.empty()) continue;
    entries.push_back({valid_utf8(s.name), s.color.empty() ? palette(i) : s.color,
                       s.mark != Mark::kPoints,
                       s.mark == Mark::kPoints || s.mark == Mark::kLinePoints, s.dashed});
  }
  double ytick_w = 0;
  for (double t : ry.ticks) ytick_w = std::max(ytick_w, text_width(tick_label(t)));
  const double W = c.width, H = c.height;
  const double left = 24 + ytick_w + 10, top = 40, bottom = 58;
  const double right = entries.empty() ? 24 : legend_width(entries) + 24;
  const double x0 = left, x1 = W - right, y0 = H - bottom, y1 = top;
  const Mapper mx{&rx, x0, x1}, my{&ry, y0, y1};

  std::ostringstream o;
  open_svg(o, c.width, c.height, c.title, standalone);
  // Grid and ticks.
  for (double t : rx.minor) {
    o << "<line x1=\"" << px(mx(t)) << "\" y1=\"" << px(y1) << "\" x2=\"" << px(mx(t)) << "\" y2=\""
      << px(y0) << "\" stroke=\"#f0f0f0\"/>\n";
  }
  for (double t : ry.minor) {
    o << "<line x1=\"" << px(x0) << "\" y1=\"" << px(my(t)) << "\" x2=\"" << px(x1) << "\" y2=\""
      << px(my(t)) << "\" stroke=\"#f0f0f0\"/>\n";
  }
  for (double t : rx.ticks) {
    const double x = mx(t);
    o << "<line x1=\"" << px(x) << "\" y1=\"" << px(y1) << "\" x2=\"" << px(x) << "\" y2=\""
      << px(y0 + 5) << "\" stroke=\"#dddddd\"/>\n";
    text(o, x, y0 + 19, tick_label(t), "middle", "fill=\"#333\"");
  }
  for (double t : ry.ticks) {
    const double y = my(t);
    o << "<line x1=\"" << px(x0 - 5) << "\" y1=\"" << px(y) << "\" x2=\"" << px(x1) << "\" y2=\""
      << px(y) << "\" stroke=\"#dddddd\"/>\n";
    text(o, x0 - 8, y + 4, tick_label(t), "end", "fill=\"#333\"");
  }
  o << "<rect x=\"" << px(x0) << "\" y=\"" << px(y1) << "\" width=\"" << px(x1 - x0)
    << "\" height=\"" << px(y0 - y1) << "\" fill=\"none\" stroke=\"#888\"/>\n";
  text(o, (x0 + x1) / 2, H - 14, valid_utf8(c.x.label), "middle", "font-size=\"13\"");
  const double ly = (y0 + y1) / 2;
  text(o, 16, ly, valid_utf8(c.y.label), "middle",
       "font-size=\"13\" transform=\"rotate(-90 16 " + px(ly) + ")\"");

  const std::string clip = escape_xml(c.id.empty() ? "chart" : c.id) + "-plot";
  o << "<clipPath id=\"" << clip << "\"><rect x=\"" << px(x0) << "\" y=\"" << px(y1)
    << "\" width=\"" << px(x1 - x0) << "\" height=\"" << px(y0 - y1) << "\"/></clipPath>\n";
  bool any = false;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    const std::string color = esc(valid_utf8(s.color.empty() ? palette(i) : s.color));
    std::vector<std::pair<double, double>> pts;
    for (const auto& p : s.points) {
      if (rx.usable(p.first) && ry.usable(p.second)) pts.push_back(p);
    }
    if (pts.empty()) continue;
    any = true;
    if (s.mark != Mark::kPoints) {
      std::stable_sort(pts.begin(), pts.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::string d;
      for (std::size_t k = 0; k < pts.size(); ++k) {
        const double x = mx(pts[k].first), y = my(pts[k].second);
        if (k == 0) {
          d += "M" + px(x) + " " + px(y);
        } else if (s.mark == Mark::kStep) {
          d += " H" + px(x) + " V" + px(y);
        } else {
          d += " L" + px(x) + " " + px(y);
        }
      }
      o << "<path d=\"" << d << "\" fill=\"none\" stroke=\"" << color
        << "\" stroke-width=\"2\" stroke-linejoin=\"round\" clip-path=\"url(#" << clip << ")\""
        << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
    }
    if (s.mark == Mark::kPoints || s.mark == Mark::kLinePoints) {
      const bool big = s.mark == Mark::kPoints;
      for (const auto& [x, y] : pts) {
        o << "<circle cx=\"" << px(mx(x)) << "\" cy=\"" << px(my(y)) << "\" r=\""
          << (big ? "5.5" : "3.5") << "\" fill=\"" << color
          << "\" stroke=\"#fff\" stroke-width=\"1\"><title>"
          << esc(valid_utf8(s.name) + ": " + format_value(x) + ", " + format_value(y))
          << "</title></circle>\n";
      }
    }
  }
  if (!any) text(o, (x0 + x1) / 2, (y0 + y1) / 2, "no data", "middle", "fill=\"#888\"");
  legend(o, entries, x1 + 16, y1 + 8, y0 - y1);
  o << "</svg>\n";
  return o.str();
}

std::string render(const BarChart& c, bool standalone) {
  const std::size_t n = c.categories.size(), ns = std::max<std::size_t>(1, c.series.size());
  const double base = c.baseline.value_or(0.0);
  std::vector<double> values{base};
  for (const auto& s : c.series) {
    for (const auto& v : s.values) {
      if (v && std::isfinite(*v)) values.push_back(*v);
    }
  }
  Axis va;
  va.label = c.value_label;
  va.max = c.value_max;
  const Range rv = make_range(va, values);
  std::vector<LegendEntry> entries;
  if (c.series.size() > 1) {
    for (std::size_t i = 0; i < c.series.size(); ++i) {
      const auto& s = c.series[i];
      entries.push_back(
          {valid_utf8(s.name), s.color.empty() ? palette(i) : s.color, false, false, false});
    }
  }
  std::vector<std::string> labels;
  double label_w = 0;
  for (const auto& cat : c.categories) {
    labels.push_back(shorten(valid_utf8(cat), kCategoryChars));
    label_w = std::max(label_w, text_width(labels.back()));
  }
  const auto color_of = [&](std::size_t i) {
    return esc(valid_utf8(c.series[i].color.empty() ? palette(i) : c.series[i].color));
  };
  const double W = c.width;
  // Horizontal bars print their values after the bar end: room for them before the legend.
  const double values_w = c.horizontal && !c.value_suffix.empty() ? 48 : 0;
  const double right = (entries.empty() ? 24 : legend_width(entries) + 24) + values_w;
  std::ostringstream o;

  if (c.horizontal) {
    const double group = double(ns) * 16 + 10;
    const double top = 40, bottom = 58, left = label_w + 20;
    const double H = top + bottom + std::max(1.0, double(n)) * group;
    const double x0 = left, x1 = W - right, y1 = top, y0 = H - bottom;
    const Mapper mv{&rv, x0, x1};
    open_svg(o, c.width, int(H), c.title, standalone);
    for (double t : rv.ticks) {
      const double x = mv(t);
      o << "<line x1=\"" << px(x) << "\" y1=\"" << px(y1) << "\" x2=\"" << px(x) << "\" y2=\""
        << px(y0 + 5) << "\" stroke=\"#dddddd\"/>\n";
      text(o, x, y0 + 19, tick_label(t), "middle", "fill=\"#333\"");
    }
    o << "<rect x=\"" << px(x0) << "\" y=\"" << px(y1) << "\" width=\"" << px(x1 - x0)
      << "\" height=\"" << px(y0 - y1) << "\" fill=\"none\" stroke=\"#888\"/>\n";
    for (std::size_t i = 0; i < n; ++i) {
      const double gy = y1 + double(i) * group;
      text(o, x0 - 8, gy + group / 2 + 4, labels[i], "end", "fill=\"#222\"");
      for (std::size_t j = 0; j < c.series.size(); ++j) {
        const auto& v = i < c.series[j].values.size() ? c.series[j].values[i] : std::nullopt;
        if (!v || !std::isfinite(*v)) continue;
        const double a = mv(base), b = mv(*v);
        const double by = gy + 5 + double(j) * 16;
        o << "<rect x=\"" << px(std::min(a, b)) << "\" y=\"" << px(by) << "\" width=\""
          << px(std::max(1.0, std::fabs(b - a))) << "\" height=\"13\" fill=\"" << color_of(j)
          << "\"><title>"
          << esc(valid_utf8(c.categories[i] + " / " + c.series[j].name) + ": " + format_value(*v))
          << "</title></rect>\n";
        if (!c.value_suffix.empty()) {
          text(o, std::max(a, b) + 5, by + 11, format_value(*v) + valid_utf8(c.value_suffix),
               "start", "font-size=\"11\" fill=\"#333\"");
        }
      }
    }
    o << "<line x1=\"" << px(mv(base)) << "\" y1=\"" << px(y1) << "\" x2=\"" << px(mv(base))
      << "\" y2=\"" << px(y0) << "\" stroke=\"#444\"/>\n";
    text(o, (x0 + x1) / 2, H - 14, valid_utf8(c.value_label), "middle", "font-size=\"13\"");
    if (n == 0) text(o, (x0 + x1) / 2, (y0 + y1) / 2, "no data", "middle", "fill=\"#888\"");
    legend(o, entries, x1 + values_w + 16, y1 + 8, y0 - y1);
    o << "</svg>\n";
    return o.str();
  }

  double vtick_w = 0;
  for (double t : rv.ticks) vtick_w = std::max(vtick_w, text_width(tick_label(t)));
  const double left = 24 + vtick_w + 10, top = 40;
  const double plot_w = W - left - right;
  const double group = plot_w / double(std::max<std::size_t>(1, n));
  // Long category names are slanted instead of overlapping their neighbours.
  const bool slant = label_w > group - 6;
  const double label_h = slant ? label_w * 0.6 + 10 : 18;
  const double bottom = label_h + (c.category_label.empty() ? 22 : 42);
  const double H = 280 + bottom;
  const double x0 = left, x1 = W - right, y1 = top, y0 = H - bottom;
  const Mapper mv{&rv, y0, y1};
  open_svg(o, c.width, int(H), c.title, standalone);
  for (double t : rv.ticks) {
    const double y = mv(t);
    o << "<line x1=\"" << px(x0 - 5) << "\" y1=\"" << px(y) << "\" x2=\"" << px(x1) << "\" y2=\""
      << px(y) << "\" stroke=\"#dddddd\"/>\n";
    text(o, x0 - 8, y + 4, tick_label(t), "end", "fill=\"#333\"");
  }
  o << "<rect x=\"" << px(x0) << "\" y=\"" << px(y1) << "\" width=\"" << px(x1 - x0)
    << "\" height=\"" << px(y0 - y1) << "\" fill=\"none\" stroke=\"#888\"/>\n";
  const double bar_w = group * 0.8 / double(ns);
  for (std::size_t i = 0; i < n; ++i) {
    const double gx = x0 + double(i) * group;
    const double cx = gx + group / 2;
    if (slant) {
      text(o, cx + 4, y0 + 14, labels[i], "end",
           "fill=\"#222\" transform=\"rotate(-35 " + px(cx + 4) + " " + px(y0 + 14) + ")\"");
    } else {
      text(o, cx, y0 + 17, labels[i], "middle", "fill=\"#222\"");
    }
    for (std::size_t j = 0; j < c.series.size(); ++j) {
      const auto& v = i < c.series[j].values.size() ? c.series[j].values[i] : std::nullopt;
      if (!v || !std::isfinite(*v)) continue;
      const double a = mv(base), b = mv(*v);
      const double bx = gx + group * 0.1 + double(j) * bar_w;
      o << "<rect x=\"" << px(bx) << "\" y=\"" << px(std::min(a, b)) << "\" width=\""
        << px(std::max(1.0, bar_w - 1)) << "\" height=\"" << px(std::max(1.0, std::fabs(b - a)))
        << "\" fill=\"" << color_of(j) << "\"><title>"
        << esc(valid_utf8(c.categories[i] + " / " + c.series[j].name) + ": " + format_value(*v))
        << "</title></rect>\n";
      if (!c.value_suffix.empty() && bar_w >= 26) {
        text(o, bx + bar_w / 2, std::min(a, b) - 4, format_value(*v) + valid_utf8(c.value_suffix),
             "middle", "font-size=\"10\" fill=\"#333\"");
      }
    }
  }
  o << "<line x1=\"" << px(x0) << "\" y1=\"" << px(mv(base)) << "\" x2=\"" << px(x1) << "\" y2=\""
    << px(mv(base)) << "\" stroke=\"#444\"/>\n";
  const double ly = (y0 + y1) / 2;
  text(o, 16, ly, valid_utf8(c.value_label), "middle",
       "font-size=\"13\" transform=\"rotate(-90 16 " + px(ly) + ")\"");
  if (!c.category_label.empty()) {
    text(o, (x0 + x1) / 2, H - 14, valid_utf8(c.category_label), "middle", "font-size=\"13\"");
  }
  if (n == 0) text(o, (x0 + x1) / 2, (y0 + y1) / 2, "no data", "middle", "fill=\"#888\"");
  legend(o, entries, x1 + 16, y1 + 8, y0 - y1);
  o << "</svg>\n";
  return o.str();
}

}  // namespace mmtune::svg
