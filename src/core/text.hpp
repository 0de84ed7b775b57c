// Text from outside (drivers, file names, argv) made safe to store and to write as JSON or XML.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mmtune {

// Valid UTF-8: a byte that starts no well-formed sequence, a surrogate, a C1 control or a
// non-character becomes U+FFFD, and an ASCII control character a space (tab and newline are
// kept when `keep_lines`). JSON writers refuse invalid UTF-8, XML 1.0 refuses control characters,
// and a terminal obeys escape sequences.
std::string valid_utf8(std::string_view in, bool keep_lines = true);

// The longest command line a session records (and an import takes).
inline constexpr std::size_t kMaxCommandLineBytes = 16384;
// `in` as valid UTF-8 on one line of at most `max_bytes` (>= 3), cut between characters and
// ended with "…" where it was longer.
std::string single_line(std::string_view in, std::size_t max_bytes);

// A rate (GFLOPS, GB/s) as printed: one decimal from 100 up, three significant digits below (a
// slow device's 0.0422 GFLOPS read as 0.0).
std::string rate_text(double v);

}  // namespace mmtune
