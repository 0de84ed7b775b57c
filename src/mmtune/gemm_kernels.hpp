// The built-in GEMM kernel families' typed configurations and spaces, and the operations on any
// family's configuration (kernel_family.hpp): text, parsing, build options, limits, spaces.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "mmtune/device_info.hpp"
#include "mmtune/kernel_family.hpp"
#include "mmtune/param_space.hpp"

namespace mmtune {

// gemm_tiled.cl (see the kernel for the meaning of each parameter).
struct TiledConfig {
  int MWG = 64, NWG = 64, KWG = 16, MDIMC = 8, NDIMC = 8, MDIMA = 8, NDIMB = 8, KWI = 2, VWM = 4,
      VWN = 4, STRM = 0, STRN = 0, SA = 1, SB = 1, IMG = 0, PACK = 1, KC = 0;
  auto operator<=>(const TiledConfig&) const = default;
};

// gemm_direct.cl
struct DirectConfig {
  int WGD = 16, MDIMCD = 8, NDIMCD = 8, MDIMAD = 8, NDIMBD = 8, KWID = 2, VWMD = 1, VWND = 1,
      PADA = 1, PADB = 1;
  auto operator<=>(const DirectConfig&) const = default;
};

// gemm_naive.cl: no parameters.
struct NaiveConfig {
  auto operator<=>(const NaiveConfig&) const = default;
};

// gemm_classic.cl
struct ClassicConfig {
  int TILE = 16;
  auto operator<=>(const ClassicConfig&) const = default;
};

// The typed spaces.
const ParamSpace<TiledConfig>& tiled_space(SpaceSize s);
const ParamSpace<DirectConfig>& direct_space(SpaceSize s);
const ParamSpace<ClassicConfig>& classic_space(SpaceSize s);
const ParamSpace<NaiveConfig>& naive_space(SpaceSize s);

template <>
struct ConfigTraits<TiledConfig> {
  static KernelKind kind() { return KernelKind::kTiled; }
  static const ParamSpace<TiledConfig>& space() { return tiled_space(SpaceSize::kFull); }
};
template <>
struct ConfigTraits<DirectConfig> {
  static KernelKind kind() { return KernelKind::kDirect; }
  static const ParamSpace<DirectConfig>& space() { return direct_space(SpaceSize::kFull); }
};
template <>
struct ConfigTraits<NaiveConfig> {
  static KernelKind kind() { return KernelKind::kNaive; }
  static const ParamSpace<NaiveConfig>& space() { return naive_space(SpaceSize::kFull); }
};
template <>
struct ConfigTraits<ClassicConfig> {
  static KernelKind kind() { return KernelKind::kClassic; }
  static const ParamSpace<ClassicConfig>& space() { return classic_space(SpaceSize::kFull); }
};

// The family's name ("tiled", ...) and the family of a name, among `families`.
std::string kernel_name(KernelKind k);
std::optional<KernelKind> parse_kernel_kind(
    std::string_view name, const FamilyRegistry& families = FamilyRegistry::builtin());
inline KernelKind kind_of(const KernelConfig& c) {
  return c.kind();
}
KernelConfig default_config(KernelKind k);  // the kernel's #ifndef defaults

// Canonical text, parameters in space order: "MWG=64 NWG=64 ...". Empty for the naive kernel.
std::string to_string(const KernelConfig& c);
// Parses the canonical text (any order, blanks between pairs). Every parameter of the kernel must
// be given once with a value from its full value set; anything else throws UsageError. This is the
// gate for values read from files and databases before they reach a compiler command line.
KernelConfig parse_config(KernelKind k, const std::string& text);

// Parameter names of a kernel, in space order, and a configuration's values in that order.
std::vector<std::string> parameter_names(KernelKind k);
inline const std::vector<int>& parameter_values(const KernelConfig& c) {
  return c.values();
}

// OpenCL build options: "-DPRECISION=32 -DMWG=64 ..." (without the family's extra options).
std::string build_options(const KernelConfig& c, Precision p);

// Why this configuration cannot run on this device (empty: it can): work-group size and shape,
// local memory, vector width.
std::vector<std::string> limit_violations(const KernelConfig& c, const DeviceInfo& d, Precision p);
// Why it breaks the kernel's own constraints (empty: valid).
std::vector<std::string> constraint_violations(const KernelConfig& c);

// Local memory one work-group uses, in bytes.
std::size_t local_memory_bytes(const KernelConfig& c, Precision p);

// All valid configurations of a kernel; with a device, also within its limits.
std::vector<KernelConfig> enumerate(KernelKind k, SpaceSize s, const DeviceInfo* d, Precision p);

// A printable description of a space: per parameter its values, and the counts.
struct SpaceSummary {
  struct Param {
    std::string name, help;
    std::vector<int> values;
  };
  KernelKind kernel;
  SpaceSize size;
  std::vector<Param> params;
  std::vector<std::string> constraints;
  std::uint64_t product = 0;            // before constraints
  std::uint64_t valid = 0;              // after constraints
  std::optional<std::uint64_t> device;  // after the device's limits, when a device was given
};
SpaceSummary summarize(KernelKind k, SpaceSize s, const DeviceInfo* d, Precision p);

}  // namespace mmtune
