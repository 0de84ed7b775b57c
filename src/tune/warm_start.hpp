// The warm start's exploratory part: one measurement per code path of a kernel, whatever the
// device, before a strategy decides where to look.
#pragma once

#include <cstddef>
#include <vector>

namespace mmtune {

// For each parameter that takes exactly two values among `points`, or the modes 0, 1, ..., v-1
// (the switches of a kernel's code paths, such as SA, SB, IMG, PACK), and each of its values
// other than base's, the index of the point nearest to `base` (fewest differing parameters; the
// first of equals) that takes that value. Rare paths (IMG=1 is under
// 2 % of the tiled space) would otherwise go unmeasured by a search that starts from random
// samples; which path is fast differs by implementation. Sorted, without repeats.
std::vector<std::size_t> switch_variants(const std::vector<std::vector<int>>& points,
                                         const std::vector<int>& base);

}  // namespace mmtune
