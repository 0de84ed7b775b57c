// A Kernel Tuner cache its run left open (interrupted: Kernel Tuner appends each result and
// closes the file only at the end) imports as Kernel Tuner itself reads it.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.hpp"

namespace mmtune {
namespace {

// The first `entries` results of a real cache, written as Kernel Tuner writes them during a
// run: the header, then one `"key": {...},` line per result, never closed.
std::string open_cache(std::size_t entries) {
  std::ifstream in(std::string(MMTUNE_LANDSCAPES_DIR) + "/convolution_A100_run1.json");
  const auto full = nlohmann::json::parse(in);
  nlohmann::json header = full;
  header.erase("cache");
  std::string text = header.dump();
  text.pop_back();  // the closing brace: the cache follows
  text += ", \"cache\": {";
  std::size_t n = 0;
  for (const auto& [key, value] : full["cache"].items()) {
    if (n++ == entries) break;
    text += "\n" + nlohmann::json(key).dump() + ": " + value.dump() + ",";
  }
  return text + "\n";
}

TEST(KernelTunerOpenCache, ImportsAsKernelTunerReadsIt) {
  test::TempDir dir;
  std::ofstream(dir / "open.json") << open_cache(20);
  auto r = test::run_mmtune({"import", dir / "open.json", "--db", dir / "t.db", "--n", "4096"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("left open"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("20 measurements added"), std::string::npos) << r.out;
  // A result cut off mid-entry is no result: refused, as Kernel Tuner refuses it.
  std::string cut = open_cache(20);
  cut.resize(cut.size() - 30);
  std::ofstream(dir / "cut.json") << cut;
  r = test::run_mmtune({"import", dir / "cut.json", "--db", dir / "t.db", "--n", "4096"});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.out;
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mmtune
