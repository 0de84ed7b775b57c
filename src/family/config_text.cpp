#include "family/config_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace mmtune {
namespace {

std::optional<double> whole_number(std::string_view text) {
  double x = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  // An integer beyond a double's range (a word of 400 digits) is ranked as a word.
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(x)) {
    return std::nullopt;
  }
  return x;
}

// The text's items, split at white space.
std::vector<std::string_view> items(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  std::vector<std::string_view> out;
  for (std::size_t pos = text.find_first_not_of(kSpace); pos != std::string_view::npos;
       pos = text.find_first_not_of(kSpace, pos)) {
    const std::size_t end = std::min(text.find_first_of(kSpace, pos), text.size());
    out.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> config_pairs(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto item : items(text)) {
    if (const auto eq = item.find('='); eq != std::string_view::npos) {
      out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
  }
  return out;
}

std::optional<std::vector<std::pair<std::string, int>>> int_config(std::string_view text) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto item : items(text)) {
    const auto eq = item.find('=');
    const auto v = eq == std::string_view::npos ? std::nullopt : whole_int(item.substr(eq + 1));
    if (!v) return std::nullopt;
    out.emplace_back(item.substr(0, eq), *v);
  }
  return out;
}

std::optional<int> whole_int(std::string_view text) {
  int v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

bool value_rank_less(std::string_view a, std::string_view b) {
  const auto x = whole_number(a), y = whole_number(b);
  if (x.has_value() != y.has_value()) return x.has_value();
  // Equal numbers ("2" and "2.0") keep a strict order by their text.
  if (x && *x != *y) return *x < *y;
  return a < b;
}

}  // namespace mmtune
