// One reading of a configuration's text for the store, the exchange formats, replay and report.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "family/config_text.hpp"

namespace mmtune {
namespace {

TEST(ConfigText, ValuesRankNumbersByValueThenWords) {
  std::vector<std::string> v = {"x", "16.0", "99999999999999999999", "2", "-3", "2.0", "0.5", "a1"};
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return value_rank_less(a, b); });
  const std::vector<std::string> want = {"-3", "0.5", "2", "2.0", "16.0", "99999999999999999999",
                                         "a1", "x"};
  EXPECT_EQ(v, want);
  // Integers beyond a double's precision or range, exactly by their digits.
  EXPECT_TRUE(value_rank_less("9999999999999999999", "10000000000000000001"));
  EXPECT_FALSE(value_rank_less("10000000000000000001", "9999999999999999999"));
  EXPECT_TRUE(value_rank_less("-10000000000000000001", "-9999999999999999999"));
  const std::string huge(400, '9');
  EXPECT_TRUE(value_rank_less("7", huge));
  EXPECT_TRUE(value_rank_less("1.5", huge));
  EXPECT_TRUE(value_rank_less(huge, "1" + huge));
  EXPECT_TRUE(value_rank_less("-" + huge, "-1.5"));
  EXPECT_TRUE(value_rank_less(huge, "x"));
  EXPECT_TRUE(value_rank_less("7", "007") != value_rank_less("007", "7"));  // strict
}

TEST(ConfigText, IntegerConfigurationsAreWholeNameIntegerPairs) {
  const auto pairs = int_config(" MWG=64\tNWG=-2  KWG=8 ");
  ASSERT_TRUE(pairs);
  const std::vector<std::pair<std::string, int>> want = {{"MWG", 64}, {"NWG", -2}, {"KWG", 8}};
  EXPECT_EQ(*pairs, want);
  EXPECT_TRUE(int_config("") && int_config("")->empty());
  for (const char* bad : {"MWG", "MWG=", "MWG=6x", "MWG=1.5", "MWG=2147483648", "A=1 B"}) {
    EXPECT_FALSE(int_config(bad)) << bad;
  }
  EXPECT_EQ(whole_int("-2147483648"), -2147483648LL);
  EXPECT_FALSE(whole_int("+1"));
}

TEST(ConfigText, PairsKeepWordsAndSkipItemsWithoutAValue) {
  const std::vector<std::pair<std::string, std::string>> want = {{"a", "1"}, {"b", "x.y"}};
  EXPECT_EQ(config_pairs("a=1  junk\tb=x.y"), want);
}

}  // namespace
}  // namespace mmtune
