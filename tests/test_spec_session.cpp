// A spec tune's session: what it is told of the store, and a space of millions.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "family/spec.hpp"
#include "mmtune/device.hpp"
#include "search/strategy.hpp"
#include "spec_fixture.hpp"
#include "store/store.hpp"
#include "test_support.hpp"
#include "tune/spec_session.hpp"

namespace mmtune {
namespace {

// y[i] = i for n elements; the parameters only name the configuration.
void write_spec(const test::TempDir& dir, const std::string& parameters) {
  std::ofstream(dir / "s.cl") << R"cl(
__kernel void s(__global float* y, const int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = (float)i;
}
)cl";
  std::ofstream(dir / "s.toml") << spec_test::one_dimensional(
      "s", parameters, spec_test::kYAndN + "[verification]\nreference = \"none\"\n");
}

MeasurementRecord stored(const KernelSpec& spec, const DeviceInfo& d, const std::string& config,
                         Status status, double ms) {
  MeasurementRecord r;
  r.device_key = d.key;
  r.kernel = spec_kernel_name(spec);
  r.config = config;
  r.problem = spec_problem({64});
  r.result.status = status;
  if (ms > 0) {
    r.result.median_ms = r.result.min_ms = r.result.max_ms = r.result.kernel_median_ms = ms;
    r.result.routine_ms = r.result.kernel_ms = {ms};
  }
  return r;
}

// Ok rows of the spec (configuration, ms) stored on the pthread device as earlier tunes or
// imports would have; returned with their ids.
std::vector<MeasurementRecord> store_rows(const std::string& db, const KernelSpec& spec,
                                          const std::vector<std::pair<std::string, double>>& rows) {
  Store store(db);
  const DeviceInfo& d = test::pocl_device("pthread").info;
  store.upsert_device(d);
  std::vector<MeasurementRecord> out;
  for (const auto& [config, ms] : rows) {
    MeasurementRecord r = stored(spec, d, config, Status::kOk, ms);
    r.id = store.add_measurement(r);
    out.push_back(r);
  }
  return out;
}

TEST(SpecSession, AConfigurationIsToldAsItsFastestStoredResultNotItsFirst) {
  // v=10 first timed out (a busy machine), then ran. Told as its first row, it looked failed
  // and annealing started at random; told its run, annealing walks on from it.
  test::TempDir dir;
  write_spec(dir, "v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]");
  const KernelSpec spec = parse_spec_file(dir / "s.toml");
  const DeviceInfo& d = test::pocl_device("pthread").info;
  for (const char* seed : {"1", "2", "3", "4", "5"}) {
    const std::string db = dir / ("s" + std::string(seed) + ".db");
    {
      Store store(db);
      store.upsert_device(d);
      store.add_measurement(stored(spec, d, "v=10", Status::kTimeout, 0));
      store.add_measurement(stored(spec, d, "v=10", Status::kOk, 0.01));
    }
    // The budget counts the known configuration: one new one is measured.
    const auto r = test::run_mmtune({"tune", "--spec", dir / "s.toml", "--size", "64", "--device",
                                     "pthread", "--db", db, "--strategy", "annealing", "--seed",
                                     seed, "--budget", "2", "--finalists", "0"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::count_rows(db, "SELECT COUNT(DISTINCT config) FROM measurements"), 2);
    EXPECT_EQ(test::count_rows(db,
                               "SELECT COUNT(*) FROM measurements WHERE config NOT IN "
                               "('v=9', 'v=10', 'v=11')"),
              0)
        << "seed " << seed << ": not a neighbour of v=10";
  }
}

TEST(SpecSession, AConfigurationStoredUnderAnotherTextIsTheSameConfiguration) {
  // "b=1  a=1" (an import, written by hand) is a=1 b=1: told to the strategy, not measured again
  // in the search, and one finalist (the only one: its time stops the others early) measured in
  // three rounds under its canonical text.
  test::TempDir dir;
  write_spec(dir, "a = [1, 2]\nb = [1, 2]");
  store_rows(dir / "s.db", parse_spec_file(dir / "s.toml"), {{"b=1  a=1", 1e-6}});
  const auto r = test::run_mmtune({"tune", "--spec", dir / "s.toml", "--size", "64", "--device",
                                   "pthread", "--db", dir / "s.db", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["reused"], 1);
  EXPECT_EQ(test::count_rows(dir / "s.db",
                             "SELECT COUNT(*) FROM measurements WHERE config = "
                             "'b=1  a=1'"),
            1);
  EXPECT_EQ(test::count_rows(dir / "s.db",
                             "SELECT COUNT(*) FROM measurements WHERE config = "
                             "'a=1 b=1'"),
            3);
}

// `tune` of the spec in `dir` at size 64 on pthread into s.db with `more` options: its JSON
// summary (a failed tune throws, failing the test with its stderr).
nlohmann::json tune_json(const test::TempDir& dir, std::vector<std::string> more) {
  std::vector<std::string> args = {"tune",     "--spec",  dir / "s.toml", "--size",     "64",
                                   "--device", "pthread", "--db",         dir / "s.db", "--json"};
  args.insert(args.end(), more.begin(), more.end());
  const auto r = test::run_mmtune(args);
  if (r.exit_code != 0) throw std::runtime_error("tune failed: " + r.err);
  return nlohmann::json::parse(r.out);
}

TEST(SpecSession, RowsStoredWhenTheWallTimeRankedAreRankedByTheirKernelsTime) {
  // Rows of a tune before the kernel's time was the ranked one hold the wall time around each
  // launch as their median (0.5 ms), their kernel's time beside it (0.01 ms): read as stored,
  // a=1 was no finalist beside today's rows.
  test::TempDir dir;
  write_spec(dir, "a = [1, 2, 3]");
  const KernelSpec spec = parse_spec_file(dir / "s.toml");
  {
    Store store(dir / "s.db");
    const DeviceInfo& d = test::pocl_device("pthread").info;
    store.upsert_device(d);
    MeasurementRecord old = stored(spec, d, "a=1", Status::kOk, 0.5);
    old.result.kernel_median_ms = 0.01, old.result.kernel_ms = {0.01};
    store.add_measurement(old);
    store.add_measurement(stored(spec, d, "a=2", Status::kOk, 0.1));
    store.add_measurement(stored(spec, d, "a=3", Status::kOk, 0.2));
  }
  tune_json(dir, {"--budget", "3", "--finalists", "2", "--confirm-rounds", "1"});
  EXPECT_EQ(
      test::count_rows(dir / "s.db", "SELECT COUNT(*) FROM measurements WHERE config = 'a=1'"), 2)
      << "a=1 measured again as a finalist";
  EXPECT_EQ(
      test::count_rows(dir / "s.db", "SELECT COUNT(*) FROM measurements WHERE config = 'a=3'"), 1);
}

TEST(SpecSession, ABestOutsideTheSpecsSpaceIsNoFinalist) {
  // An imported best a=128 of a spec whose a is 1 or 2: sent to the worker as a finalist, it
  // stopped every later tune ("'128' is not a value of a") and left its session running.
  test::TempDir dir;
  write_spec(dir, "a = [1, 2]");
  const auto rows = store_rows(dir / "s.db", parse_spec_file(dir / "s.toml"), {{"a=128", 1e-6}});
  Store(dir / "s.db").set_best(rows[0]);
  const auto r = test::run_mmtune({"tune", "--spec", dir / "s.toml", "--size", "64", "--device",
                                   "pthread", "--db", dir / "s.db", "--confirm-rounds", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::count_rows(dir / "s.db",
                             "SELECT COUNT(*) FROM sessions WHERE outcome = "
                             "'completed'"),
            1);
  EXPECT_EQ(test::count_rows(dir / "s.db",
                             "SELECT COUNT(*) FROM best b JOIN measurements m ON m.id = "
                             "b.measurement_id WHERE m.config IN ('a=1', 'a=2')"),
            1)
      << r.out;
}

TEST(SpecSession, ASpecTheWorkerRefusesLeavesTheStoreAsItWas) {
  // A metric that is negative at the sizes is found by the worker, which tunes on the device: the
  // device and a session left "running" were stored before it. 10^300 bytes gave 4e296 GB/s,
  // stored, and an export that no import took.
  test::TempDir dir;
  std::ofstream(dir / "s.cl") << "__kernel void s(__global float* y, const int n) {}\n";
  for (const char* metric : {"flops = \"n - 5000\"", "bytes = \"10^300\""}) {
    std::ofstream(dir / "s.toml") << spec_test::one_dimensional(
        "s", "a = [1]",
        spec_test::kYAndN + "[verification]\nreference = \"none\"\n[metrics]\n" + metric + "\n");
    const auto r = test::run_mmtune({"tune", "--spec", dir / "s.toml", "--size", "64", "--device",
                                     "pthread", "--db", dir / "s.db"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("not a count"), std::string::npos) << r.err;
    EXPECT_EQ(test::count_rows(dir / "s.db", "SELECT COUNT(*) FROM sessions"), 0);
    EXPECT_EQ(test::count_rows(dir / "s.db", "SELECT COUNT(*) FROM devices"), 0);
  }
}

TEST(SpecSession, TheConfirmationKeepsToTheTimeLimit) {
  // Past the limit one round still runs (an unconfirmed best is what it prevents), no more: all
  // three ran, each finalist up to 60 s a round.
  test::TempDir dir;
  write_spec(dir, "a = [1, 2]");
  store_rows(dir / "s.db", parse_spec_file(dir / "s.toml"), {{"a=1", 0.05}, {"a=2", 0.06}});
  const auto r =
      test::run_mmtune({"tune", "--spec", dir / "s.toml", "--size", "64", "--device", "pthread",
                        "--db", dir / "s.db", "--time-limit", "0.1s", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "time-limit");
  EXPECT_EQ(j["confirm_rounds"], 1);
  EXPECT_EQ(j["evaluations"], 2) << "one round of the two finalists";
  EXPECT_FALSE(j["best"].is_null());
}

TEST(SpecSession, OneFinalistIsNoConfirmation) {
  // "--finalists (0 or 1: none)", as in a GEMM tune: a spec tune measured the one finalist, the
  // default and the stored best again in three rounds.
  test::TempDir dir;
  write_spec(dir, "a = [1, 2, 3]");
  const auto j = tune_json(dir, {"--budget", "2", "--finalists", "1"});
  EXPECT_EQ(j["evaluations"], 2);
  EXPECT_EQ(j["confirm_rounds"], 0);
}

TEST(SpecSession, ASpaceOfMillionsIsSearched) {
  // 2,000,000 valid configurations: the space is held as the strategies' numbers only.
  test::TempDir dir;
  std::string a = "a = [0", b = "b = [0";
  for (int i = 1; i < 1000; ++i) a += ", " + std::to_string(i);
  for (int i = 1; i < 2000; ++i) b += ", " + std::to_string(i);
  write_spec(dir, a + "]\n" + b + "]");
  const auto j = tune_json(dir, {"--budget", "3", "--finalists", "0"});
  EXPECT_EQ(j["configurations"], 2000000);
  EXPECT_EQ(j["evaluations"], 3);
}

TEST(SpecSession, WithoutADeviceALaunchThatCannotBeMadeIsNoConfiguration) {
  // global 64 is no multiple of a work-group of 24, and n = 40000 is no short, on any device;
  // space without --device counted both valid.
  test::TempDir dir;
  write_spec(dir, "wg = [8, 24]");
  std::ifstream in(dir / "s.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string launch = "problem = [\"n\"]\nlocal = [8]";
  text.replace(text.find(launch), launch.size(), "global = [\"n\"]\nlocal = [\"wg\"]");
  std::ofstream(dir / "s.toml") << text;
  auto r = test::run_mmtune({"space", "--spec", dir / "s.toml", "--size", "64", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["configurations"], 2);
  EXPECT_EQ(j["valid"], 1) << r.out;
  const std::string int_type = "type = \"int\"";
  text.replace(text.find(int_type), int_type.size(), "type = \"short\"");
  std::ofstream(dir / "s.toml") << text;
  r = test::run_mmtune({"space", "--spec", dir / "s.toml", "--size", "40000", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["valid"], 0) << r.out;
}

TEST(SpecSession, SizesBelow2To53AreWholeNumbers) {
  // n = 2^53 - 1 was refused as "not a whole number" (the bound was 9e15): the reason is the
  // buffer.
  test::TempDir dir;
  write_spec(dir, "p = [1]");
  auto r = test::run_mmtune({"space", "--spec", dir / "s.toml", "--size", "9007199254740991",
                             "--device", "pthread", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string reasons = nlohmann::json::parse(r.out)["excluded"].dump();
  EXPECT_NE(reasons.find("largest allocation"), std::string::npos) << reasons;
  EXPECT_EQ(reasons.find("whole number"), std::string::npos) << reasons;
  // From 2^53 on a double skips integers: said so.
  std::ifstream in(dir / "s.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("size = \"n\""), 10, "size = \"2 * n\"");
  std::ofstream(dir / "s.toml") << text;
  r = test::run_mmtune({"space", "--spec", dir / "s.toml", "--size", "9007199254740991", "--device",
                        "pthread", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  reasons = nlohmann::json::parse(r.out)["excluded"].dump();
  EXPECT_NE(reasons.find("is not below #^#, where doubles skip integers"), std::string::npos)
      << reasons;  // the JSON counts reasons with their numbers as #
  // Each such reason has an example with its numbers (the text printed only the #s).
  const std::string examples = nlohmann::json::parse(r.out)["excluded_examples"].dump();
  EXPECT_NE(examples.find("is not below 2^53, where doubles skip integers"), std::string::npos)
      << examples;
  r = test::run_mmtune(
      {"space", "--spec", dir / "s.toml", "--size", "9007199254740991", "--device", "pthread"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(e.g. "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2^53"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace mmtune
