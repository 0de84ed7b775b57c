// Tuned parameters of a user's kernel (a spec file, docs/spec.md) for library consumers: the
// -D defines a tune stored for a device and problem sizes, with the GEMM lookup's fallbacks.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mmtune/device_info.hpp"
#include "mmtune/lookup.hpp"

namespace mmtune {

struct TunedDefines {
  std::vector<std::pair<std::string, std::string>> parameters;  // NAME, VALUE by name
  LookupSource source = LookupSource::kExact;  // never kDefault: nothing stored is nullopt
  std::string kernel;  // "spec:NAME:HASH": the version of the spec and sources it was tuned with
  std::string device_key, device_name;
  std::vector<long long> sizes;  // the tuned sizes it came from (three; unused ones are 1)
  double gflops = 0.0;           // as measured there (0 when the spec has no FLOP count)
  double gbps = 0.0;             // as measured there (0 when the spec has no byte count)
  // "-DNAME=VALUE -DNAME=VALUE": for clBuildProgram, with the spec's own [defines] added by the
  // caller (they follow from its sizes).
  std::string build_options() const;
};

// The stored best of the spec named `spec_name` for `device` and `sizes`: this device at these
// sizes, else this device at the nearest tuned sizes, else another device of the same OpenCL
// implementation, vendor and type at the nearest sizes; of these, only bests of the spec's
// version (its sources' hash) tuned last on this device (on a similar one where this has none).
// nullopt when nothing fits (keep the kernel's own defaults). Reads as ParameterLookup does and
// throws what it throws. A similar device's defines fitted that device's limits, not
// necessarily this one's (the launch a spec computes is the caller's): check the work-group
// size and local memory they imply, or keep the defaults where source is kSimilarDevice.
std::optional<TunedDefines> best_defines(const std::string& db_path, const std::string& spec_name,
                                         const DeviceInfo& device,
                                         const std::vector<long long>& sizes);

}  // namespace mmtune
