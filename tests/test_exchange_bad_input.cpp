// Exchange formats against hostile or malformed input: every rejected file is one line naming it,
// and the database is left as it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "exchange/exchange.hpp"
#include "exchange_fixture.hpp"
#include "mmtune/error.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

using namespace exchange_test;

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
       "max_ms": 1.0, "kernel_median_ms": 1.0, "gflops": 0.524288, "kernel_gflops": 0.524288,
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
  // A MeasurementError keeps the figure it was refused for (above any device's peak): what
  // mmtune stored, it imports back.
  json refused = valid_export();
  refused["measurements"][0]["status"] = "MeasurementError";
  refused["measurements"][0]["kernel_gflops"] = 5e7;
  refused["measurements"][0]["measured_at"] = "2024-01-01T00:00:03Z";
  EXPECT_EQ(import_text(store, refused.dump(), "refused").measurements_added, 1u);
  // A timeout with the limit as its time, as the evaluator stores it, and a user's kernel's
  // byte rate.
  json timeout = valid_export();
  timeout["measurements"][0]["status"] = "Timeout";
  timeout["measurements"][0]["measured_at"] = "2024-01-01T00:00:04Z";
  EXPECT_EQ(import_text(store, timeout.dump(), "timeout").measurements_added, 1u);
  // A run that failed part-way keeps its samples, with zero figures (the runners).
  json partial = valid_export();
  partial["measurements"][0]["status"] = "LaunchFailed";
  for (const char* key : {"median_ms", "min_ms", "max_ms", "gflops", "kernel_gflops"}) {
    partial["measurements"][0][key] = 0.0;
  }
  partial["measurements"][0]["measured_at"] = "2024-01-01T00:00:06Z";
  EXPECT_EQ(import_text(store, partial.dump(), "partial").measurements_added, 1u);
  json spec = valid_export();
  spec["measurements"][0]["kernel"] = "spec:copy:0123456789abcdef";
  spec["measurements"][0]["config"] = "wg=64";
  spec["measurements"][0]["gbps"] = 2.7e6;  // a naive count of a GEMM's traffic at 0.2 ms
  // A spec's sizes, not a GEMM's: a reduction of 2^40 elements (GEMM's limits refused 2^24).
  spec["measurements"][0]["problem"]["m"] = std::int64_t(1) << 40;
  spec["measurements"][0]["measured_at"] = "2024-01-01T00:00:05Z";
  EXPECT_EQ(import_text(store, spec.dump(), "spec").measurements_added, 1u);
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
  // Figures no measurement can have, and times that would sort wrongly or run backwards.
  edited("zero time", [](json& j) {
    for (const char* key : {"median_ms", "min_ms", "max_ms"}) j["measurements"][0][key] = 0.0;
  });
  edited("min above median", [](json& j) { j["measurements"][0]["min_ms"] = 2.0; });
  // Without a rate to bound it (a recorded kernel has none), a time under a nanosecond.
  edited("a picosecond without a rate", [](json& j) {
    auto& m = j["measurements"][0];
    for (const char* key : {"median_ms", "min_ms", "max_ms", "kernel_median_ms"}) m[key] = 1e-9;
    m["routine_ms"] = {1e-9}, m["kernel_ms"] = {1e-9};
    m["gflops"] = nullptr, m["kernel_gflops"] = nullptr;
  });
  edited("impossible GFLOPS", [](json& j) { j["measurements"][0]["gflops"] = 1e12; });
  // 2 x 64^3 flops in 1 ms are 0.524288 GFLOPS, not 0.6 (nor 0.5, which the sample once said).
  edited("GFLOPS not of its time", [](json& j) { j["measurements"][0]["gflops"] = 0.6; });
  edited("kernel GFLOPS not of its time",
         [](json& j) { j["measurements"][0]["kernel_gflops"] = 0.5; });
  // An early-stopped or timed-out run's time is still taken as a time (tune, simulate).
  edited("early-stopped run with impossible times", [](json& j) {
    auto& m = j["measurements"][0];
    m["status"] = "SlowerEarlyStop";
    m["median_ms"] = 1e-9, m["min_ms"] = 5.0, m["max_ms"] = 0.0;
    m["gflops"] = 1e300, m["kernel_gflops"] = 1e300;
  });
  edited("timeout faster than possible", [](json& j) {
    j["measurements"][0]["status"] = "Timeout";
    j["measurements"][0]["gflops"] = 1e12;
  });
  edited("kernel rate without a kernel time", [](json& j) {
    j["measurements"][0]["kernel_median_ms"] = 0.0;
    j["measurements"][0]["kernel_gflops"] = 9e6;
  });
  edited("byte rate of a GEMM kernel", [](json& j) { j["measurements"][0]["gbps"] = 1.0; });
  edited("byte rate beyond any bound", [](json& j) {
    j["measurements"][0]["kernel"] = "spec:copy:0123456789abcdef";
    j["measurements"][0]["config"] = "wg=64";
    j["measurements"][0]["gbps"] = 1e13;
  });
  edited("unknown kernel clock", [](json& j) { j["measurements"][0]["kernel_clock"] = "sundial"; });
  edited("free-text time", [](json& j) { j["measurements"][0]["measured_at"] = "~~~~"; });
  edited("local time", [](json& j) { j["measurements"][0]["measured_at"] = "2024-01-01 00:00"; });
  edited("unpadded time", [](json& j) { j["measurements"][0]["measured_at"] = "2024-5-1T0:0:0Z"; });
  edited("no such day",
         [](json& j) { j["measurements"][0]["measured_at"] = "2024-02-30T00:00:00Z"; });
  edited("session ends first",
         [](json& j) { j["sessions"][0]["ended_at"] = "2023-12-31T23:59:59Z"; });
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
  // A best must be its measurement's: one naming another problem would replace a newer best.
  const auto best = [&](const std::string& what, int measurement, std::size_t m) {
    edited(what, [=](json& j) {
      j["measurements"][0]["id"] = 1, j["measurements"][1]["id"] = 2;
      json problem = j["measurements"][0]["problem"];
      problem["m"] = m;
      j["best"].push_back({{"device_key", "00112233aabbccdd"},
                           {"kernel", "classic"},
                           {"problem", problem},
                           {"measurement", measurement},
                           {"updated_at", "2000-01-01T00:00:00Z"}});
    });
  };
  best("best of another problem", 1, 512);
  best("best of a failed measurement", 2, 64);
  clblast("clblast parameter name with a newline and an escape",
          [](json& j) { j["results"][1]["parameters"]["X\n\x1b[31mINJECTED"] = 1; });
  clblast("clblast unknown parameter", [](json& j) { j["results"][1]["parameters"]["EVIL"] = 1; });
  clblast("clblast time of a nanosecond", [](json& j) { j["results"][1]["time"] = 1e-6; });
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

// Rows the store would keep only in part, or keep one of: refused with their reason, not stored
// with their figures dropped (an untimed row) or the file's last best silently winning.
TEST(ExchangeBadInput, FiguresThatWouldBeLostOrReplacedAreRefused) {
  json with_best = valid_export();
  with_best["measurements"][0]["id"] = 1;
  with_best["best"] = {{{"device_key", "00112233aabbccdd"},
                        {"kernel", "classic"},
                        {"problem", with_best["measurements"][0]["problem"]},
                        {"measurement", 1},
                        {"updated_at", "2024-01-01T00:00:05Z"}}};
  test::TempDir dir;
  {
    Store store(dir / "ok.db");
    import_text(store, with_best.dump(), "one-best.json");
    EXPECT_EQ(count(store, "best"), 1);
  }
  const auto refused = [&](const std::string& what, const std::string& why, auto edit) {
    SCOPED_TRACE(what);
    json j = with_best;
    edit(j);
    Store store(dir / (what + ".db"));
    try {
      import_text(store, j.dump(), "input.json");
      ADD_FAILURE() << "accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
    EXPECT_EQ(count(store, "measurements"), 0);
  };
  refused("two bests", "a second best", [](json& j) { j["best"].push_back(j["best"][0]); });
  refused("figures without runs", "untimed", [](json& j) {
    j["best"] = json::array();
    j["measurements"][0].erase("routine_ms");
  });
  refused("empty runs", "untimed", [](json& j) {
    j["best"] = json::array();
    j["measurements"][0]["routine_ms"] = json::array();
  });
  refused("kernel time of a picosecond", "too short", [&](json& j) {
    j["measurements"][0]["kernel_median_ms"] = 1e-12;
    j["measurements"][0]["kernel_gflops"] = nullptr;
  });
  refused("kernel time past its routine's", "within its routine", [&](json& j) {
    j["measurements"][0]["kernel_median_ms"] = 1e6;
    j["measurements"][0]["kernel_gflops"] = nullptr;
  });
  // Unless it was timed by the wall clock in a run of its own (unusable events, as llvmpipe's):
  // mmtune's own rows of such a device are longer than the routine's at times.
  json wall = with_best;
  wall["measurements"][0]["kernel_clock"] = "wall";
  wall["measurements"][0]["kernel_median_ms"] = 1.5;
  wall["measurements"][0]["kernel_gflops"] = nullptr;
  Store store(dir / "wall.db");
  import_text(store, wall.dump(), "wall.json");
  EXPECT_EQ(count(store, "measurements"), 2);
}

TEST(ExchangeBadInput, AFileNamedWithAnyBytesStillRoundTrips) {
  // A file's name may hold an escape sequence, a newline and bytes that are no UTF-8. The
  // import's session names the file: its export failed (invalid UTF-8) or did not import again
  // (a control character), and history printed the escape sequence.
  test::TempDir dir;
  const std::string name = "clb\x1b[31mred\nline\xff.json";
  fs::copy_file(kFixtures + "/clblast_xgemm_1_32.json", dir / name);
  const std::string db = dir / "a.db";
  const auto imported = test::run_mmtune({"import", dir / name, "--db", db});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  // Its success line is one line, without the escape sequence.
  EXPECT_EQ(test::line_count(imported.out), 1) << imported.out;
  EXPECT_EQ(imported.out.find('\x1b'), std::string::npos) << imported.out;
  const auto exported = test::run_mmtune({"export", "--db", db, "--out", dir / "a.json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto again = test::run_mmtune({"import", dir / "a.json", "--db", dir / "b.db"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  const auto history = test::run_mmtune({"history", "--db", db});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_NE(history.out.find("clb [31mred line"), std::string::npos) << history.out;
  EXPECT_EQ(history.out.find('\x1b'), std::string::npos) << history.out;
}

TEST(ExchangeBadInput, AnOlderDatabasesCommandLineStillRoundTrips) {
  // Before argv was stored on one line, a tune's command line kept newlines, escapes and bytes
  // that are no UTF-8, at any length: the export wrote what the import then refused.
  test::TempDir dir;
  const std::string db = dir / "old.db";
  {
    Store store(db);
    const DeviceInfo d = odd_device();
    store.upsert_device(d);
    const std::string argv = "mmtune\ttune --n 64\n\x1b[1m\xff " + std::string(20000, 'x');
    store.end_session(store.begin_session(session(d.key, argv, problem(64, 64, 64))), "completed");
  }
  const auto exported = test::run_mmtune({"export", "--db", db, "--out", dir / "a.json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto again = test::run_mmtune({"import", dir / "a.json", "--db", dir / "new.db"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  Store imported(dir / "new.db");
  const auto sessions = imported.sessions();
  ASSERT_EQ(sessions.size(), 1u);
  const std::string& line = sessions[0].command_line;
  EXPECT_EQ(line.rfind("mmtune tune --n 64  [1m\xEF\xBF\xBD xxx", 0), 0u) << line.substr(0, 40);
  EXPECT_EQ(line.size(), kMaxCommandLineBytes);
  EXPECT_EQ(line.substr(line.size() - 3), "\xE2\x80\xA6");  // cut, and says so
  // Back into the database it came from: the same session, not a second one.
  const auto home = test::run_mmtune({"import", dir / "a.json", "--db", db});
  ASSERT_EQ(home.exit_code, 0) << home.err;
  EXPECT_EQ(Store(db).sessions().size(), 1u);
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

TEST(ExchangeBadInput, ARefusedFileCreatesNoDatabase) {
  // The file is read before the database is opened: a refusal leaves no empty database behind.
  test::TempDir dir;
  std::ofstream(dir / "bad.json") << R"({"format": "mmtune-export", "version": 99})";
  std::ofstream(dir / "empty.json");
  json bad_best = valid_export();  // refused only once its best is weighed
  bad_best["measurements"][1]["id"] = 2;
  bad_best["best"].push_back({{"device_key", "00112233aabbccdd"},
                              {"kernel", "tiled"},
                              {"problem", bad_best["measurements"][1]["problem"]},
                              {"measurement", 2},
                              {"updated_at", "2000-01-01T00:00:00Z"}});
  std::ofstream(dir / "bad_best.json") << bad_best.dump();
  for (const char* name : {"bad.json", "empty.json", "missing.json", "bad_best.json"}) {
    const auto r = test::run_mmtune({"import", dir / name, "--db", dir / "new.db"});
    EXPECT_EQ(r.exit_code, kExitUsage) << name << ": " << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "new.db")) << name;
  }
  // The same file, valid, creates it.
  std::ofstream(dir / "good.json") << valid_export().dump();
  const auto r = test::run_mmtune({"import", dir / "good.json", "--db", dir / "new.db"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "new.db"));
}

}  // namespace
}  // namespace mmtune
