// Plain facts about an OpenCL device and the precisions it runs: no OpenCL types, so that
// problems, configurations, stores and reports can use them without the runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mmtune {

// Preferred or native vector widths, in elements, per scalar type.
struct VectorWidths {
  unsigned char_ = 0, short_ = 0, int_ = 0, long_ = 0, float_ = 0, double_ = 0, half = 0;
};

enum class Precision { kHalf = 16, kSingle = 32, kDouble = 64 };

struct DeviceInfo {
  std::size_t index = 0;  // position in list_devices(), stable for a given set of drivers
  std::string platform_name, platform_vendor, platform_version;
  std::string vendor, name, type, driver_version, device_version, opencl_c_version;
  unsigned vendor_id = 0;
  unsigned compute_units = 0;
  unsigned max_clock_mhz = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t max_alloc_bytes = 0;
  std::uint64_t local_mem_bytes = 0;
  bool local_mem_dedicated = false;  // false when "local" memory is really global (CPUs)
  std::size_t max_work_group_size = 0;
  std::vector<std::size_t> max_work_item_sizes;
  VectorWidths preferred, native;
  bool fp64 = false;
  bool fp16 = false;
  bool image_support = false;               // CL_DEVICE_IMAGE_SUPPORT
  std::size_t image_max_buffer_texels = 0;  // CL_DEVICE_IMAGE_MAX_BUFFER_SIZE (1-D images)
  std::string extensions;
  std::string key;  // see device_key()

  bool supports(Precision p) const;
  // Preferred vector width for the scalar type of a precision.
  unsigned preferred_width(Precision p) const;
  bool is_cpu() const { return type == "CPU"; }
  // Compute units x clock (MHz) x preferred fp32 vector width: the rough size of the device by
  // OpenCL's own queries, which picks the default device.
  double capability() const;
};

// A short, stable identifier of a device model and its driver: 16 hex digits of a 64-bit FNV-1a
// hash over vendor, name and driver version. Identical hardware with the same driver shares it.
std::string device_key(const std::string& vendor, const std::string& name,
                       const std::string& driver_version);

const char* to_string(Precision p);

// 64-bit FNV-1a, as 16 hex digits: identifies a source text in cache keys.
std::string content_hash(const std::string& text);

}  // namespace mmtune
