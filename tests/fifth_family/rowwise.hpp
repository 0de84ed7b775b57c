// A fifth kernel family that exists only in the tests: it shows that a family plugs into the
// engine (tune, store, lookup, simulate, the worker) through KernelFamily and a FamilyRegistry,
// without a line of the engine knowing it.
#pragma once

#include "mmtune/gemm_kernels.hpp"

namespace mmtune::test {

// gemm_rowwise: each work-item computes WPT consecutive rows of one column of C, work-groups of
// WGM x 1 work-items.
struct RowwiseConfig {
  int WPT = 2, WGM = 8;
  auto operator<=>(const RowwiseConfig&) const = default;
};

KernelKind rowwise_kind();
const ParamSpace<RowwiseConfig>& rowwise_space();

// The built-in families and the rowwise one.
const FamilyRegistry& families_with_rowwise();

}  // namespace mmtune::test

template <>
struct mmtune::ConfigTraits<mmtune::test::RowwiseConfig> {
  static KernelKind kind() { return test::rowwise_kind(); }
  static const ParamSpace<test::RowwiseConfig>& space() { return test::rowwise_space(); }
};
