// Helpers shared by the strategies: portable seeded sampling and the set of proposed points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "search/strategy.hpp"

namespace mmtune::strategies {

using Rng = std::mt19937_64;

// Uniform in [0, n), n > 0. The standard distributions are implementation-defined; these keep a
// seed's sequence the same with every standard library.
inline std::size_t uniform_index(Rng& rng, std::size_t n) {
  const std::uint64_t range = n;
  const std::uint64_t biased = (0 - range) % range;  // 2^64 mod range: the uneven low tail
  std::uint64_t r = rng();
  while (r < biased) r = rng();
  return static_cast<std::size_t>(r % range);
}

// Uniform in [0, 1).
inline double uniform_real(Rng& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// The points a strategy has proposed; no strategy proposes a point twice.
class Proposed {
 public:
  explicit Proposed(std::size_t size) : seen_(size, 0) {}

  std::size_t size() const { return seen_.size(); }  // the space's points
  std::size_t count() const { return count_; }
  std::size_t remaining() const { return seen_.size() - count_; }
  bool contains(std::size_t i) const { return seen_[i] != 0; }
  void add(std::size_t i) {
    if (!seen_[i]) ++count_;
    seen_[i] = 1;
  }

  // A uniformly random point not proposed yet; nothing when every point was.
  std::optional<std::size_t> random_unvisited(Rng& rng) const {
    const std::size_t left = remaining();
    if (left == 0) return std::nullopt;
    // Rejection costs at most two draws on average while half the points are left; past that,
    // counting to the k-th unvisited point keeps the cost bounded.
    if (left * 2 >= seen_.size()) {
      for (;;) {
        const std::size_t i = uniform_index(rng, seen_.size());
        if (!seen_[i]) return i;
      }
    }
    std::size_t k = uniform_index(rng, left);
    for (std::size_t i = 0; i < seen_.size(); ++i) {
      if (!seen_[i] && k-- == 0) return i;
    }
    return std::nullopt;  // unreachable: `left` points are unvisited
  }

  // The neighbours of point i (see SearchSpace::neighbours) not proposed yet.
  std::vector<std::size_t> unvisited_neighbours(const SearchSpace& space, std::size_t i) const {
    std::vector<std::size_t> out = space.neighbours(i);
    std::erase_if(out, [&](std::size_t j) { return contains(j); });
    return out;
  }

 private:
  std::vector<char> seen_;
  std::size_t count_ = 0;
};

}  // namespace mmtune::strategies
