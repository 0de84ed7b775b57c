// Host-side matrices: values are held as doubles and converted to the device's precision when
// uploaded, so one reference serves every precision.
#pragma once

#include <cstdint>
#include <vector>

#include "core/precision.hpp"
#include "mmtune/device.hpp"
#include "mmtune/problem.hpp"

namespace mmtune {

std::vector<unsigned char> to_bytes(const std::vector<double>& v, Precision p);
std::vector<double> from_bytes(const std::vector<unsigned char>& bytes, Precision p);
// The same into `out`, whose memory is reused where it is large enough.
void from_bytes(const std::vector<unsigned char>& bytes, Precision p, std::vector<double>& out);

struct Operands {
  // Buffers as stored: a_elements(), b_elements(), c_elements(); a batch's items at their
  // strides, each item's elements after the last one.
  std::vector<double> a, b, c;
};

// Seeded uniform values in [-1, 1], already rounded to the precision; element i of a buffer has
// the same value whatever the buffer's size. With `nan_c`, C is filled with NaN (for beta = 0,
// where BLAS must not read C).
Operands random_operands(const GemmProblem& p, std::uint64_t seed, bool nan_c = false);

}  // namespace mmtune
