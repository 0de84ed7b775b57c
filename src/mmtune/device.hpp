// OpenCL device discovery: a stable listing of every platform's devices with the limits the tuner
// must respect, and the stable key that results are stored under.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mmtune/cl.hpp"
#include "mmtune/device_info.hpp"

namespace mmtune {

struct Device {
  DeviceInfo info;
  cl::Platform platform;
  cl::Device device;
};

// The description of one device (index 0; list_devices() numbers them).
DeviceInfo describe_device(const cl::Device& device);

// Every device of every platform, platforms ordered by name/vendor/version (the ICD loader's order
// is not guaranteed), devices in the platform's order. Throws NoDeviceError when there is none.
std::vector<Device> list_devices();

// Chooses one device. `spec` is a global index as listed or a case-insensitive substring of the
// device name; empty: the most capable device (DeviceInfo::capability, the lowest index of
// equals). `platform` (optional, index or name substring) narrows the candidates. Throws
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

}  // namespace mmtune
