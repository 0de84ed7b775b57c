// SearchSpace: the points the strategies search, found by value, and their neighbours.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "search/strategy.hpp"

namespace mmtune {
namespace {

TEST(SearchSpace, FindsPointsAndListsSortedValues) {
  const SearchSpace s({"X", "Y"}, {{4, 0}, {1, 0}, {2, 1}, {4, 1}});
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(s.dimensions(), 2u);
  EXPECT_EQ(s.values(0), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(s.values(1), (std::vector<int>{0, 1}));
  EXPECT_EQ(s.find(std::vector<int>{2, 1}), std::optional<std::size_t>(2));
  EXPECT_EQ(s.find(std::vector<int>{4, 0}), std::optional<std::size_t>(0));
  EXPECT_FALSE(s.find(std::vector<int>{2, 0}));
  EXPECT_FALSE(s.find(std::vector<int>{4}));
  EXPECT_FALSE(s.find(std::vector<int>{4, 0, 0}));
}

TEST(SearchSpace, NeighboursStepOneValueOfOneParameter) {
  // A 3x3 grid of (1|2|4) x (8|16|32) without (2, 16).
  std::vector<std::vector<int>> pts;
  for (int x : {1, 2, 4}) {
    for (int y : {8, 16, 32}) {
      if (x != 2 || y != 16) pts.push_back({x, y});
    }
  }
  const SearchSpace s({"X", "Y"}, pts);
  auto around = [&](int x, int y) {
    std::set<std::vector<int>> out;
    for (auto j : s.neighbours(*s.find(std::vector<int>{x, y}))) {
      out.emplace(s.point(j).begin(), s.point(j).end());
    }
    return out;
  };
  EXPECT_EQ(around(1, 8), (std::set<std::vector<int>>{{2, 8}, {1, 16}}));
  EXPECT_EQ(around(2, 8), (std::set<std::vector<int>>{{1, 8}, {4, 8}}));    // (2, 16) is missing
  EXPECT_EQ(around(4, 16), (std::set<std::vector<int>>{{4, 8}, {4, 32}}));  // no jump to (1, 16)
  EXPECT_EQ(around(2, 32), (std::set<std::vector<int>>{{1, 32}, {4, 32}}));
}

TEST(SearchSpace, RejectsMalformedPoints) {
  EXPECT_THROW(SearchSpace({"X"}, {{1}, {1}}), std::invalid_argument);
  EXPECT_THROW(SearchSpace({"X", "Y"}, {{1, 2}, {3}}), std::invalid_argument);
  EXPECT_EQ(SearchSpace({"X"}, {}).size(), 0u);
}

TEST(SearchSpace, EndToEndValuesAreTheSameSpace) {
  const std::vector<std::vector<int>> points = {{4, 0}, {1, 0}, {2, 1}, {4, 1}};
  const SearchSpace a({"X", "Y"}, points);
  const SearchSpace b = SearchSpace::end_to_end({"X", "Y"}, {4, 0, 1, 0, 2, 1, 4, 1});
  ASSERT_EQ(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(std::ranges::equal(a.point(i), b.point(i)));
    EXPECT_EQ(b.find(points[i]), i);
    EXPECT_EQ(a.neighbours(i), b.neighbours(i));
  }
  EXPECT_EQ(b.values(0), (std::vector<int>{1, 2, 4}));
  EXPECT_FALSE(b.find(std::vector<int>{2, 0}));
  EXPECT_THROW(SearchSpace::end_to_end({"X", "Y"}, {4, 0, 1}), std::invalid_argument);
  EXPECT_THROW(SearchSpace::end_to_end({"X", "Y"}, {4, 0, 4, 0}), std::invalid_argument);
}

TEST(SearchSpace, FindsEveryPointOfALargeSpace) {
  // 1,500,000 points of a 100 x 100 x 100 x 2 grid (x even, or y + z + w even): each found at
  // its index, the rest not found.
  std::vector<int> values;
  for (int x = 0; x < 100; ++x) {
    for (int y = 0; y < 100; ++y) {
      for (int z = 0; z < 100; ++z) {
        for (int w = 0; w < 2; ++w) {
          if (x % 2 == 0 || (y + z + w) % 2 == 0) values.insert(values.end(), {x, -y, z * 7, w});
        }
      }
    }
  }
  const SearchSpace s = SearchSpace::end_to_end({"X", "Y", "Z", "W"}, std::move(values));
  EXPECT_EQ(s.size(), 1'500'000u);
  std::size_t found = 0;
  for (int x = 0; x < 100; ++x) {
    for (int y = 0; y < 100; ++y) {
      for (int z = 0; z < 100; ++z) {
        for (int w = 0; w < 2; ++w) {
          const auto i = s.find(std::vector<int>{x, -y, z * 7, w});
          const bool member = x % 2 == 0 || (y + z + w) % 2 == 0;
          ASSERT_EQ(bool(i), member) << x << " " << y << " " << z << " " << w;
          if (i) {
            ASSERT_TRUE(std::ranges::equal(s.point(*i), std::vector<int>{x, -y, z * 7, w}));
            ++found;
          }
        }
      }
    }
  }
  EXPECT_EQ(found, s.size());
  EXPECT_EQ(s.values(2).size(), 100u);
}

}  // namespace
}  // namespace mmtune
