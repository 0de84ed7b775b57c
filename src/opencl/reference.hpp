// The CPU reference GEMM (double accumulation) and the tolerance check every result must pass.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mmtune/problem.hpp"
#include "opencl/host_data.hpp"

namespace mmtune {

struct Reference {
  std::vector<double> c;      // the expected C buffer (elements outside m x n unchanged)
  std::vector<double> bound;  // per element of C: |alpha| sum |a||b| + |beta||c|, for tolerances
};

Reference reference_gemm(const GemmProblem& p, const Operands& in);

struct Verdict {
  bool ok = true;
  double max_error = 0.0;      // largest |got - expected|
  double max_tol_ratio = 0.0;  // largest |got - expected| / tolerance (must stay <= 1)
  std::string message;         // first mismatch, when !ok
};

// Each element of m x n must lie within (k + 2) * eps * 2 * bound of the reference; elements
// outside (leading-dimension gaps) must be bit-for-bit unchanged; NaN never passes.
Verdict verify(const GemmProblem& p, const Reference& ref, const std::vector<double>& got,
               const std::vector<double>& original_c);

}  // namespace mmtune
