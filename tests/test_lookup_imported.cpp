// The consumer's lookup over imported data: a CLBlast tuner file's best serves the devices it
// is similar to.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "exchange/exchange.hpp"
#include "mmtune/lookup.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

// A CLBlast tuner file measured with this OpenCL implementation on hardware of this vendor and
// type: its best serves this device as a similar device's (the file names the platform by its
// vendor, mmtune by its name: the rule never matched).
TEST(Lookup, AClblastFileOfThisImplementationIsASimilarDevice) {
  const DeviceInfo& here = test::pocl_device().info;
  auto file = nlohmann::json::parse(test::slurp(std::string(MMTUNE_KERNELS_DIR) +
                                                "/../tests/data/clblast/clblast_xgemm_1_32.json"));
  file["device_vendor"] = file["clblast_device_vendor"] = here.vendor;
  file["device_type"] = file["clblast_device_type"] = here.type;
  file["platform_vendor"] = here.platform_vendor;
  file["clblast_device_name"] = file["device"] = "another model";
  test::TempDir dir;
  {
    std::ofstream(dir / "c.json") << file.dump();
    Store store(dir / "t.db");
    import_file(store, dir / "c.json");
  }
  GemmProblem p;  // the file's problem, as CLBlast's kernel computes it
  p.m = std::stoul(file["arg_m"].get<std::string>());
  p.n = std::stoul(file["arg_n"].get<std::string>());
  p.k = std::stoul(file["arg_k"].get<std::string>());
  p.layout = Layout::kColMajor;
  p.trans_b = true;
  const ParameterLookup lookup(dir / "t.db");
  const auto t = lookup.lookup(here, p);
  EXPECT_EQ(t.source, LookupSource::kSimilarDevice) << to_string(t.source);
  EXPECT_EQ(std::string(t.config.kind()->name()), "tiled");
  // Another implementation's device of the same hardware is not similar.
  DeviceInfo other = here;
  other.platform_name = other.platform_vendor = "another implementation";
  EXPECT_EQ(lookup.lookup(other, p).source, LookupSource::kDefault);
}

}  // namespace
}  // namespace mmtune
