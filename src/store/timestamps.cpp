// Times as the store writes and compares them (declared in store.hpp): UTC, ISO 8601, to the
// second, so that their text sorts as the times do.
#include <ctime>
#include <optional>
#include <string>

#include "store/store.hpp"

namespace mmtune {

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<std::time_t> parse_utc(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (!end || *end) return std::nullopt;
  // Only the form now_utc() writes: times are compared as text ("2024-5-1..." sorts after
  // "2024-12-..."), and a day past the month's end would be normalised.
  const std::time_t t = timegm(&tm);
  std::tm back{};
  char buf[32];
  if (!gmtime_r(&t, &back) || std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &back) == 0 ||
      text != buf) {
    return std::nullopt;
  }
  return t;
}

}  // namespace mmtune
