// SearchSpace: the points' values end to end, found by an open-addressing hash of indices.
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "search/strategy.hpp"

namespace mmtune {
namespace {

std::uint64_t hash_of(std::span<const int> point) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (const int v : point) {  // a multiply-xorshift round per value (MurmurHash3's finaliser)
    h ^= std::uint32_t(v);
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
  }
  return h;
}

}  // namespace

SearchSpace::SearchSpace(std::vector<std::string> names,
                         const std::vector<std::vector<int>>& points)
    : names_(std::move(names)), size_(points.size()) {
  values_flat_.reserve(points.size() * names_.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].size() != names_.size()) {
      throw std::invalid_argument("search space point " + std::to_string(i) + " has " +
                                  std::to_string(points[i].size()) + " values for " +
                                  std::to_string(names_.size()) + " parameters");
    }
    values_flat_.insert(values_flat_.end(), points[i].begin(), points[i].end());
  }
  build_index();
}

SearchSpace SearchSpace::end_to_end(std::vector<std::string> names, std::vector<int> values) {
  if (names.empty() ? !values.empty() : values.size() % names.size() != 0) {
    throw std::invalid_argument("search space: " + std::to_string(values.size()) +
                                " values are not whole points of " + std::to_string(names.size()) +
                                " parameters");
  }
  SearchSpace s;
  s.size_ = names.empty() ? 0 : values.size() / names.size();
  s.names_ = std::move(names);
  s.values_flat_ = std::move(values);
  s.build_index();
  return s;
}

void SearchSpace::build_index() {
  // Slots hold index + 1 in 32 bits; at most half of them are used, so probes stay short.
  if (size_ >= std::numeric_limits<std::uint32_t>::max() / 2) {
    throw std::invalid_argument("search space of " + std::to_string(size_) +
                                " points: at most 2^31 - 2 are supported");
  }
  std::size_t slots = 2;
  while (slots < 2 * size_) slots *= 2;
  slots_.assign(slots, 0);
  values_.assign(names_.size(), {});
  for (std::size_t i = 0; i < size_; ++i) {
    const auto p = point(i);
    // Value sets are small, so a sorted insert beats collecting and sorting every value.
    for (std::size_t d = 0; d < p.size(); ++d) {
      auto& v = values_[d];
      const auto it = std::lower_bound(v.begin(), v.end(), p[d]);
      if (it == v.end() || *it != p[d]) v.insert(it, p[d]);
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = hash_of(p) & mask;; s = (s + 1) & mask) {
      if (slots_[s] == 0) {
        slots_[s] = std::uint32_t(i + 1);
        break;
      }
      if (std::ranges::equal(point(slots_[s] - 1), p)) {
        throw std::invalid_argument("search space point " + std::to_string(i) + " is a duplicate");
      }
    }
  }
}

std::optional<std::size_t> SearchSpace::find(std::span<const int> p) const {
  if (p.size() != names_.size()) return std::nullopt;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t s = hash_of(p) & mask; slots_[s] != 0; s = (s + 1) & mask) {
    if (std::ranges::equal(point(slots_[s] - 1), p)) return slots_[s] - 1;
  }
  return std::nullopt;
}

std::vector<std::size_t> SearchSpace::neighbours(std::size_t i) const {
  std::vector<std::size_t> out;
  const auto own_point = point(i);
  std::vector<int> q(own_point.begin(), own_point.end());
  for (std::size_t d = 0; d < q.size(); ++d) {
    const auto& v = values_[d];
    const auto r = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), q[d]) - v.begin());
    const int own = q[d];
    if (r > 0) {
      q[d] = v[r - 1];
      if (const auto j = find(q)) out.push_back(*j);
    }
    if (r + 1 < v.size()) {
      q[d] = v[r + 1];
      if (const auto j = find(q)) out.push_back(*j);
    }
    q[d] = own;
  }
  return out;
}

}  // namespace mmtune
