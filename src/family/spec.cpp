#include "family/spec.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>

#include "family/config_text.hpp"
#include "mmtune/error.hpp"

namespace mmtune {

std::size_t type_bytes(SpecType t) {
  switch (t) {
    case SpecType::kChar:
    case SpecType::kUchar:
      return 1;
    case SpecType::kShort:
    case SpecType::kUshort:
      return 2;
    case SpecType::kInt:
    case SpecType::kUint:
    case SpecType::kFloat:
      return 4;
    case SpecType::kLong:
    case SpecType::kUlong:
    case SpecType::kDouble:
      return 8;
  }
  return 0;
}

const char* to_string(SpecType t) {
  switch (t) {
    case SpecType::kChar:
      return "char";
    case SpecType::kUchar:
      return "uchar";
    case SpecType::kShort:
      return "short";
    case SpecType::kUshort:
      return "ushort";
    case SpecType::kInt:
      return "int";
    case SpecType::kUint:
      return "uint";
    case SpecType::kLong:
      return "long";
    case SpecType::kUlong:
      return "ulong";
    case SpecType::kFloat:
      return "float";
    case SpecType::kDouble:
      return "double";
  }
  return "?";
}

std::string unrepresentable(SpecType t, double v, bool computed) {
  const auto range = [&](double lo, double hi) -> std::string {
    if (v != std::floor(v))
      return "is not a whole number, as " + std::string(to_string(t)) + " needs";
    if (v < lo || v > hi) return "is outside " + std::string(to_string(t)) + "'s range";
    return "";
  };
  std::string why;
  switch (t) {
    case SpecType::kChar:
      why = range(-128, 127);
      break;
    case SpecType::kUchar:
      why = range(0, 255);
      break;
    case SpecType::kShort:
      why = range(-32768, 32767);
      break;
    case SpecType::kUshort:
      why = range(0, 65535);
      break;
    case SpecType::kInt:
      why = range(-2147483648.0, 2147483647.0);
      break;
    case SpecType::kUint:
      why = range(0, 4294967295.0);
      break;
    case SpecType::kLong:  // doubles near 2^63 are 2^10 apart: the largest below 2^63 fits
      why = range(-0x1p63, std::nextafter(0x1p63, 0.0));
      break;
    case SpecType::kUlong:
      why = range(0, std::nextafter(0x1p64, 0.0));
      break;
    case SpecType::kFloat:
      if (!(std::fabs(v) <= double(std::numeric_limits<float>::max())))
        why = "is outside float's range";
      break;
    case SpecType::kDouble:
      if (!std::isfinite(v)) why = "is not finite";
      break;
  }
  // Computed in doubles: from 2^53 on, a whole number may be a rounded one (n * n * n * n + 1
  // came as n^4), which the kernel would be blamed for.
  const bool wide = t == SpecType::kLong || t == SpecType::kUlong;
  if (why.empty() && computed && wide && std::fabs(v) >= 0x1p53) {
    why = "is beyond 2^53, where doubles are not exact";
  }
  if (why.empty()) return why;
  std::ostringstream out;
  // Whole numbers in full (2560000000000000000, not 2.56e+18).
  if (v == std::floor(v) && std::fabs(v) < 1e19)
    out << std::fixed << std::setprecision(0);
  else
    out.precision(17);
  out << v << ' ' << why;
  return out.str();
}

const std::vector<std::string>& spec_device_names() {
  static const std::vector<std::string> names = {"local_mem_size",
                                                 "max_work_group_size",
                                                 "max_work_item_size_x",
                                                 "max_work_item_size_y",
                                                 "max_work_item_size_z",
                                                 "compute_units",
                                                 "max_alloc_size",
                                                 "global_mem_size",
                                                 "preferred_vector_width_float",
                                                 "preferred_vector_width_double",
                                                 "preferred_vector_width_int",
                                                 "fp64",
                                                 "image_support"};
  return names;
}

namespace {

bool token(const std::string& s, bool name) {
  return !s.empty() && s.size() <= 64 &&
         (!name || !std::isdigit(static_cast<unsigned char>(s[0]))) &&
         std::all_of(s.begin(), s.end(), [&](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                  (!name && (c == '.' || c == '-'));
         });
}

}  // namespace

bool is_spec_kernel(const std::string& kernel) {
  if (kernel.rfind("spec:", 0) != 0) return false;
  const std::size_t colon = kernel.find(':', 5);
  if (colon == std::string::npos || !token(kernel.substr(5, colon - 5), true)) return false;
  const std::string hash = kernel.substr(colon + 1);
  return hash.size() == 16 && std::all_of(hash.begin(), hash.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

std::string canonical_spec_config(const std::string& config) {
  std::set<std::string> names;
  for (const auto& [name, value] : config_items(config)) {
    if (!value || !token(name, true) || !token(*value, false) || !names.insert(name).second) {
      throw UsageError("not a spec configuration (NAME=VALUE pairs, each name once)");
    }
  }
  if (names.empty()) throw UsageError("an empty spec configuration");
  return config;
}

}  // namespace mmtune
