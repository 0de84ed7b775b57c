#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "report/svg_chart.hpp"
#include "report/svg_text.hpp"

namespace mmtune::svg {

// Valid UTF-8 with control characters (except tab and newline) and non-characters replaced:
// XML 1.0 rejects them, and device names come from drivers and files.
std::string sanitize_utf8(std::string_view in) {
  static const char* const kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(in.size());
  const auto* s = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t n = in.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned c = s[i];
    if (c < 0x80) {
      out += (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f ? ' ' : char(c);
      ++i;
      continue;
    }
    int len = 0;
    std::uint32_t cp = 0, min = 0;
    if ((c & 0xe0) == 0xc0) {
      len = 2, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4, cp = c & 0x07, min = 0x10000;
    }
    bool ok = len > 0 && i + std::size_t(len) <= n;
    for (int k = 1; ok && k < len; ++k) {
      if ((s[i + k] & 0xc0) != 0x80) ok = false;
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    ok = ok && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) &&
         !(cp >= 0x80 && cp <= 0x9f) && cp != 0xfffe && cp != 0xffff;
    if (ok) {
      out.append(in.substr(i, std::size_t(len)));
      i += std::size_t(len);
    } else {
      out += kReplacement;
      ++i;
    }
  }
  return out;
}

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
  if (std::fabs(v) >= 1e4) {
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
  return esc(sanitize_utf8(s));
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
