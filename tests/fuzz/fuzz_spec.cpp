// libFuzzer target: the spec parser (parse_spec_text), the door between a user's TOML file and
// the OpenCL compiler. Rejected text must be a UsageError; an accepted spec must give, on small
// sizes, a space whose configurations evaluate (or are excluded with a reason) without crashing
// and whose defines are identifiers set to tokens a command line cannot misread.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "family/spec.hpp"
#include "family/spec_space.hpp"
#include "mmtune/error.hpp"

namespace {

bool is_token(const std::string& s, bool identifier) {
  if (s.empty()) return false;
  for (const char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '_' && (identifier || (c != '.' && c != '-'))) return false;
  }
  return true;
}

}  // namespace

// Specs name their source files relative to themselves: the seed corpus uses this one.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::ofstream("fuzz_spec_kernel.cl") << "__kernel void k(__global float* x) { x[0] = 1.0f; }\n";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  mmtune::KernelSpec spec;
  try {
    spec = mmtune::parse_spec_text(text, "fuzz.toml");
  } catch (const mmtune::UsageError&) {
    return 0;
  }
  mmtune::DeviceInfo device;
  device.local_mem_bytes = 65536, device.max_work_group_size = 1024;
  device.max_work_item_sizes = {1024, 1024, 64}, device.max_alloc_bytes = 1 << 30;
  std::vector<long long> sizes(spec.sizes.size(), 7);
  mmtune::SpecInstance instance(spec, sizes, &device);
  if (instance.product() > 4096) return 0;  // enumeration is the point, not its length
  for (const auto& point : instance.enumerate()) {
    const auto launch = instance.launch(point);
    for (const auto& [name, value] : launch.defines) {
      if (!is_token(name, true) || !is_token(value, false)) std::abort();
    }
    if (instance.parse(instance.to_text(point)) != point) std::abort();
  }
  return 0;
}
