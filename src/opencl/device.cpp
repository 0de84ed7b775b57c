#include "mmtune/device.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>
#include <tuple>

#include "mmtune/error.hpp"
#include "opencl/kernel_source.hpp"

namespace mmtune {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Driver strings sometimes carry trailing NULs or blanks.
std::string clean(std::string s) {
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back())))) {
    s.pop_back();
  }
  return s;
}

std::string type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "GPU";
  if (t & CL_DEVICE_TYPE_CPU) return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "Accelerator";
  if (t & CL_DEVICE_TYPE_CUSTOM) return "Custom";
  return "Other";
}

bool parse_index(const std::string& s, std::size_t& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

DeviceInfo query(const cl::Platform& platform, const cl::Device& d) {
  DeviceInfo i;
  i.platform_name = clean(platform.getInfo<CL_PLATFORM_NAME>());
  i.platform_vendor = clean(platform.getInfo<CL_PLATFORM_VENDOR>());
  i.platform_version = clean(platform.getInfo<CL_PLATFORM_VERSION>());
  i.vendor = clean(d.getInfo<CL_DEVICE_VENDOR>());
  i.name = clean(d.getInfo<CL_DEVICE_NAME>());
  i.type = type_name(d.getInfo<CL_DEVICE_TYPE>());
  i.driver_version = clean(d.getInfo<CL_DRIVER_VERSION>());
  i.device_version = clean(d.getInfo<CL_DEVICE_VERSION>());
  i.opencl_c_version = clean(d.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
  i.vendor_id = d.getInfo<CL_DEVICE_VENDOR_ID>();
  i.compute_units = d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  i.max_clock_mhz = d.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>();
  i.global_mem_bytes = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  i.max_alloc_bytes = d.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  i.local_mem_bytes = d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  i.local_mem_dedicated = d.getInfo<CL_DEVICE_LOCAL_MEM_TYPE>() == CL_LOCAL;
  i.max_work_group_size = d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  for (auto s : d.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>()) i.max_work_item_sizes.push_back(s);
  i.preferred = {d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR>(),
                 d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT>(),
                 d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT>(),
                 d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG>(),
                 d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT>(),
                 d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE>(),
                 d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF>()};
  i.native = {d.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR>(),
              d.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT>(),
              d.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_INT>(),
              d.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG>(),
              d.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT>(),
              d.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE>(),
              d.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF>()};
  i.extensions = clean(d.getInfo<CL_DEVICE_EXTENSIONS>());
  const auto has_ext = [&](const char* e) {
    const std::string padded = " " + i.extensions + " ";
    return padded.find(std::string(" ") + e + " ") != std::string::npos;
  };
  i.fp64 = has_ext("cl_khr_fp64") || d.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0;
  i.fp16 = has_ext("cl_khr_fp16");
  i.image_support = d.getInfo<CL_DEVICE_IMAGE_SUPPORT>() == CL_TRUE;
  if (i.image_support) {
    // Buffer images came with OpenCL 1.2: a 1.1 device has none (the query fails there). The
    // texels' buffer is one allocation, indexed with 32-bit ints in the kernel.
    try {
      i.image_max_buffer_texels = std::min<std::size_t>(
          {d.getInfo<CL_DEVICE_IMAGE_MAX_BUFFER_SIZE>(), std::size_t(i.max_alloc_bytes / 16),
           std::size_t(std::numeric_limits<int>::max())});
    } catch (const cl::Error&) {
      i.image_max_buffer_texels = 0;
    }
  }
  i.key = device_key(i.vendor, i.name, i.driver_version);
  return i;
}

// "index: name, ..." of the devices given.
std::string listing(const std::vector<const Device*>& devices) {
  std::string s;
  for (const Device* d : devices) {
    if (!s.empty()) s += ", ";
    s += std::to_string(d->info.index) + ": " + d->info.name;
  }
  return s;
}

// The devices a --platform left (all of them without one): those a --device can name.
std::string available(const std::vector<const Device*>& candidates, const std::string& platform) {
  return "; available: " + (platform.empty() ? "" : "on platform '" + platform + "': ") +
         listing(candidates);
}

}  // namespace

DeviceInfo describe_device(const cl::Device& device) {
  return query(cl::Platform(device.getInfo<CL_DEVICE_PLATFORM>()), device);
}

std::vector<Device> list_devices() {
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error& e) {
    // The ICD loader reports "no platform" as CL_PLATFORM_NOT_FOUND_KHR (-1001).
    throw NoDeviceError(
        "no OpenCL platform found (install an OpenCL driver, e.g. pocl-opencl-icd)");
  }
  if (platforms.empty()) {
    throw NoDeviceError(
        "no OpenCL platform found (install an OpenCL driver, e.g. pocl-opencl-icd)");
  }
  std::vector<std::pair<std::tuple<std::string, std::string, std::string>, cl::Platform>> sorted;
  for (auto& p : platforms) {
    sorted.push_back({{p.getInfo<CL_PLATFORM_NAME>(), p.getInfo<CL_PLATFORM_VENDOR>(),
                       p.getInfo<CL_PLATFORM_VERSION>()},
                      p});
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  std::vector<Device> out;
  for (auto& [_, platform] : sorted) {
    std::vector<cl::Device> devs;
    try {
      platform.getDevices(CL_DEVICE_TYPE_ALL, &devs);
    } catch (const cl::Error&) {
      continue;  // CL_DEVICE_NOT_FOUND: a platform without devices
    }
    for (auto& d : devs) {
      Device dev{query(platform, d), platform, d};
      dev.info.index = out.size();
      out.push_back(std::move(dev));
    }
  }
  if (out.empty()) throw NoDeviceError("OpenCL platforms found, but none has a device");
  return out;
}

namespace {

// The devices of the platforms `platform` names (index or name part; all when empty).
std::vector<const Device*> platform_devices(const std::vector<Device>& devices,
                                            const std::string& platform) {
  std::vector<const Device*> candidates;
  std::size_t platform_index = 0;
  const bool platform_by_index = parse_index(platform, platform_index);
  std::vector<std::string> platform_names;
  for (const auto& d : devices) {
    if (std::find(platform_names.begin(), platform_names.end(), d.info.platform_name) ==
        platform_names.end()) {
      platform_names.push_back(d.info.platform_name);
    }
    const std::size_t pi = platform_names.size() - 1;
    if (platform.empty() ||
        (platform_by_index
             ? pi == platform_index
             : lower(d.info.platform_name).find(lower(platform)) != std::string::npos)) {
      candidates.push_back(&d);
    }
  }
  if (candidates.empty()) {
    std::string known;
    for (std::size_t i = 0; i < platform_names.size(); ++i) {
      known += (i ? ", " : "") + std::to_string(i) + ": " + platform_names[i];
    }
    throw NoDeviceError("unknown OpenCL platform '" + platform + "'; available: " + known);
  }
  return candidates;
}

}  // namespace

std::vector<const Device*> select_all_devices(const std::vector<Device>& devices,
                                              const std::string& platform) {
  return platform_devices(devices, platform);
}

std::string hardware_group(const Device& d) {
  // Every CPU device computes on the host's cores and memory: PoCL's "pthread" and "basic" are
  // two drivers over one CPU, and a vendor's CPU runtime would be a third.
  if (d.info.is_cpu()) return "host-cpu";
#ifdef CL_DEVICE_PCI_BUS_INFO_KHR
  // One GPU seen through two platforms (say, a vendor driver and Mesa) reports one PCI address.
  if (d.info.extensions.find("cl_khr_pci_bus_info") != std::string::npos) {
    cl_device_pci_bus_info_khr pci{};
    if (clGetDeviceInfo(d.device(), CL_DEVICE_PCI_BUS_INFO_KHR, sizeof pci, &pci, nullptr) ==
        CL_SUCCESS) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "pci:%04x:%02x:%02x.%x", pci.pci_domain, pci.pci_bus,
                    pci.pci_device, pci.pci_function);
      return buf;
    }
  }
#endif
  return "device:" + std::to_string(d.info.index);  // without evidence of sharing: its own
}

const Device& select_device(const std::vector<Device>& devices, const std::string& spec,
                            const std::string& platform) {
  const std::vector<const Device*> candidates = platform_devices(devices, platform);
  if (spec.empty()) {
    const Device* most = nullptr;
    for (const Device* d : candidates) {
      if (!most || d->info.capability() > most->info.capability()) most = d;
    }
    if (!most) throw NoDeviceError("no OpenCL device" + available(candidates, platform));
    return *most;
  }
  std::size_t index = 0;
  if (parse_index(spec, index)) {
    for (const Device* d : candidates) {
      if (d->info.index == index) return *d;
    }
    throw NoDeviceError("no OpenCL device with index " + spec + available(candidates, platform));
  }
  std::vector<const Device*> matches;
  for (const Device* d : candidates) {
    if (!spec.empty() && lower(d->info.name).find(lower(spec)) != std::string::npos) {
      matches.push_back(d);
    }
  }
  if (matches.size() == 1) return *matches.front();
  if (matches.empty()) {
    throw NoDeviceError("no OpenCL device matches '" + spec + "'" +
                        available(candidates, platform));
  }
  throw NoDeviceError("device '" + spec + "' is ambiguous, it matches " + listing(matches));
}

}  // namespace mmtune
