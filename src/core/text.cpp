#include "core/text.hpp"

#include <cstdio>

#include <cstddef>
#include <cstdint>

namespace mmtune {

std::string valid_utf8(std::string_view in, bool keep_lines) {
  static const char* const kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(in.size());
  const auto* s = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t n = in.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned c = s[i];
    if (c < 0x80) {
      const bool line = keep_lines && (c == '\t' || c == '\n');
      out += (c < 0x20 && !line) || c == 0x7f ? ' ' : char(c);
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

std::string single_line(std::string_view in, std::size_t max_bytes) {
  std::string s = valid_utf8(in, /*keep_lines=*/false);
  if (s.size() <= max_bytes) return s;
  const std::string_view ellipsis = "\xE2\x80\xA6";
  std::size_t cut = max_bytes - ellipsis.size();
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;  // whole characters
  s.resize(cut);
  return s.append(ellipsis);
}

std::string rate_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.1f" : "%.3g", v);
  return buf;
}

}  // namespace mmtune
