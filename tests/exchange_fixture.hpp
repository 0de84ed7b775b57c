// Shared by the exchange-format tests (test_exchange.cpp, test_exchange_bad_input.cpp): a store
// with two devices, three sessions and timed and failed measurements of every kernel, and what
// compares two databases.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "exchange/exchange.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune::exchange_test {

namespace fs = std::filesystem;
using json = nlohmann::json;

inline const std::string kFixtures = std::string(MMTUNE_KERNELS_DIR) + "/../tests/data/clblast";

using test::slurp;

// A Kernel Tuner cache of the recorded kernel `name` (kt:NAME): parameter a of 1 and 2, and b of
// 3 where `with_b`, at 1 and 2 ms.
inline json small_cache(const std::string& name, bool with_b = false) {
  if (!with_b) {
    return {{"device_name", "GPU"},
            {"kernel_name", name},
            {"tune_params_keys", {"a"}},
            {"tune_params", {{"a", {1, 2}}}},
            {"cache", {{"1", {{"time", 1.0}}}, {"2", {{"time", 2.0}}}}}};
  }
  return {{"device_name", "GPU"},
          {"kernel_name", name},
          {"tune_params_keys", {"a", "b"}},
          {"tune_params", {{"a", {1, 2}}, {"b", {3}}}},
          {"cache", {{"1,3", {{"time", 1.0}}}, {"2,3", {{"time", 2.0}}}}}};
}

inline void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline GemmProblem problem(std::size_t m, std::size_t n, std::size_t k,
                           Layout layout = Layout::kRowMajor, bool trans_a = false,
                           bool trans_b = false) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.layout = layout;
  p.trans_a = trans_a, p.trans_b = trans_b;
  return p;
}

inline TiledConfig tiled(int mwg, int vwm) {
  TiledConfig c;
  c.MWG = mwg, c.NWG = 64, c.KWG = 32, c.MDIMC = 4, c.NDIMC = 4, c.VWM = vwm, c.VWN = 8, c.KWI = 2;
  c.SA = 0, c.SB = 0, c.MDIMA = 4, c.NDIMB = 4;
  return c;
}

// A measurement of `c` on problem `p`, without results yet.
inline MeasurementRecord record_of(const std::string& key, std::int64_t session,
                                   const KernelConfig& c, const GemmProblem& p,
                                   const std::string& at) {
  MeasurementRecord r;
  r.device_key = key;
  r.session_id = session;
  r.kernel = kernel_name(kind_of(c));
  r.config = to_string(c);
  r.problem = p;
  r.measured_at = at;
  return r;
}

inline MeasurementRecord timed(const std::string& key, std::int64_t session, const KernelConfig& c,
                               const GemmProblem& p, double ms, const std::string& at) {
  MeasurementRecord r = record_of(key, session, c, p, at);
  r.result.median_ms = ms, r.result.min_ms = ms * 0.9, r.result.max_ms = ms * 1.2;
  r.result.kernel_median_ms = ms * 0.8;
  r.result.routine_ms = {ms * 0.9, ms, ms * 1.2};
  r.result.kernel_ms = {ms * 0.8, ms * 0.8, ms * 0.85};
  r.result.gflops = p.flops() / (ms * 1e6);
  r.result.kernel_gflops = p.flops() / (ms * 0.8e6);
  r.result.build_seconds = 0.25;
  r.result.max_error = 1e-5;
  return r;
}

inline MeasurementRecord failed(const std::string& key, std::int64_t session, const KernelConfig& c,
                                const GemmProblem& p, Status s, const std::string& at) {
  MeasurementRecord r = record_of(key, session, c, p, at);
  r.result.status = s;
  r.result.message = "line 1: error\n\tsomething \"quoted\" \x1b[31mred\x1b[0m";
  r.result.max_error = std::numeric_limits<double>::quiet_NaN();
  return r;
}

inline DeviceInfo odd_device() {
  DeviceInfo d;
  d.vendor = "Example \"Corp\"";
  d.name =
      "GPU \\ ?"
      "?= x\xc3\xa9";  // backslash, a trigraph, UTF-8
  d.driver_version = "1.2.3";
  d.type = "GPU";
  d.compute_units = 40, d.max_clock_mhz = 1500;
  d.global_mem_bytes = std::uint64_t(8) << 30, d.local_mem_bytes = 65536;
  d.max_work_group_size = 1024;
  d.key = device_key(d.vendor, d.name, d.driver_version);
  return d;
}

inline SessionRecord session(const std::string& key, const std::string& command,
                             const GemmProblem& p) {
  SessionRecord s;
  s.device_key = key;
  s.command_line = command;
  s.strategy = "model";
  s.kernels = "tiled,direct";
  s.space = "full";
  s.seed = 18446744073709551615ull;  // beyond int64: stored wrapped, exported as is
  s.budget = 160;
  s.time_limit_s = 540;
  s.problem = p;
  return s;
}

// Two devices, three sessions, timed and failed measurements of every kernel.
inline void fill(Store& store) {
  const DeviceInfo pocl = test::pocl_device("pthread").info;
  const DeviceInfo odd = odd_device();
  store.upsert_device(pocl);
  store.upsert_device(odd);
  const GemmProblem p1 = problem(256, 256, 256);
  const GemmProblem p2 = problem(100, 200, 300, Layout::kColMajor, true, false);
  const auto s1 = store.begin_session(session(pocl.key, "mmtune --device 0 --n 256", p1));
  const auto s2 = store.begin_session(session(pocl.key, "mmtune --m 100 --n 200 --k 300", p2));
  const auto s3 = store.begin_session(session(odd.key, "mmtune --device 1 --n 256", p1));
  store.end_session(s1, "completed");
  store.end_session(s3, "interrupted");  // s2 stays "running", without an end
  store.add_measurement(timed(pocl.key, s1, tiled(64, 16), p1, 2.0, "2024-01-01T00:00:01Z"));
  store.add_measurement(timed(pocl.key, s1, tiled(32, 8), p1, 3.0, "2024-01-01T00:00:02Z"));
  store.add_measurement(timed(pocl.key, s1, tiled(32, 8), p1, 1.5, "2024-01-01T00:00:03Z"));
  store.add_measurement(timed(pocl.key, s1, DirectConfig{}, p1, 2.5, "2024-01-01T00:00:04Z"));
  store.add_measurement(timed(pocl.key, s1, NaiveConfig{}, p1, 9.0, "2024-01-01T00:00:05Z"));
  store.add_measurement(timed(pocl.key, s1, ClassicConfig{16}, p1, 6.0, "2024-01-01T00:00:06Z"));
  store.add_measurement(
      failed(pocl.key, s1, tiled(64, 8), p1, Status::kBuildFailed, "2024-01-01T00:00:07Z"));
  store.add_measurement(
      failed(pocl.key, s1, tiled(32, 4), p1, Status::kWrongResult, "2024-01-01T00:00:08Z"));
  auto slower = timed(pocl.key, s1, tiled(16, 4), p1, 30.0, "2024-01-01T00:00:09Z");
  slower.result.status = Status::kSlowerEarlyStop;
  store.add_measurement(slower);
  store.add_measurement(timed(pocl.key, s2, tiled(64, 16), p2, 0.7, "2024-01-01T00:01:00Z"));
  store.add_measurement(
      failed(pocl.key, s2, DirectConfig{}, p2, Status::kTimeout, "2024-01-01T00:01:01Z"));
  store.add_measurement(timed(pocl.key, 0, tiled(64, 8), p2, 0.6, "2024-01-01T00:01:02Z"));
  auto by_wall_clock = timed(odd.key, s3, tiled(64, 16), p1, 0.25, "2024-01-01T00:02:00Z");
  by_wall_clock.result.kernel_wall_clock = true;  // the device's event timestamps were unusable
  store.add_measurement(by_wall_clock);
  store.add_measurement(
      failed(odd.key, s3, tiled(32, 8), p1, Status::kCrashed, "2024-01-01T00:02:01Z"));
}

inline std::int64_t count(Store& store, const std::string& table) {
  auto q = store.db().prepare("SELECT COUNT(*) FROM " + table);  // table names are constants
  q.step();
  return q.integer(0);
}

// The export without what legitimately differs between databases.
inline json comparable(json j) {
  j.erase("exported_at");
  for (auto& d : j["devices"]) d.erase("source");
  for (auto& b : j["best"]) b.erase("updated_at");
  return j;
}

// Everything a database holds, to check that a rejected import changed nothing.
inline std::string snapshot(Store& store) {
  json j = export_json(store);
  j.erase("exported_at");
  return j.dump();
}
}  // namespace mmtune::exchange_test
