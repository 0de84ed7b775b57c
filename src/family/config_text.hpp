// A configuration's text, "NAME=VALUE NAME=VALUE", as the store, the exchange formats and the
// report read it: one reading of its pairs, of an integer value and of how values are ordered.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mmtune {

// One item of a configuration's text: "a=1" -> {a, 1}; an item without '=' is all name, no value.
struct ConfigItem {
  std::string name;
  std::optional<std::string> value;
};

// Every item of the text, in order, split at white space (for readers that refuse a bad item).
std::vector<ConfigItem> config_items(std::string_view text);

// "a=1 b=x" -> {{a, 1}, {b, x}}, in order, split at white space; items without '=' are
// skipped.
std::vector<std::pair<std::string, std::string>> config_pairs(std::string_view text);

// Every item of the text as NAME=INTEGER (32-bit), in order, or nothing where one is not.
std::optional<std::vector<std::pair<std::string, int>>> int_config(std::string_view text);

// The whole text as a 32-bit integer ("12", "-3"), or nothing ("", "1.5", "12x", 2^31).
std::optional<int> whole_int(std::string_view text);

// The order of a parameter's values: numbers first, by value (decimals too: 2.0 < 16.0;
// integers of any length exactly, by their digits), then words in text order.
bool value_rank_less(std::string_view a, std::string_view b);

}  // namespace mmtune
