// The part of a family that a typed configuration struct and its ParamSpace already say: the
// space, constraints and defaults. A family file declares its space and the routine; this turns
// them into the KernelFamily interface. Families hold no data (their spaces are built on first
// use), so their objects are constant-initialised and usable from any static initialiser.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "mmtune/kernel_family.hpp"
#include "mmtune/param_space.hpp"

namespace mmtune {

template <class C>
class TypedFamily : public KernelFamily {
 public:
  // The space a SpaceSize selects (the full one is the gate for parsed text).
  virtual const ParamSpace<C>& space(SpaceSize s) const = 0;

  const std::vector<ParameterInfo>& parameters(SpaceSize s) const override {
    const auto describe = [this](SpaceSize size) {
      std::vector<ParameterInfo> out;
      for (const auto& p : space(size).parameters())
        out.push_back({p.name, p.help, p.values, p.absent, p.host_only});
      return out;
    };
    static const std::vector<ParameterInfo> full = describe(SpaceSize::kFull);
    static const std::vector<ParameterInfo> quick = describe(SpaceSize::kQuick);
    return s == SpaceSize::kFull ? full : quick;
  }
  std::vector<std::string> constraint_names() const override {
    std::vector<std::string> out;
    for (const auto& c : space(SpaceSize::kFull).constraints()) out.push_back(c.name);
    return out;
  }
  std::vector<KernelConfig> enumerate(SpaceSize s) const override {
    std::vector<KernelConfig> out;
    for (const C& c : space(s).enumerate()) out.emplace_back(c);
    return out;
  }
  std::vector<std::string> constraint_violations(const KernelConfig& c) const override {
    return space(SpaceSize::kFull).violations(get<C>(c));
  }
  KernelConfig default_config() const override { return C{}; }
};

// Shared device checks of the GEMM families.
namespace family_limits {

// Vectors wider than the device prefers only split into several registers; up to 8 is always
// allowed because GPUs that prefer scalars still load 16-32 bytes per access efficiently.
inline unsigned max_vector_width(const DeviceInfo& d, Precision p) {
  return std::max(8u, d.preferred_width(p));
}

inline void work_group(std::size_t x, std::size_t y, const DeviceInfo& d,
                       std::vector<std::string>& out) {
  if (x * y > d.max_work_group_size) {
    out.push_back("work-group size " + std::to_string(x * y) + " exceeds the device's " +
                  std::to_string(d.max_work_group_size));
  }
  if (d.max_work_item_sizes.size() >= 2 &&
      (x > d.max_work_item_sizes[0] || y > d.max_work_item_sizes[1])) {
    out.push_back("work-group shape " + std::to_string(x) + "x" + std::to_string(y) +
                  " exceeds the device's work-item sizes");
  }
}

inline void vectors(std::initializer_list<int> widths, const DeviceInfo& d, Precision p,
                    std::vector<std::string>& out) {
  for (int w : widths) {
    if (unsigned(w) > max_vector_width(d, p)) {
      out.push_back("vector width " + std::to_string(w) + " exceeds " +
                    std::to_string(max_vector_width(d, p)) + " for this device and precision");
    }
  }
}

// Precision and local memory: what every family checks first.
inline std::vector<std::string> common(const KernelFamily& f, const KernelConfig& c,
                                       const DeviceInfo& d, Precision p) {
  std::vector<std::string> out;
  if (!d.supports(p))
    out.push_back(std::string("the device has no fp") + to_string(p) + " support");
  if (const auto lm = f.local_memory_bytes(c, p); lm > d.local_mem_bytes) {
    out.push_back("local memory " + std::to_string(lm) + " B exceeds the device's " +
                  std::to_string(d.local_mem_bytes) + " B");
  }
  return out;
}

inline std::size_t element_bytes(Precision p) {
  return static_cast<std::size_t>(p) / 8;
}

// a % b == 0 for a quotient b that is 0 when an earlier constraint already failed: violations()
// checks every constraint, so none may divide by zero (found by fuzz_config).
inline bool divisible(int a, int b) {
  return b > 0 && a % b == 0;
}

inline std::size_t round_up(std::size_t x, std::size_t m) {
  return (x + m - 1) / m * m;
}

}  // namespace family_limits
}  // namespace mmtune
