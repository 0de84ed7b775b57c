#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "report/svg_chart.hpp"
#include "report/svg_text.hpp"

namespace mmtune::svg {

std::size_t code_points(std::string_view s) {
  return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xc0) != 0x80; }));
}

// At most `max` code points of valid UTF-8, with an ellipsis when shortened.
std::string shorten(const std::string& valid, std::size_t max) {
  if (code_points(valid) <= max) return valid;
  std::size_t count = 0, i = 0;
  for (; i < valid.size(); ++i) {
    if ((valid[i] & 0xc0) != 0x80 && ++count > max - 1) break;
  }
  return valid.substr(0, i) + "\xE2\x80\xA6";
}

double text_width(const std::string& s, double char_width) {
  return double(code_points(s)) * char_width;
}

std::string esc(const std::string& valid) {
  std::string out;
  out.reserve(valid.size());
  for (char c : valid) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_value(double v) {
  char buf[48];
  // From where four digits round to 10000 ("%.4g" would print 1e+04).
  if (std::fabs(v) >= 9999.5) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", v);
  }
  return buf;
}

const std::string& palette(std::size_t i) {
  // Tableau 10: distinguishable, also in greyscale print and for common colour blindness.
  static const std::array<std::string, 10> kColors = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                                      "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                                                      "#9c755f", "#bab0ac"};
  return kColors[i % kColors.size()];
}

std::string escape_xml(std::string_view s) {
  return esc(valid_utf8(s));
}

std::string tick_label(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  char buf[48];
  if (a >= 1e9) {
    std::snprintf(buf, sizeof buf, "%gG", v / 1e9);
  } else if (a >= 1e6) {
    std::snprintf(buf, sizeof buf, "%gM", v / 1e6);
  } else if (a >= 1000) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", v);
  }
  return buf;
}

}  // namespace mmtune::svg
