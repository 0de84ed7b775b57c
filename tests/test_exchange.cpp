// Exchange formats: JSON export/import round trips and idempotence, CLBlast tuner files in both
// directions, the generated C++ header, and hostile or malformed input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "exchange/exchange.hpp"
#include "mmtune/error.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string kFixtures = std::string(MMTUNE_KERNELS_DIR) + "/../tests/data/clblast";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

GemmProblem problem(std::size_t m, std::size_t n, std::size_t k, Layout layout = Layout::kRowMajor,
                    bool trans_a = false, bool trans_b = false) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.layout = layout;
  p.trans_a = trans_a, p.trans_b = trans_b;
  return p;
}

TiledConfig tiled(int mwg, int vwm) {
  TiledConfig c;
  c.MWG = mwg, c.NWG = 64, c.KWG = 32, c.MDIMC = 4, c.NDIMC = 4, c.VWM = vwm, c.VWN = 8, c.KWI = 2;
  c.SA = 0, c.SB = 0, c.MDIMA = 4, c.NDIMB = 4;
  return c;
}

// A measurement of `c` on problem `p`, without results yet.
MeasurementRecord record_of(const std::string& key, std::int64_t session, const KernelConfig& c,
                            const GemmProblem& p, const std::string& at) {
  MeasurementRecord r;
  r.device_key = key;
  r.session_id = session;
  r.kernel = kernel_name(kind_of(c));
  r.config = to_string(c);
  r.problem = p;
  r.measured_at = at;
  return r;
}

MeasurementRecord timed(const std::string& key, std::int64_t session, const KernelConfig& c,
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

MeasurementRecord failed(const std::string& key, std::int64_t session, const KernelConfig& c,
                         const GemmProblem& p, Status s, const std::string& at) {
  MeasurementRecord r = record_of(key, session, c, p, at);
  r.result.status = s;
  r.result.message = "line 1: error\n\tsomething \"quoted\" \x1b[31mred\x1b[0m";
  r.result.max_error = std::numeric_limits<double>::quiet_NaN();
  return r;
}

DeviceInfo odd_device() {
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

SessionRecord session(const std::string& key, const std::string& command, const GemmProblem& p) {
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
void fill(Store& store) {
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
  store.add_measurement(timed(odd.key, s3, tiled(64, 16), p1, 0.25, "2024-01-01T00:02:00Z"));
  store.add_measurement(
      failed(odd.key, s3, tiled(32, 8), p1, Status::kCrashed, "2024-01-01T00:02:01Z"));
}

std::int64_t count(Store& store, const std::string& table) {
  auto q = store.db().prepare("SELECT COUNT(*) FROM " + table);  // table names are constants
  q.step();
  return q.integer(0);
}

// The export without what legitimately differs between databases.
json comparable(json j) {
  j.erase("exported_at");
  for (auto& d : j["devices"]) d.erase("source");
  for (auto& b : j["best"]) b.erase("updated_at");
  return j;
}

// Everything a database holds, to check that a rejected import changed nothing.
std::string snapshot(Store& store) {
  json j = export_json(store);
  j.erase("exported_at");
  return j.dump();
}

// Into a database of each backend: a SQLite file's results move to a PostgreSQL server (and back
// out of it) unchanged.
class ExchangeJsonTest : public test::BackendTest {};
MMTUNE_INSTANTIATE_BACKENDS(ExchangeJsonTest);

TEST_P(ExchangeJsonTest, RoundTripPreservesEverythingAndTheBests) {
  Store a(dir / "a.db");
  fill(a);
  const json exported = export_json(a);
  EXPECT_EQ(exported["format"], "mmtune-export");
  EXPECT_EQ(exported["version"], 1);
  EXPECT_EQ(exported["devices"].size(), 2u);
  EXPECT_EQ(exported["sessions"].size(), 3u);
  EXPECT_EQ(exported["measurements"].size(), 14u);
  spit(dir / "export.json", exported.dump(2));

  Store b(fresh_db("b.db"));
  const ImportSummary s = import_file(b, dir / "export.json");
  EXPECT_EQ(s.format, "mmtune-export");
  EXPECT_EQ(s.devices_added, 2u);
  EXPECT_EQ(s.sessions_added, 3u);
  EXPECT_EQ(s.measurements_added, 14u);
  EXPECT_EQ(s.measurements_known, 0u);
  for (const char* table : {"devices", "sessions", "measurements", "best"}) {
    EXPECT_EQ(count(a, table), count(b, table)) << table;
  }

  const std::string pocl = test::pocl_device("pthread").info.key;
  const std::string odd = odd_device().key;
  for (const auto& key : {pocl, odd}) {
    for (const auto& p :
         {problem(256, 256, 256), problem(100, 200, 300, Layout::kColMajor, true, false)}) {
      for (const char* kernel : {"", "tiled", "direct", "naive", "classic"}) {
        const auto x = a.best(key, p, kernel), y = b.best(key, p, kernel);
        ASSERT_EQ(x.has_value(), y.has_value()) << key << " " << describe(p) << " " << kernel;
        if (!x) continue;
        EXPECT_EQ(x->kernel, y->kernel);
        EXPECT_EQ(x->config, y->config);
        EXPECT_EQ(x->median_ms, y->median_ms);
        EXPECT_EQ(x->gflops, y->gflops);
        EXPECT_EQ(x->kernel_gflops, y->kernel_gflops);
        EXPECT_EQ(x->measurement_id, y->measurement_id);
        EXPECT_EQ(x->session_id, y->session_id);
      }
    }
  }
  const auto best = b.best(pocl, problem(256, 256, 256));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config, to_string(tiled(32, 8)));
  EXPECT_EQ(best->median_ms, 1.5);
  // Everything else, samples, messages and nulls included, survives unchanged.
  EXPECT_EQ(comparable(exported), comparable(export_json(b)));
  EXPECT_EQ(b.device(odd)->name, odd_device().name);
  auto q = b.db().prepare("SELECT source FROM devices ORDER BY id");
  while (q.step()) EXPECT_EQ(q.text(0), "imported:mmtune");
}

// A best that is not the fastest measurement (a tune's confirmation chose it) is carried by the
// export; an import applies it unless the target's own best is as new or newer.
TEST_P(ExchangeJsonTest, AConfirmedBestThatIsNotTheFastestSurvivesTheRoundTrip) {
  Store a(fresh_db("a.db"));
  fill(a);
  const std::string pocl = test::pocl_device("pthread").info.key;
  const GemmProblem p = problem(256, 256, 256);
  const auto fastest = a.best(pocl, p, "tiled");
  ASSERT_TRUE(fastest);
  std::optional<MeasurementRecord> slower;
  for (const auto& m : a.measurements(pocl, p, "tiled")) {
    if (m.result.status == Status::kOk && m.result.median_ms > fastest->median_ms) slower = m;
  }
  ASSERT_TRUE(slower);
  a.set_best(*slower);
  spit(dir / "export.json", export_json(a).dump());

  Store b(fresh_db("b.db"));
  import_file(b, dir / "export.json");
  auto got = b.best(pocl, p, "tiled");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->config, slower->config);
  EXPECT_EQ(got->median_ms, slower->result.median_ms);

  // b then settles on its fastest again; the same file, older than that, does not undo it.
  for (const auto& m : b.measurements(pocl, p, "tiled")) {
    if (m.result.median_ms == fastest->median_ms) b.set_best(m);
  }
  import_file(b, dir / "export.json");
  EXPECT_EQ(b.best(pocl, p, "tiled")->median_ms, fastest->median_ms);
}

TEST_P(ExchangeJsonTest, ImportingTwiceOrIntoTheSourceAddsNothing) {
  Store a(fresh_db("a.db"));
  fill(a);
  spit(dir / "export.json", export_json(a).dump());
  const std::string before = snapshot(a);
  const ImportSummary back = import_file(a, dir / "export.json");
  EXPECT_EQ(back.devices_added + back.sessions_added + back.measurements_added, 0u);
  EXPECT_EQ(back.measurements_known, 14u);
  EXPECT_EQ(snapshot(a), before);

  Store b(fresh_db("b.db"));
  import_file(b, dir / "export.json");
  const std::string once = snapshot(b);
  const ImportSummary again = import_file(b, dir / "export.json");
  EXPECT_EQ(again.devices_added + again.sessions_added + again.measurements_added, 0u);
  EXPECT_EQ(again.devices_known, 2u);
  EXPECT_EQ(again.sessions_known, 3u);
  EXPECT_EQ(snapshot(b), once);
}

TEST(ExchangeJson, OneDeviceAndItsRowsOnly) {
  test::TempDir dir;
  Store a(dir / "a.db");
  fill(a);
  const DeviceInfo odd = find_stored_device(a, "gpu \\");  // part of the name, any case
  EXPECT_EQ(odd.key, odd_device().key);
  EXPECT_EQ(find_stored_device(a, odd.key).key, odd.key);
  EXPECT_THROW(find_stored_device(a, ""), UsageError);  // two devices
  EXPECT_THROW(find_stored_device(a, "no such device"), UsageError);
  const json j = export_json(a, odd.key);
  ASSERT_EQ(j["devices"].size(), 1u);
  EXPECT_EQ(j["devices"][0]["key"], odd.key);
  EXPECT_EQ(j["sessions"].size(), 1u);
  EXPECT_EQ(j["measurements"].size(), 2u);
  EXPECT_EQ(j["best"].size(), 1u);
  for (const auto& m : j["measurements"]) EXPECT_EQ(m["device_key"], odd.key);
}

// ---- CLBlast --------------------------------------------------------------------------------

GemmProblem clblast_problem() {
  return problem(1024, 1024, 1024, Layout::kColMajor, false, true);
}

TEST(ExchangeClblast, FixturesImportUnderAnImportedDevice) {
  test::TempDir dir;
  Store store(dir / "t.db");
  const std::string expected_key =
      device_key("AuthenticAMD", "skylake-avx512-AMD EPYC", "3.1+debian");
  std::int64_t total = 0;
  for (const char* file :
       {"clblast_xgemm_1_32.json", "clblast_xgemm_11_32.json", "clblast_xgemm_12_32.json"}) {
    SCOPED_TRACE(file);
    const std::string path = kFixtures + "/" + file;
    const json raw = json::parse(slurp(path));
    const ImportSummary s = import_file(store, path);
    EXPECT_EQ(s.format, "clblast");
    EXPECT_EQ(s.sessions_added, 1u);
    EXPECT_EQ(s.measurements_added, raw["results"].size());
    total += std::int64_t(raw["results"].size());
    // Its session holds every result of the file.
    auto q = store.db().prepare(
        "SELECT COUNT(*), MIN(s.strategy), MIN(s.command_line) FROM measurements m "
        "JOIN sessions s ON s.id = m.session_id WHERE instr(s.command_line, ?) > 0");
    q.bind(1, "(imported from " + std::string(file) + ")");
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.integer(0), std::int64_t(raw["results"].size()));
    EXPECT_EQ(q.text(1), "clblast_tuner_xgemm");

    const bool gemmk0 = raw["kernel_family"] == "xgemm_1";
    const auto best =
        store.best(expected_key, clblast_problem(), gemmk0 ? "tiled" : kClblastKernel);
    ASSERT_TRUE(best);
    if (gemmk0) {
      // Every xgemm_1 result lies in the tiled space; the best is the file's.
      std::map<std::string, int> params;
      for (const auto& [name, value] : raw["results"][0]["parameters"].items()) {
        params[name] = value.get<int>();
      }
      const auto mapped = tiled_from_clblast(params);
      ASSERT_TRUE(mapped);
      EXPECT_EQ(best->config, to_string(KernelConfig(*mapped)));
      EXPECT_EQ(mapped->MWG, 64);
      EXPECT_EQ(mapped->MDIMC, 16);
      EXPECT_EQ(mapped->VWN, 4);
      EXPECT_NEAR(best->median_ms, std::stod(raw["best_time"].get<std::string>()), 0.01);
      EXPECT_NEAR(best->gflops, 2.0 * 1024 * 1024 * 1024 / (best->median_ms * 1e6), 1e-9);
      EXPECT_EQ(store.measurements(expected_key, clblast_problem(), "tiled").size(),
                raw["results"].size());
    } else {
      // GEMMK=1 has no tiled counterpart: kept with CLBlast's own parameters.
      EXPECT_EQ(best->config, raw["best_parameters"]);
      EXPECT_NEAR(best->median_ms, std::stod(raw["best_time"].get<std::string>()), 0.01);
    }
  }
  EXPECT_EQ(count(store, "measurements"), total);
  EXPECT_EQ(count(store, "devices"), 1);
  const auto d = store.device(expected_key);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->vendor, "AuthenticAMD");
  EXPECT_EQ(d->name, "skylake-avx512-AMD EPYC");
  EXPECT_EQ(d->driver_version, "3.1+debian");
  EXPECT_EQ(d->type, "CPU");
  EXPECT_EQ(d->compute_units, 2u);
  EXPECT_EQ(d->max_clock_mhz, 2596u);
  auto q = store.db().prepare("SELECT source FROM devices WHERE key = ?");
  q.bind(1, expected_key);
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.text(0), "imported:clblast");

  // Importing again adds nothing, and a JSON export of it imports elsewhere (clblast_xgemm kept).
  const std::string before = snapshot(store);
  for (const char* file : {"clblast_xgemm_1_32.json", "clblast_xgemm_12_32.json"}) {
    const ImportSummary s = import_file(store, kFixtures + "/" + file);
    EXPECT_EQ(s.devices_added + s.sessions_added + s.measurements_added, 0u);
  }
  EXPECT_EQ(snapshot(store), before);
  Store other(dir / "other.db");
  import_text(other, export_json(store).dump(), "export");
  EXPECT_EQ(count(other, "measurements"), total);
}

TEST(ExchangeClblast, DriverVersionAndMapping) {
  EXPECT_EQ(clblast_driver_version("OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts"),
            "3.1+debian");
  EXPECT_EQ(clblast_driver_version("OpenCL 3.0 CUDA 12.2.138"), "12.2.138");
  EXPECT_EQ(clblast_driver_version("OpenCL 2.1 AMD-APP (3513.0)"), "3513.0");
  EXPECT_EQ(clblast_driver_version("something else"), "something else");
  std::map<std::string, int> p = {
      {"GEMMK", 0}, {"KREG", 1},  {"KWG", 32},  {"KWI", 2},  {"MDIMA", 8},      {"MDIMC", 8},
      {"MWG", 64},  {"NDIMB", 8}, {"NDIMC", 8}, {"NWG", 64}, {"PRECISION", 32}, {"SA", 1},
      {"SB", 1},    {"STRM", 0},  {"STRN", 0},  {"VWM", 4},  {"VWN", 4}};
  ASSERT_TRUE(tiled_from_clblast(p));
  p["GEMMK"] = 1;
  EXPECT_FALSE(tiled_from_clblast(p));
  p["GEMMK"] = 0;
  p["MWG"] = 48;  // outside our value set
  EXPECT_FALSE(tiled_from_clblast(p));
  p["MWG"] = 64;
  p["SA"] = 0, p["MDIMA"] = 32;  // unused without SA: pinned, the same kernel
  const auto pinned = tiled_from_clblast(p);
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->MDIMA, 8);
}

TEST(ExchangeClblast, ExportReadsBackAndImports) {
  test::TempDir dir;
  Store store(dir / "t.db");
  const DeviceInfo d = odd_device();
  store.upsert_device(d);
  const GemmProblem p = problem(512, 256, 128);
  EXPECT_THROW(export_clblast(store, d.key, p), UsageError);  // nothing stored yet
  TiledConfig best = tiled(64, 16);
  best.SB = 1, best.NDIMB = 8;
  ASSERT_TRUE(constraint_violations(best).empty());
  store.add_measurement(timed(d.key, 0, tiled(32, 8), p, 4.0, "2024-01-01T00:00:00Z"));
  store.add_measurement(timed(d.key, 0, best, p, 2.0, "2024-01-01T00:00:01Z"));
  store.add_measurement(timed(d.key, 0, DirectConfig{}, p, 1.0, "2024-01-01T00:00:02Z"));

  const std::string text = export_clblast(store, d.key, p).dump(2);
  const json j = json::parse(text);
  EXPECT_EQ(j["kernel_family"], "xgemm_1");
  EXPECT_EQ(j["best_kernel"], "Xgemm");
  EXPECT_EQ(j["precision"], "32");
  EXPECT_EQ(j["best_parameters"],
            "GEMMK=0 KREG=1 KWG=32 KWI=2 MDIMA=4 MDIMC=4 MWG=64 NDIMB=8 NDIMC=4 NWG=64 "
            "PRECISION=32 SA=0 SB=1 STRM=0 STRN=0 VWM=16 VWN=8");
  EXPECT_EQ(j["best_time"], "1.60");  // the kernel alone: 0.8 x the routine's 2.0 ms
  // Row-major 512x256 is the column-major 256x512 problem.
  EXPECT_EQ(j["arg_m"], "256");
  EXPECT_EQ(j["arg_n"], "512");
  EXPECT_EQ(j["arg_k"], "128");
  EXPECT_EQ(j["device_vendor"], d.vendor);
  EXPECT_EQ(j["clblast_device_name"], d.name);
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["parameters"]["MWG"], 64);
  EXPECT_EQ(j["results"][0]["parameters"]["GEMMK"], 0);

  // CLBlast's layout is what our importer reads: the same tiled configuration comes back.
  spit(dir / "clblast.json", text);
  Store other(dir / "other.db");
  import_file(other, dir / "clblast.json");
  const DeviceInfo imported = find_stored_device(other, "");
  const auto back =
      other.best(imported.key, problem(256, 512, 128, Layout::kColMajor, false, true), "tiled");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->config, to_string(KernelConfig(best)));
  EXPECT_NEAR(back->median_ms, 1.6, 1e-9);
}

// ---- header ---------------------------------------------------------------------------------

bool have_compiler() {
  return std::system("command -v c++ > /dev/null 2>&1") == 0;
}

int compile(const test::TempDir& dir, const std::string& header, const std::string& checks) {
  spit(dir / "tuned.hpp", header);
  spit(dir / "check.cpp", "#include \"tuned.hpp\"\n" + checks + "\nint main() { return 0; }\n");
  const std::string cmd = "c++ -std=c++17 -fsyntax-only -Wall -Wextra -Wpedantic -Werror '" +
                          (dir / "check.cpp") + "' > '" + (dir / "log.txt") + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  if (rc != 0) ADD_FAILURE() << slurp(dir / "log.txt");
  return rc;
}

TEST(ExchangeHeader, CompilesAndHoldsTheStoredBest) {
  if (!have_compiler()) GTEST_SKIP() << "no c++ on PATH";
  test::TempDir dir;
  Store store(dir / "t.db");
  fill(store);
  const std::string header = export_header(store);
  const std::string key = test::pocl_device("pthread").info.key;
  const std::string odd = odd_device().key;
  EXPECT_NE(header.find(key), std::string::npos);
  EXPECT_NE(header.find("{\"MWG\", 32}"), std::string::npos);
  EXPECT_EQ(header.find("#include <string>"), std::string::npos);
  // The compiler checks the table itself: the bests as the store reports them (a null entry
  // fails to compile when dereferenced).
  const TiledConfig b = tiled(32, 8);
  const std::string checks =
      "constexpr auto* e = mmtune_tuned::find(\"" + key + "\", 256, 256, 256);\n" +
      "static_assert(mmtune_tuned::detail::equal(e->kernel, \"tiled\"), \"kernel\");\n"
      "static_assert(e->get(\"MWG\") == " +
      std::to_string(b.MWG) +
      ", \"MWG\");\n"
      "static_assert(e->get(\"VWM\") == " +
      std::to_string(b.VWM) +
      ", \"VWM\");\n"
      "static_assert(e->get(\"NOPE\") == -1, \"absent\");\n"
      "static_assert(e->gflops > " +
      std::to_string(int(2.0 * 256 * 256 * 256 / 1.5e6)) +
      " - 1, \"gflops\");\n"
      "constexpr auto* d = mmtune_tuned::find(\"" +
      key +
      "\", 256, 256, 256, 32, \"row\", "
      "false, false, \"direct\");\n"
      "static_assert(d->parameter_count == 10, \"direct\");\n"
      "constexpr auto* c = mmtune_tuned::find(\"" +
      key +
      "\", 100, 200, 300, 32, \"col\", true, "
      "false);\n"
      "static_assert(c->get(\"VWM\") == 8, \"second problem\");\n"
      "static_assert(mmtune_tuned::find(\"" +
      key +
      "\", 256, 256, 257) == nullptr, \"none\");\n"
      "constexpr auto* o = mmtune_tuned::find(\"" +
      odd +
      "\", 256, 256, 256);\n"
      "static_assert(o->name[0] == 'G' && o->vendor[8] == '\"', \"escaped\");\n"
      "static_assert(mmtune_tuned::kEntryCount == 6, \"one per device, kernel and problem\");\n";
  EXPECT_EQ(compile(dir, header, checks), 0);

  // One device only, and an empty table, compile too.
  EXPECT_EQ(compile(dir, export_header(store, odd),
                    "static_assert(mmtune_tuned::kEntryCount == 1, \"one\");"),
            0);
  Store empty(dir / "empty.db");
  EXPECT_EQ(compile(dir, export_header(empty),
                    "static_assert(mmtune_tuned::find(\"x\", 1, 1, 1) == nullptr, \"empty\");"),
            0);
}

// ---- hostile and malformed input ------------------------------------------------------------

json valid_export() {
  json j = json::parse(R"({
    "format": "mmtune-export", "version": 1,
    "devices": [{"key": "00112233aabbccdd", "vendor": "V", "name": "N", "driver_version": "1",
                 "platform": "P", "platform_version": "PV", "device_version": "DV",
                 "opencl_c_version": "C", "type": "GPU", "compute_units": 1,
                 "max_clock_mhz": 1, "global_mem_bytes": 1, "local_mem_bytes": 1,
                 "max_work_group_size": 256, "source": "measured"}],
    "sessions": [{"id": 7, "device_key": "00112233aabbccdd", "command_line": "mmtune",
                  "strategy": "model", "kernels": "tiled", "space": "full", "seed": 1,
                  "budget": 10, "time_limit_s": 60,
                  "problem": {"m": 64, "n": 64, "k": 64, "precision": 32, "layout": "row",
                              "trans_a": false, "trans_b": false},
                  "started_at": "2024-01-01T00:00:00Z", "ended_at": null, "outcome": "completed"}],
    "measurements": [
      {"session": 7, "device_key": "00112233aabbccdd", "kernel": "classic", "config": "TILE=16",
       "problem": {"m": 64, "n": 64, "k": 64, "precision": 32, "layout": "row",
                   "trans_a": false, "trans_b": false},
       "status": "Ok", "message": "", "build_s": 0.1, "median_ms": 1.0, "min_ms": 1.0,
       "max_ms": 1.0, "kernel_median_ms": 1.0, "gflops": 0.5, "kernel_gflops": 0.5,
       "max_error": null, "routine_ms": [1.0], "kernel_ms": [1.0],
       "measured_at": "2024-01-01T00:00:01Z"},
      {"session": null, "device_key": "00112233aabbccdd", "kernel": "tiled",
       "config": "set below",
       "problem": {"m": 64, "n": 64, "k": 64, "precision": 32, "layout": "row",
                   "trans_a": false, "trans_b": false},
       "status": "BuildFailed", "message": "log", "build_s": 0.1, "median_ms": null,
       "min_ms": null, "max_ms": null, "kernel_median_ms": null, "gflops": null,
       "kernel_gflops": null, "max_error": null, "routine_ms": [], "kernel_ms": [],
       "measured_at": "2024-01-01T00:00:02Z"}],
    "best": []})");
  j["measurements"][1]["config"] = to_string(TiledConfig{});
  return j;
}

TEST(ExchangeBadInput, TheValidSampleImports) {
  test::TempDir dir;
  Store store(dir / "t.db");
  const ImportSummary s = import_text(store, valid_export().dump(), "sample");
  EXPECT_EQ(s.measurements_added, 2u);
  EXPECT_EQ(count(store, "best"), 1);
}

TEST(ExchangeBadInput, EachIsRejectedAndLeavesTheDatabaseUnchanged) {
  test::TempDir dir;
  Store store(dir / "t.db");
  fill(store);
  const std::string before = snapshot(store);
  const auto fixture = [](const char* name) { return json::parse(slurp(kFixtures + "/" + name)); };

  std::vector<std::pair<std::string, std::string>> cases;  // what, text
  const auto edited = [&](const std::string& what, auto edit) {
    json j = valid_export();
    edit(j);
    cases.emplace_back(what, j.dump());
  };
  const auto clblast = [&](const std::string& what, auto edit) {
    json j = fixture("clblast_xgemm_1_32.json");
    edit(j);
    cases.emplace_back(what, j.dump());
  };
  const std::string good = valid_export().dump();
  cases.emplace_back("truncated", good.substr(0, good.size() / 2));
  cases.emplace_back("truncated by one", good.substr(0, good.size() - 1));
  cases.emplace_back("empty", "");
  cases.emplace_back("not JSON", "this is not JSON\n");
  cases.emplace_back("binary", std::string("\x7f"
                                           "ELF\x02\x01\x01\0\0\0",
                                           10));
  cases.emplace_back("deep arrays", std::string(100000, '['));
  cases.emplace_back("deep arrays, closed", std::string(100000, '[') + std::string(100000, ']'));
  std::string objects;
  for (int i = 0; i < 20000; ++i) objects += "{\"a\":";
  cases.emplace_back("deep objects", objects);
  cases.emplace_back("array at the top", "[1, 2, 3]");
  cases.emplace_back("unknown object", R"({"hello": "world"})");
  edited("format", [](json& j) { j["format"] = "something-else"; });
  edited("version 2", [](json& j) { j["version"] = 2; });
  edited("version as text", [](json& j) { j["version"] = "1"; });
  edited("devices not an array", [](json& j) { j["devices"] = json::object(); });
  edited("size as text", [](json& j) { j["measurements"][0]["problem"]["m"] = "64"; });
  edited("size as float", [](json& j) { j["measurements"][0]["problem"]["m"] = 64.5; });
  edited("negative size", [](json& j) { j["measurements"][0]["problem"]["m"] = -64; });
  edited("zero size", [](json& j) { j["sessions"][0]["problem"]["k"] = 0; });
  edited("huge size", [](json& j) { j["measurements"][0]["problem"]["n"] = 1e15; });
  edited("problem too large", [](json& j) {
    j["measurements"][0]["problem"]["m"] = 1 << 20;
    j["measurements"][0]["problem"]["n"] = 1 << 20;
  });
  edited("bad precision", [](json& j) { j["measurements"][0]["problem"]["precision"] = 8; });
  edited("bad layout", [](json& j) { j["measurements"][0]["problem"]["layout"] = "diagonal"; });
  edited("trans as int", [](json& j) { j["measurements"][0]["problem"]["trans_a"] = 1; });
  edited("unknown kernel", [](json& j) { j["measurements"][0]["kernel"] = "evil"; });
  edited("clblast kernel on a measured device",
         [](json& j) { j["measurements"][0]["kernel"] = "clblast_xgemm"; });
  edited("unknown parameter", [](json& j) { j["measurements"][0]["config"] = "TILE=16 FOO=1"; });
  edited("injected option", [](json& j) { j["measurements"][0]["config"] = "TILE=16 -DEVIL=1"; });
  edited("injected value", [](json& j) {
    j["measurements"][1]["config"] =
        "MWG=64 -DEVIL=1 NWG=64 KWG=16 MDIMC=8 NDIMC=8 MDIMA=8 NDIMB=8 KWI=2 VWM=4 VWN=4 STRM=0 "
        "STRN=0 SA=1 SB=1";
  });
  edited("value outside its set", [](json& j) { j["measurements"][0]["config"] = "TILE=17"; });
  edited("config as number", [](json& j) { j["measurements"][0]["config"] = 16; });
  edited("unknown status", [](json& j) { j["measurements"][0]["status"] = "Great"; });
  edited("negative time", [](json& j) { j["measurements"][0]["median_ms"] = -1.0; });
  edited("timed without median", [](json& j) { j["measurements"][0]["median_ms"] = nullptr; });
  edited("sample as text",
         [](json& j) { j["measurements"][0]["routine_ms"] = json::array({"1.0"}); });
  edited("unknown device", [](json& j) { j["measurements"][0]["device_key"] = "ffff"; });
  edited("unknown session", [](json& j) { j["measurements"][0]["session"] = 8; });
  edited("duplicate device", [](json& j) { j["devices"].push_back(j["devices"][0]); });
  edited("bad key", [](json& j) { j["devices"][0]["key"] = "a b"; });
  edited("bad source", [](json& j) { j["devices"][0]["source"] = "IMPORTED"; });
  edited("control character", [](json& j) { j["devices"][0]["name"] = "GPU\x1b[2J"; });
  edited("long command line",
         [](json& j) { j["sessions"][0]["command_line"] = std::string(100000, 'x'); });
  edited("missing field", [](json& j) { j["measurements"][0].erase("measured_at"); });
  edited("negative seed", [](json& j) { j["sessions"][0]["seed"] = -1; });
  edited("best not an array", [](json& j) { j["best"] = 1; });
  clblast("clblast unknown parameter", [](json& j) { j["results"][1]["parameters"]["EVIL"] = 1; });
  clblast("clblast renamed parameter", [](json& j) {
    j["results"][1]["parameters"].erase("MWG");
    j["results"][1]["parameters"]["-DMWG"] = 64;
  });
  clblast("clblast parameter as text",
          [](json& j) { j["results"][1]["parameters"]["MWG"] = "64 -DEVIL=1"; });
  clblast("clblast negative parameter",
          [](json& j) { j["results"][1]["parameters"]["MWG"] = -64; });
  clblast("clblast negative time", [](json& j) { j["results"][2]["time"] = -3.0; });
  clblast("clblast time as text", [](json& j) { j["results"][2]["time"] = "3.0"; });
  clblast("clblast negative size", [](json& j) { j["arg_m"] = "-1024"; });
  clblast("clblast size not a number", [](json& j) { j["arg_n"] = "1024x"; });
  clblast("clblast complex precision", [](json& j) { j["precision"] = "3232"; });
  clblast("clblast precision mismatch",
          [](json& j) { j["results"][0]["parameters"]["PRECISION"] = 64; });
  clblast("clblast other family", [](json& j) { j["kernel_family"] = "xgemm_direct_1"; });
  clblast("clblast results not an array", [](json& j) { j["results"] = "none"; });
  clblast("clblast best parameters", [](json& j) { j["best_parameters"] = "MWG=64 FOO=1"; });
  clblast("clblast no device", [](json& j) {
    j.erase("clblast_device_name");
    j.erase("device");
  });

  for (const auto& [what, text] : cases) {
    SCOPED_TRACE(what);
    try {
      import_text(store, text, "input.json", "2024-01-01T00:00:00Z");
      ADD_FAILURE() << "accepted";
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;  // one line
      EXPECT_NE(msg.find("input.json"), std::string::npos) << msg;
    }
    EXPECT_EQ(snapshot(store), before);
  }
}

TEST(ExchangeBadInput, FilesThatCannotBeRead) {
  test::TempDir dir;
  Store store(dir / "t.db");
  EXPECT_THROW(import_file(store, dir / "missing.json"), UsageError);
  EXPECT_THROW(import_file(store, dir.path), UsageError);  // a directory
  {
    std::ofstream(dir / "huge.json").put('{');
    fs::resize_file(dir / "huge.json", kMaxImportBytes + 1);  // sparse: nothing is written
  }
  try {
    import_file(store, dir / "huge.json");
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("MiB"), std::string::npos) << e.what();
  }
  EXPECT_EQ(count(store, "devices"), 0);
}

TEST(ExchangeBadInput, AFailureWhileStoringRollsEverythingBack) {
  test::TempDir dir;
  Store store(dir / "t.db");
  fill(store);
  const std::string before = snapshot(store);
  ImportData data = read_mmtune_export(valid_export());
  data.measurements.back().device_key = "not-in-the-data";  // found only while storing
  EXPECT_THROW(store_import(store, data), UsageError);
  EXPECT_EQ(snapshot(store), before);
}

}  // namespace
}  // namespace mmtune
