#include "core/precision.hpp"

#include <bit>
#include <cmath>

namespace mmtune {

std::uint16_t to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u)
    return static_cast<std::uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (abs < 0x38800000u) {                                         // subnormal half (or zero)
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // * 2^24
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(scaled)));
  }
  const std::uint32_t mant = abs & 0x7fffffu;
  std::uint32_t h = ((abs >> 23) - 112) << 10 | (mant >> 13);
  const std::uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // round to nearest even
  return static_cast<std::uint16_t>(sign | h);
}

float from_half(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu;
  const std::uint32_t m = h & 0x3ffu;
  if (e == 0) {
    const float v = static_cast<float>(m) / 16777216.0f;
    return sign ? -v : v;
  }
  if (e == 31) return std::bit_cast<float>(sign | 0x7f800000u | (m << 13));
  return std::bit_cast<float>(sign | ((e + 112) << 23) | (m << 13));
}

double round_to(double v, Precision p) {
  switch (p) {
    case Precision::kHalf:
      return from_half(to_half(static_cast<float>(v)));
    case Precision::kSingle:
      return static_cast<float>(v);
    case Precision::kDouble:
      return v;
  }
  return v;
}

}  // namespace mmtune
