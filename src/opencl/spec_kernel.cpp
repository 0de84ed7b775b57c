#include "opencl/spec_kernel.hpp"

#include <algorithm>

#include "mmtune/error.hpp"

namespace mmtune {
namespace {

constexpr std::size_t kGuardBytes = 64 * 1024;
constexpr unsigned char kGuardByte = 0xa5;

void check_signature(const cl::Program& program, const KernelSpec& spec) {
  const std::string where = spec.path.string() + ": ";
  try {
    const cl::Kernel kernel(program, spec.kernel.c_str());
    const auto takes = kernel.getInfo<CL_KERNEL_NUM_ARGS>();
    if (takes != spec.arguments.size()) {
      throw UsageError(where + "kernel '" + spec.kernel + "' takes " + std::to_string(takes) +
                       " arguments; the spec gives " + std::to_string(spec.arguments.size()));
    }
  } catch (const cl::Error& e) {
    if (e.err() != CL_INVALID_KERNEL_NAME) throw;
    std::string names;
    try {
      names = program.getInfo<CL_PROGRAM_KERNEL_NAMES>();
    } catch (const cl::Error&) {
      // OpenCL 1.1 cannot list them: the refusal stands without the list.
    }
    std::replace(names.begin(), names.end(), ';', ' ');
    throw UsageError(where + "its sources define no kernel '" + spec.kernel + "'" +
                     (names.empty() ? std::string() : " (they define: " + names + ")"));
  }
}

}  // namespace

bool argument_may_be_written(const cl::Kernel& kernel, cl_uint index) {
  cl_kernel_arg_address_qualifier qualifier = 0;
  if (clGetKernelArgInfo(kernel(), index, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof qualifier,
                         &qualifier, nullptr) != CL_SUCCESS) {
    return true;
  }
  return qualifier != CL_KERNEL_ARG_ADDRESS_CONSTANT;
}

std::vector<bool> inspect_spec_kernel(const cl::Context& context, const cl::Device& device,
                                      const std::string& source, const std::string& options,
                                      const KernelSpec& spec) {
  const auto built = [&](const std::string& o) -> std::optional<cl::Program> {
    cl::Program program(context, source);
    try {
      program.build(std::vector<cl::Device>{device}, o.c_str());
      return program;
    } catch (const cl::Error&) {
      return std::nullopt;
    }
  };
  auto program = built(options + " -cl-kernel-arg-info");
  const bool told = program.has_value();
  if (!told) program = built(options);  // an implementation that refuses the option
  if (!program) return {};              // the configuration's BuildFailed will say why
  check_signature(*program, spec);
  if (!told) return {};
  const cl::Kernel kernel(*program, spec.kernel.c_str());
  std::vector<bool> writable;
  for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
    writable.push_back(argument_may_be_written(kernel, cl_uint(i)));
  }
  return writable;
}

std::size_t guard_bytes(std::size_t bytes, std::uint64_t max_alloc) {
  return bytes + kGuardBytes <= max_alloc ? kGuardBytes : 0;
}

void fill_guard(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t bytes,
                std::size_t guard) {
  static const std::vector<unsigned char> pattern(kGuardBytes, kGuardByte);
  queue.enqueueWriteBuffer(buffer, CL_TRUE, bytes, std::min(guard, kGuardBytes), pattern.data());
}

std::optional<std::size_t> guard_written(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                                         std::size_t bytes) {
  const std::size_t guard = buffer.getInfo<CL_MEM_SIZE>() - bytes;
  if (!guard) return std::nullopt;
  std::vector<unsigned char> zone(guard);
  queue.enqueueReadBuffer(buffer, CL_TRUE, bytes, guard, zone.data());
  const auto it =
      std::find_if(zone.begin(), zone.end(), [](unsigned char c) { return c != kGuardByte; });
  if (it == zone.end()) return std::nullopt;
  return std::size_t(it - zone.begin());
}

}  // namespace mmtune
