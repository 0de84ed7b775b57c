// libFuzzer target: the configuration parser (parse_config), the gate between text from files
// and databases and the OpenCL compiler. The first byte picks the family, the rest is the text.
// Rejected text must be a UsageError; accepted text must round-trip through its canonical form
// and produce build options made of -DNAME=NUMBER only.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"

namespace {

// "-DNAME=123" with NAME of capitals, digits and underscores.
bool is_define(const std::string& option) {
  if (option.rfind("-D", 0) != 0) return false;
  const auto eq = option.find('=');
  if (eq == std::string::npos || eq == 2 || eq + 1 == option.size()) return false;
  for (std::size_t i = 2; i < eq; ++i) {
    const unsigned char c = static_cast<unsigned char>(option[i]);
    if (!std::isupper(c) && !std::isdigit(c) && c != '_') return false;
  }
  for (std::size_t i = eq + 1; i < option.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(option[i]))) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto& families = mmtune::FamilyRegistry::builtin().all();
  const mmtune::KernelKind kind = families[data[0] % families.size()];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  mmtune::KernelConfig config;
  try {
    config = mmtune::parse_config(kind, text);
  } catch (const mmtune::UsageError&) {
    return 0;
  }
  if (mmtune::kind_of(config) != kind) std::abort();
  if (mmtune::parse_config(kind, mmtune::to_string(config)) != config) std::abort();
  for (const auto precision :
       {mmtune::Precision::kHalf, mmtune::Precision::kSingle, mmtune::Precision::kDouble}) {
    std::istringstream options(mmtune::build_options(config, precision));
    std::string option;
    while (options >> option) {
      if (!is_define(option)) std::abort();
    }
  }
  return 0;
}
