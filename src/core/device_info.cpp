#include "mmtune/device_info.hpp"

#include <algorithm>
#include <cstdio>

namespace mmtune {

bool DeviceInfo::supports(Precision p) const {
  switch (p) {
    case Precision::kSingle:
      return true;
    case Precision::kDouble:
      return fp64;
    case Precision::kHalf:
      return fp16;
  }
  return false;
}

double DeviceInfo::capability() const {
  return double(compute_units) * double(max_clock_mhz) * double(std::max(1u, preferred.float_));
}

unsigned DeviceInfo::preferred_width(Precision p) const {
  switch (p) {
    case Precision::kSingle:
      return preferred.float_;
    case Precision::kDouble:
      return preferred.double_;
    case Precision::kHalf:
      return preferred.half;
  }
  return 1;
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::kHalf:
      return "16";
    case Precision::kSingle:
      return "32";
    case Precision::kDouble:
      return "64";
  }
  return "?";
}

std::string device_key(const std::string& vendor, const std::string& name,
                       const std::string& driver_version) {
  // The unit separator keeps ("ab", "c") and ("a", "bc") apart.
  return content_hash(vendor + '\x1f' + name + '\x1f' + driver_version);
}

}  // namespace mmtune
