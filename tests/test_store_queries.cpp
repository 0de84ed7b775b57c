// Queries of the SQL layer that read the same on SQLite and PostgreSQL: where the two differ
// (bound integer types, where NULL sorts), each is checked on both.
#include <gtest/gtest.h>

#include <string>

#include "store/queries.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

class StoreQueries : public test::BackendTest {
 protected:
  // A fresh store of this backend with the pthread device in it.
  Store store_with_device() {
    Store store(fresh_db());
    store.upsert_device(d);
    return store;
  }
  const DeviceInfo d = test::pocl_device("pthread").info;
};
MMTUNE_INSTANTIATE_BACKENDS(StoreQueries);

MeasurementRecord timed(const DeviceInfo& d, const std::string& kernel, const std::string& config,
                        std::size_t n, double ms) {
  MeasurementRecord r;
  r.device_key = d.key, r.kernel = kernel, r.config = config;
  r.problem.m = r.problem.n = r.problem.k = n;
  r.result.median_ms = r.result.min_ms = r.result.max_ms = r.result.kernel_median_ms = ms;
  r.result.routine_ms = r.result.kernel_ms = {ms};
  r.result.gflops = r.result.kernel_gflops = r.problem.flops() / (ms * 1e6);
  return r;
}

// A user's kernel's bests are found by the prefix of their kernel name (PostgreSQL refused the
// prefix's length as a bound 64-bit integer).
TEST_P(StoreQueries, SpecBestsAreFoundByName) {
  Store store = store_with_device();
  store.add_measurement(timed(d, "spec:scale:0123456789abcdef", "wg=64", 1000, 0.5));
  store.add_measurement(timed(d, "spec:scaled:0123456789abcdef", "wg=32", 1000, 0.5));
  const auto bests = rows::spec_bests(store, "scale");
  ASSERT_EQ(bests.size(), 1u);
  EXPECT_EQ(bests[0].config, "wg=64");
  EXPECT_TRUE(rows::spec_bests(store, "other").empty());
}

// The warm start's candidates from other shapes: the fastest first, an Ok row without a time
// (an import may bring one) never ahead of them (PostgreSQL sorts NULL first).
TEST_P(StoreQueries, WarmStartCandidatesAreTheFastestElsewhere) {
  Store store = store_with_device();
  store.add_measurement(timed(d, "direct", "slow", 128, 4.0));
  store.add_measurement(timed(d, "direct", "fast", 128, 1.0));
  MeasurementRecord untimed = timed(d, "direct", "untimed", 128, 1.0);
  untimed.result.routine_ms.clear();  // Ok, but no figures: stored as NULL
  store.add_measurement(untimed);
  GemmProblem here;
  here.m = here.n = here.k = 64;
  const auto top = store.top_configs_elsewhere(d.key, here, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].second, "fast");
  EXPECT_EQ(top[1].second, "slow");
}

// Times come back exactly as stored, whatever the server's float output: extra_float_digits 0
// (PostgreSQL's default before 12, or a pooler's setting) rounded 7.895999908447266 to 15
// digits, and a re-import no longer knew its own rows.
TEST_P(StoreQueries, TimesComeBackToTheLastBit) {
  const std::string db = fresh_db();
  if (!sqlite()) {
    Store store(db);
    store.db().exec(
        "DO $$BEGIN EXECUTE format('ALTER DATABASE %I SET extra_float_digits = 0', "
        "current_database()); END$$");
  }
  Store store(db);
  store.upsert_device(d);
  store.add_measurement(timed(d, "direct", "x", 64, 7.895999908447266));
  auto q = store.db().prepare("SELECT median_ms FROM measurements");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.real(0), 7.895999908447266);
}

// The problem asked for was measured, every run of it failed: "no result for P; its measurements
// are of P" said the opposite of what happened. A baseline's Ok run is no routine's result.
TEST_P(StoreQueries, MeasuredHintSaysAProblemNeverRanCorrectly) {
  Store store = store_with_device();
  MeasurementRecord failed = timed(d, "tiled", "MWG=64", 200, 1.0);
  failed.result.status = Status::kWrongResult;
  store.add_measurement(failed);
  store.add_measurement(failed);
  failed.result.status = Status::kBuildFailed;
  store.add_measurement(failed);
  store.add_measurement(timed(d, "naive", "", 200, 5.0));
  store.add_measurement(timed(d, "direct", "x", 64, 1.0));
  EXPECT_EQ(rows::measured_hint(store, d.key, "", &failed.problem),
            "; none of its 3 measurements of it ran correctly (BuildFailed 1, WrongResult 2)");
  EXPECT_EQ(rows::measured_hint(store, d.key, "direct", &failed.problem),
            "; its direct measurements are of 64x64x64 fp32 row NN");
  // One run of it with a time (here not the best: stopped early) is no "none ran correctly".
  failed.result = timed(d, "tiled", "MWG=32", 200, 9.0).result;
  failed.config = "MWG=32";
  failed.result.status = Status::kSlowerEarlyStop;
  store.add_measurement(failed);
  EXPECT_EQ(rows::measured_hint(store, d.key, "", &failed.problem).find("none of"),
            std::string::npos);
}

}  // namespace
}  // namespace mmtune
