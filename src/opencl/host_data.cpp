#include "opencl/host_data.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

namespace mmtune {

std::vector<unsigned char> to_bytes(const std::vector<double>& v, Precision p) {
  std::vector<unsigned char> out(v.size() * (static_cast<std::size_t>(p) / 8));
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (p) {
      case Precision::kHalf: {
        const std::uint16_t h = to_half(static_cast<float>(v[i]));
        std::memcpy(out.data() + 2 * i, &h, 2);
        break;
      }
      case Precision::kSingle: {
        const float f = static_cast<float>(v[i]);
        std::memcpy(out.data() + 4 * i, &f, 4);
        break;
      }
      case Precision::kDouble:
        std::memcpy(out.data() + 8 * i, &v[i], 8);
        break;
    }
  }
  return out;
}

std::vector<double> from_bytes(const std::vector<unsigned char>& bytes, Precision p) {
  std::vector<double> out;
  from_bytes(bytes, p, out);
  return out;
}

void from_bytes(const std::vector<unsigned char>& bytes, Precision p, std::vector<double>& out) {
  const std::size_t es = static_cast<std::size_t>(p) / 8;
  out.resize(bytes.size() / es);
  for (std::size_t i = 0; i < out.size(); ++i) {
    switch (p) {
      case Precision::kHalf: {
        std::uint16_t h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        out[i] = from_half(h);
        break;
      }
      case Precision::kSingle: {
        float f;
        std::memcpy(&f, bytes.data() + 4 * i, 4);
        out[i] = f;
        break;
      }
      case Precision::kDouble:
        std::memcpy(&out[i], bytes.data() + 8 * i, 8);
        break;
    }
  }
}

namespace {

// splitmix64's finalizer: a well-mixed 64-bit value of (stream, index), so that element i has
// the same value however the filling is split over threads.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// n values uniform in [-1, 1) of stream `stream`, rounded to the precision (so within [-1, 1]).
// Large operands fill on every core: at 4096^3 the standard generator took 2.1 s of each worker
// start.
std::vector<double> uniform_values(std::size_t n, std::uint64_t stream, Precision p) {
  std::vector<double> v(n);
  const auto fill = [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) {
      const std::uint64_t bits = mix(stream + 0x9e3779b97f4a7c15ull * (i + 1));
      v[i] = round_to(double(bits >> 11) * 0x1p-52 - 1.0, p);
    }
  };
  const std::size_t threads =
      n < (std::size_t(1) << 20) ? 1 : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back(fill, n * t / threads, n * (t + 1) / threads);
  fill(0, n / threads);
  for (auto& t : pool) t.join();
  return v;
}

}  // namespace

Operands random_operands(const GemmProblem& p, std::uint64_t seed, bool nan_c) {
  // A batch's matrices follow each other at their strides.
  const auto elements = [&](std::size_t stride, std::size_t one) {
    return p.batch > 1 ? (p.batch - 1) * stride + one : one;
  };
  const auto stream = [&](std::uint64_t operand) { return mix(seed * 3 + operand); };
  Operands o{uniform_values(elements(p.stride_a_or_min(), p.a_elements()), stream(0), p.precision),
             uniform_values(elements(p.stride_b_or_min(), p.b_elements()), stream(1), p.precision),
             uniform_values(elements(p.stride_c_or_min(), p.c_elements()), stream(2), p.precision)};
  if (nan_c) std::fill(o.c.begin(), o.c.end(), std::numeric_limits<double>::quiet_NaN());
  return o;
}

}  // namespace mmtune
