// The configurations a Kernel Tuner import stores: which files are CLBlast's Xgemm (mapped onto
// the tiled kernel; decided by every value of the file's space, so that the order of a
// tune_params list changes nothing), and a recorded kernel's configurations in one spelling.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "exchange/exchange.hpp"
#include "exchange_fixture.hpp"
#include "family/recorded.hpp"
#include "mmtune/error.hpp"
#include "store/store.hpp"
#include "test_support.hpp"
#include "tune/replay.hpp"

namespace mmtune {
namespace {

// The first 50 results of a real Xgemm landscape (measured on an A100).
nlohmann::json xgemm_sample() {
  std::ifstream in(std::string(MMTUNE_LANDSCAPES_DIR) + "/GEMM_A100_run1.json");
  nlohmann::json j = nlohmann::json::parse(in);
  nlohmann::json cache = nlohmann::json::object();
  for (const auto& [key, value] : j["cache"].items()) {
    if (cache.size() == 50) break;
    cache[key] = value;
  }
  j["cache"] = cache;
  return j;
}

std::set<std::string> kernels_of(const nlohmann::json& j) {
  GemmProblem p;
  p.m = p.n = p.k = 4096;
  const ImportData data = read_kerneltuner_cache(j, "sample.json", "2024-01-01T00:00:00Z", p);
  std::set<std::string> kernels;
  for (const auto& r : data.measurements) kernels.insert(r.kernel);
  return kernels;
}

TEST(KernelTunerXgemm, TheOrderOfAValueListChangesNothing) {
  const nlohmann::json sample = xgemm_sample();
  EXPECT_EQ(kernels_of(sample), std::set<std::string>{"tiled"});
  nlohmann::json reversed = sample;
  for (auto& [name, values] : reversed["tune_params"].items()) {
    std::reverse(values.begin(), values.end());
  }
  EXPECT_EQ(kernels_of(reversed), std::set<std::string>{"tiled"});
  // A value CLBlast does not take: the space is not CLBlast's, listed first or last (the first
  // values alone decided: tiled one way, a recorded kernel the other).
  nlohmann::json last = sample, first = sample;
  last["tune_params"]["MWG"].push_back(8192);
  first["tune_params"]["MWG"].insert(first["tune_params"]["MWG"].begin(), 8192);
  EXPECT_EQ(kernels_of(last), std::set<std::string>{"kt:Xgemm"});
  EXPECT_EQ(kernels_of(first), std::set<std::string>{"kt:Xgemm"});
}

// `cache` imported on a 64^3 problem, exported, and imported again into `second` with a copy of
// its measurement `i` measured again later (at that measurement's time), its configuration
// spelled `config` (a file edited by hand, or merged): the copy's device's records of `kernel`.
std::vector<MeasurementRecord> reimported(const nlohmann::json& cache, std::size_t i,
                                          const std::string& config, const std::string& kernel,
                                          const test::TempDir& dir) {
  GemmProblem p;
  p.m = p.n = p.k = 64;
  Store first(dir / "first.db");
  import_text(first, cache.dump(), "cache.json", "", p);
  nlohmann::json j = export_json(first);
  nlohmann::json copy = j["measurements"][i];
  copy["id"] = 99;
  copy["config"] = config;
  copy["measured_at"] = "2030-01-01T00:00:00Z";
  j["measurements"].push_back(copy);
  Store second(dir / "second.db");
  import_text(second, j.dump(), "edited.json");
  return second.measurements(copy["device_key"].get<std::string>(), p, kernel);
}

// A recorded kernel's configuration in an mmtune export is stored as the Kernel Tuner reader
// writes it: "a=01" was stored beside "a=1", and the replay's space then held one configuration
// twice ("search space point 1 is a duplicate", exit 1).
TEST(KernelTunerRecorded, AConfigurationHasOneSpelling) {
  test::TempDir dir;
  std::set<std::string> configs;
  for (const auto& r : reimported(exchange_test::small_cache("two"), 1, "a=02", "kt:two", dir)) {
    configs.insert(r.config);
  }
  EXPECT_EQ(configs, (std::set<std::string>{"a=1", "a=2"}));
}

// A configuration whose parameters come in another order (a file edited by hand, or merged) is
// the same configuration: the replay's space holds it once, with its fastest time.
TEST(KernelTunerRecorded, ParametersInAnotherOrderAreOneConfiguration) {
  test::TempDir dir;
  // a=2 b=3 measured again, at a=1 b=3's 1.0 ms
  const auto records =
      reimported(exchange_test::small_cache("pair", true), 0, "b=3 a=2", "kt:pair", dir);
  ASSERT_EQ(records.size(), 3u);
  const Landscape l = load_landscape("kt:pair", records);
  ASSERT_EQ(l.table.space.size(), 2u);
  EXPECT_EQ(l.table.space.names(), (std::vector<std::string>{"a", "b"}));
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(l.table.times[i]);
    EXPECT_NEAR(*l.table.times[i], 1.0, 1e-9) << "point " << i;
  }
  // Names are matched, each once: "a=1 a=2" is not {a, b}.
  EXPECT_THROW(RecordedFamily::from_texts("kt:pair", {"a=1 b=3", "a=1 a=2"}), UsageError);
  EXPECT_THROW(RecordedFamily::from_texts("kt:pair", {"a=1 a=2", "a=1 b=3"}), UsageError);
  EXPECT_THROW(RecordedFamily::from_texts("kt:pair", {"a=1 b=3", "b=3"}), UsageError);
  EXPECT_NO_THROW(RecordedFamily::from_texts("kt:pair", {"a=1 b=3", "b=4 a=2"}));
}

}  // namespace
}  // namespace mmtune
