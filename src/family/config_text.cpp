#include "family/config_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

namespace mmtune {
namespace {

// An integer's text as its sign and digits without leading zeros ("-007" -> {true, "7"}), or
// nothing where the text is no integer.
std::optional<std::pair<bool, std::string_view>> integer_digits(std::string_view t) {
  const bool negative = !t.empty() && t.front() == '-';
  if (negative) t.remove_prefix(1);
  if (t.empty() || t.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  t.remove_prefix(std::min(t.find_first_not_of('0'), t.size() - 1));  // "000" -> "0"
  return std::pair{negative && t != "0", t};
}

// -1, 0 or 1 by value where both texts are integers (of any length); 0 otherwise.
int compare_integers(std::string_view a, std::string_view b) {
  const auto x = integer_digits(a), y = integer_digits(b);
  if (!x || !y) return 0;
  if (x->first != y->first) return x->first ? -1 : 1;
  const int c = x->second.size() != y->second.size()
                    ? (x->second.size() < y->second.size() ? -1 : 1)
                    : (x->second < y->second   ? -1
                       : x->second > y->second ? 1
                                               : 0);
  return x->first ? -c : c;
}

// The text as a number (integers of any length too), or nothing: it is a word.
std::optional<double> whole_number(std::string_view text) {
  double x = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(x)) {
    // An integer beyond a double's range (400 digits) is a number all the same: ranked by its
    // digits (compare_integers), as the largest double against decimals.
    if (integer_digits(text)) return text.front() == '-' ? -HUGE_VAL : HUGE_VAL;
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

std::vector<ConfigItem> config_items(std::string_view text) {
  std::vector<ConfigItem> out;
  for (const auto item : items(text)) {
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      out.push_back({std::string(item), std::nullopt});
    } else {
      out.push_back({std::string(item.substr(0, eq)), std::string(item.substr(eq + 1))});
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> config_pairs(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& item : config_items(text)) {
    if (item.value) out.emplace_back(std::move(item.name), std::move(*item.value));
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
  if (x) {
    // Integers beyond a double's 53 bits exactly, by their digits.
    if (const auto c = compare_integers(a, b); c != 0) return c < 0;
    if (*x != *y) return *x < *y;
  }
  // Equal numbers ("2" and "2.0") keep a strict order by their text.
  return a < b;
}

}  // namespace mmtune
