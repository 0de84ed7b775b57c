#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

TEST(Device, ListsBothPoclDevicesWithFilledFields) {
  const auto devices = list_devices();
  ASSERT_GE(devices.size(), 2u);
  for (const char* kind : {"pthread", "basic"}) {
    const DeviceInfo& d = test::pocl_device(kind).info;
    EXPECT_EQ(d.type, "CPU");
    EXPECT_FALSE(d.vendor.empty());
    EXPECT_FALSE(d.driver_version.empty());
    EXPECT_NE(d.opencl_c_version.find("OpenCL C"), std::string::npos);
    EXPECT_GE(d.compute_units, 1u);
    EXPECT_GT(d.global_mem_bytes, 0u);
    EXPECT_GT(d.max_alloc_bytes, 0u);
    EXPECT_LE(d.max_alloc_bytes, d.global_mem_bytes);
    EXPECT_GT(d.local_mem_bytes, 0u);
    EXPECT_GE(d.max_work_group_size, 1u);
    EXPECT_EQ(d.max_work_item_sizes.size(), 3u);
    EXPECT_GE(d.preferred.float_, 1u);
    EXPECT_TRUE(d.fp64) << "PoCL reports cl_khr_fp64";
    EXPECT_EQ(d.key.size(), 16u);
  }
  for (std::size_t i = 0; i < devices.size(); ++i) EXPECT_EQ(devices[i].info.index, i);
}

TEST(Device, KeysAreStableAndDistinct) {
  const auto a = list_devices();
  const auto b = list_devices();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].info.key, b[i].info.key);
    EXPECT_EQ(a[i].info.key,
              device_key(a[i].info.vendor, a[i].info.name, a[i].info.driver_version));
  }
  EXPECT_NE(test::pocl_device("pthread").info.key, test::pocl_device("basic").info.key);
  // The key depends on each field, and field boundaries matter.
  EXPECT_NE(device_key("ab", "c", "1"), device_key("a", "bc", "1"));
  EXPECT_NE(device_key("a", "b", "1"), device_key("a", "b", "2"));
}

TEST(Device, KeysAreStableAcrossProcesses) {
  const auto first = test::run_mmtune({"devices", "--json"});
  const auto second = test::run_mmtune({"devices", "--json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto a = nlohmann::json::parse(first.out);
  const auto b = nlohmann::json::parse(second.out);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GE(a.size(), 2u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i]["key"], b[i]["key"]);
    EXPECT_EQ(a[i]["name"], b[i]["name"]);
  }
  EXPECT_EQ(a[0]["key"].get<std::string>(), list_devices()[0].info.key);
}

TEST(Device, SelectsByIndexNameAndPlatform) {
  const auto devices = list_devices();
  const auto& pthread = test::pocl_device("pthread");
  const auto& basic = test::pocl_device("basic");
  EXPECT_EQ(&select_device(devices, std::to_string(pthread.info.index)),
            &devices[pthread.info.index]);
  EXPECT_EQ(select_device(devices, "PTHREAD").info.key, pthread.info.key);
  EXPECT_EQ(select_device(devices, "basic").info.key, basic.info.key);
  EXPECT_EQ(select_device(devices, "basic", "0").info.key, basic.info.key);
  EXPECT_EQ(select_device(devices, "basic", "portable").info.key, basic.info.key);
  // No choice: the most capable device (pthread's two compute units beat basic's one), also
  // within a platform.
  EXPECT_GT(pthread.info.capability(), basic.info.capability());
  EXPECT_EQ(select_device(devices, "").info.key, pthread.info.key)
      << "pthread: units x MHz x width";
  EXPECT_EQ(select_device(devices, "", "portable").info.key, pthread.info.key);
}

TEST(Device, RejectsUnknownAmbiguousAndMissing) {
  const auto devices = list_devices();
  try {
    select_device(devices, "no-such-device");
    FAIL() << "expected NoDeviceError";
  } catch (const NoDeviceError& e) {
    EXPECT_EQ(e.exit_code(), kExitNoDevice);
    EXPECT_NE(std::string(e.what()).find("pthread"), std::string::npos) << "lists what exists";
  }
  EXPECT_THROW(select_device(devices, "99"), NoDeviceError);
  EXPECT_THROW(select_device(devices, "skylake"), NoDeviceError);  // matches both: ambiguous
  EXPECT_THROW(select_device(devices, "basic", "no-such-platform"), NoDeviceError);
}

}  // namespace
}  // namespace mmtune
