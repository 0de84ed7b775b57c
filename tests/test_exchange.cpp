// Exchange formats: JSON export/import round trips and idempotence, CLBlast tuner files in both
// directions and the generated C++ header (hostile input: test_exchange_bad_input.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "exchange/exchange.hpp"
#include "exchange_fixture.hpp"
#include "mmtune/error.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

using namespace exchange_test;

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
  // Everything else, samples, messages and nulls included, survives unchanged, and so do
  // kernel times taken by the host's clock.
  EXPECT_EQ(comparable(exported), comparable(export_json(b)));
  EXPECT_EQ(std::count_if(exported["measurements"].begin(), exported["measurements"].end(),
                          [](const json& m) { return m.value("kernel_clock", "") == "wall"; }),
            1);
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

// A file that names its best, older than the target's confirmed one, leaves the target's in
// place even when it brings a faster single measurement of that kernel and problem.
TEST_P(ExchangeJsonTest, AnOlderFileDoesNotDisplaceANewerConfirmedBest) {
  Store a(fresh_db("a.db"));
  fill(a);
  const std::string pocl = test::pocl_device("pthread").info.key;
  const GemmProblem p = problem(256, 256, 256);
  json file = export_json(a);
  for (auto& b : file["best"]) b["updated_at"] = "2000-01-01T00:00:00Z";
  std::int64_t next_id = 0;
  for (const auto& m : file["measurements"])
    next_id = std::max(next_id, m["id"].get<std::int64_t>());
  for (const auto& m : json(file["measurements"])) {
    if (m["kernel"] != "tiled" || m["status"] != "Ok" || m["problem"]["m"] != 256) continue;
    json fast = m;
    fast["id"] = ++next_id;
    fast["measured_at"] = "2024-06-01T00:00:00Z";
    fast["median_ms"] = fast["min_ms"] = fast["max_ms"] = 0.1;
    fast["kernel_median_ms"] = 0.08;
    fast["routine_ms"] = json::array({0.1});
    fast["kernel_ms"] = json::array({0.08});
    fast["gflops"] = p.flops() / 0.1e6;
    fast["kernel_gflops"] = p.flops() / 0.08e6;
    file["measurements"].push_back(fast);
    break;
  }

  Store b(fresh_db("b.db"));
  fill(b);
  const auto fastest = b.best(pocl, p, "tiled");
  ASSERT_TRUE(fastest);
  std::optional<MeasurementRecord> confirmed;  // a confirmation's pick: not the fastest
  for (const auto& m : b.measurements(pocl, p, "tiled")) {
    if (m.result.status == Status::kOk && m.result.median_ms > fastest->median_ms) confirmed = m;
  }
  ASSERT_TRUE(confirmed);
  b.set_best(*confirmed);
  const ImportSummary s = import_text(b, file.dump(), "older.json");
  EXPECT_EQ(s.measurements_added, 1u);
  const auto kept = b.best(pocl, p, "tiled");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->median_ms, confirmed->result.median_ms);
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
    // The file names its problem: a stated one is refused, not ignored.
    EXPECT_THROW(import_file(store, path, clblast_problem()), UsageError);
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

  // A device measured here keeps its source when a CLBlast file of it is imported: its
  // clblast_xgemm rows still travel in a JSON export.
  Store measured(dir / "measured.db");
  measured.upsert_device(*d);
  import_file(measured, kFixtures + "/clblast_xgemm_12_32.json");
  Store third(dir / "third.db");
  import_text(third, export_json(measured).dump(), "export");
  EXPECT_GT(count(third, "measurements"), 0);
  EXPECT_EQ(count(third, "measurements"), count(measured, "measurements"));
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
  // The tiled best reads the caller's buffers (PACK=0), a routine CLBlast does not have: its
  // parameters went out as a packed kernel's, with the time of another kernel.
  TiledConfig unpacked = tiled(64, 16);
  unpacked.PACK = 0;
  ASSERT_TRUE(constraint_violations(unpacked).empty());
  store.add_measurement(timed(d.key, 0, unpacked, p, 1.5, "2024-01-01T00:00:03Z"));
  ASSERT_EQ(store.best(d.key, p, "tiled")->config, to_string(KernelConfig(unpacked)));

  const auto exported = export_clblast(store, d.key, p);
  EXPECT_NE(exported.note.find("is not one CLBlast's Xgemm runs"), std::string::npos);
  const std::string text = exported.file.dump(2);
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

  // A kernel time under half a microsecond keeps its digits (three decimals would write 0).
  Store fast(dir / "fast.db");
  fast.upsert_device(d);
  const GemmProblem small = problem(16, 16, 16);
  fast.add_measurement(timed(d.key, 0, best, small, 0.0004, "2024-01-01T00:00:03Z"));
  const auto fast_export = export_clblast(fast, d.key, small);
  EXPECT_EQ(fast_export.note, "");  // the best itself
  spit(dir / "fast.json", fast_export.file.dump());
  Store fast_back(dir / "fast_back.db");
  import_file(fast_back, dir / "fast.json");
  const auto tiny = fast_back.best(find_stored_device(fast_back, "").key,
                                   problem(16, 16, 16, Layout::kColMajor, false, true), "tiled");
  ASSERT_TRUE(tiny);
  EXPECT_NEAR(tiny->median_ms, 0.00032, 1e-12);
  // Its best_time too: two decimals had written "0.00", which bench --clblast-tuned ranked first.
  EXPECT_NEAR(read_clblast_tuner_best(slurp(dir / "fast.json"), "fast.json").time_ms, 0.00032,
              1e-12);
  json zero = json::parse(slurp(dir / "fast.json"));
  zero["best_time"] = "0.00";
  EXPECT_TRUE(std::isnan(read_clblast_tuner_best(zero.dump(), "zero.json").time_ms));

  // Nothing CLBlast can run: the export says so rather than write another routine's best.
  Store images(dir / "images.db");
  images.upsert_device(d);
  TiledConfig image = tiled(64, 16);
  image.IMG = 1;
  ASSERT_TRUE(constraint_violations(image).empty());
  images.add_measurement(timed(d.key, 0, image, p, 1.0, "2024-01-01T00:00:04Z"));
  try {
    export_clblast(images, d.key, p);
    ADD_FAILURE() << "exported an image kernel";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("IMG=0 PACK=1 KC=0"), std::string::npos) << e.what();
  }
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
  const std::string key = test::pocl_device("pthread").info.key;
  // A faster batched best of the same m, n, k: only a lookup with its batch finds it.
  GemmProblem batched = problem(256, 256, 256);
  batched.batch = 8;
  store.add_measurement(timed(key, 0, tiled(16, 4), batched, 0.1, "2024-01-01T00:03:00Z"));
  // A faster best without a rate (as an imported one may be): the time ranks, not the GFLOPS.
  const GemmProblem small = problem(128, 128, 128);
  store.add_measurement(timed(key, 0, tiled(32, 8), small, 2.0, "2024-01-01T00:04:00Z"));
  auto unrated = timed(key, 0, DirectConfig{}, small, 1.0, "2024-01-01T00:04:01Z");
  unrated.result.gflops = unrated.result.kernel_gflops = 0;
  store.add_measurement(unrated);
  const std::string header = export_header(store);
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
      "constexpr auto* eight = mmtune_tuned::find(\"" +
      key +
      "\", 256, 256, 256, 32, \"row\", false, false, nullptr, 8);\n"
      "static_assert(eight->batch == 8 && eight->get(\"MWG\") == 16, \"batched\");\n"
      "static_assert(mmtune_tuned::detail::equal(mmtune_tuned::find(\"" +
      key +
      "\", 128, 128, 128)->kernel, \"direct\"), \"by time\");\n"
      "static_assert(mmtune_tuned::kEntryCount == 9, \"one per device, kernel and problem\");\n";
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

}  // namespace
}  // namespace mmtune
