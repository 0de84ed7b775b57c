// OpenCL device discovery: a stable listing of every platform's devices with the limits the tuner
// must respect, and the stable key that results are stored under.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mmtune/cl.hpp"

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
  bool image_support = false;  // CL_DEVICE_IMAGE_SUPPORT
  std::size_t image2d_max_width = 0, image2d_max_height = 0;
  std::string extensions;
  std::string key;  // see device_key()

  bool supports(Precision p) const;
  // Preferred vector width for the scalar type of a precision.
  unsigned preferred_width(Precision p) const;
  bool is_cpu() const { return type == "CPU"; }
};

struct Device {
  DeviceInfo info;
  cl::Platform platform;
  cl::Device device;
};

// A short, stable identifier of a device model and its driver: 16 hex digits of a 64-bit FNV-1a
// hash over vendor, name and driver version. Identical hardware with the same driver shares it.
std::string device_key(const std::string& vendor, const std::string& name,
                       const std::string& driver_version);

// The description of one device (index 0; list_devices() numbers them).
DeviceInfo describe_device(const cl::Device& device);

// Every device of every platform, platforms ordered by name/vendor/version (the ICD loader's order
// is not guaranteed), devices in the platform's order. Throws NoDeviceError when there is none.
std::vector<Device> list_devices();

// Chooses one device. `spec` is a global index as listed or a case-insensitive substring of the
// device name; `platform` (optional, index or name substring) narrows the candidates. Throws
// NoDeviceError naming what exists when nothing or more than one device matches.
const Device& select_device(const std::vector<Device>& devices, const std::string& spec,
                            const std::string& platform = "");

// Every device of the platform `platform` names (index or name part; every platform when
// empty), for `--device all`. Throws NoDeviceError for an unknown platform.
std::vector<const Device*> select_all_devices(const std::vector<Device>& devices,
                                              const std::string& platform = "");

// Devices whose measurements would disturb each other share a group and are tuned one after
// another; different groups are tuned at the same time. The rule, from OpenCL queries only:
// all CPU devices (CL_DEVICE_TYPE_CPU) form one group, "host-cpu"; a device with
// cl_khr_pci_bus_info is grouped by its PCI address ("pci:0000:01:00.0"); any other device is a
// group of its own ("device:INDEX"). Root devices only (list_devices lists no sub-devices).
std::string hardware_group(const Device& d);

const char* to_string(Precision p);

}  // namespace mmtune
