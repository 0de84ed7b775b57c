// Beyond one machine: `--device all` tunes every device of the host into one store, the fleet's
// bests reach consumers (lookup) and the report, and `mmtune export`/`import` move results
// between a SQLite file and a PostgreSQL server.
#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "mmtune/lookup.hpp"
#include "store/sql.hpp"
#include "store/store.hpp"
#include "test_support.hpp"
#include "tune/fleet.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;

using test::slurp;

GemmProblem square(std::size_t n) {
  GemmProblem p;
  p.m = p.n = p.k = n;
  return p;
}

std::vector<std::string> tiny_tune(const std::string& device, const std::string& db) {
  return {"--device", device,     "--n", "32",   "--kernel", "tiled",  "--space",
          "quick",    "--budget", "3",   "--db", db,         "--json", "-q"};
}

TEST(Fleet, BothPoclDevicesShareTheHostCpuGroup) {
  // pthread and basic are two drivers over the same cores: tuned one after the other.
  EXPECT_EQ(hardware_group(test::pocl_device("pthread")), "host-cpu");
  EXPECT_EQ(hardware_group(test::pocl_device("basic")), "host-cpu");
}

class FleetTest : public test::BackendTest {};
MMTUNE_INSTANTIATE_BACKENDS(FleetTest);

// The fleet's plan: every CPU device (both PoCL drivers and llvmpipe) in one hardware group, so
// that they are tuned one after another; a device without the problem's precision is skipped
// with the reason.
TEST(Fleet, PlanGroupsTheHostCpuAndSkipsDevicesWithoutThePrecision) {
  const auto devices = list_devices();
  std::vector<const Device*> all;
  for (const auto& d : devices) all.push_back(&d);
  GemmProblem p;
  p.m = p.n = p.k = 64;
  p.precision = Precision::kDouble;
  const FleetPlan plan = plan_fleet(all, p);
  std::size_t planned = 0;
  for (const auto& [group, members] : plan.groups) {
    planned += members.size();
    for (const Device* d : members) EXPECT_TRUE(d->info.fp64) << d->info.name;
  }
  ASSERT_EQ(plan.groups.count("host-cpu"), 1u);
  EXPECT_GE(plan.groups.at("host-cpu").size(), 2u);  // pthread and basic
  std::size_t without_fp64 = 0;
  for (const auto& d : devices) without_fp64 += d.info.fp64 ? 0 : 1;
  EXPECT_EQ(plan.skipped.size(), without_fp64);  // llvmpipe, where rusticl is enabled
  for (const auto& [d, why] : plan.skipped) {
    EXPECT_FALSE(d->info.fp64) << d->info.name;
    EXPECT_NE(why.find("fp64"), std::string::npos) << why;
  }
  EXPECT_EQ(planned + plan.skipped.size(), devices.size());
  EXPECT_GE(plan.parallel_builds(), 1u);
  // Nothing can run it: the fleet refuses before opening any database.
  FleetPlan none;
  EXPECT_THROW(tune_fleet(none, "/nonexistent/dir/tuning.db", {}, {}), NoDeviceError);
}

// The command keeps to its time limit: the devices of a group share what is left of it (each had
// the whole limit, and a group of three took three times as long).
TEST(Fleet, TheDevicesOfAGroupShareTheTimeLimit) {
  const Device& pthread = test::pocl_device("pthread");
  const Device& basic = test::pocl_device("basic");
  const FleetPlan plan = plan_fleet({&pthread, &basic}, square(64));
  ASSERT_EQ(plan.groups.size(), 1u);
  const auto& members = plan.groups.begin()->second;
  ASSERT_EQ(members.size(), 2u);
  EXPECT_DOUBLE_EQ(fleet_time_limit(plan, *members[0], 60, 0), 30);
  EXPECT_DOUBLE_EQ(fleet_time_limit(plan, *members[1], 60, 40), 20);
  // Past the limit: the least a tune can have (0 would be none).
  EXPECT_GT(fleet_time_limit(plan, *members[1], 60, 70), 0);
  EXPECT_LT(fleet_time_limit(plan, *members[1], 60, 70), 0.01);
  EXPECT_EQ(fleet_time_limit(plan, *members[0], 0, 10), 0);  // none stays none
}

// `--json` has an element for every device of the host: one that cannot run the problem says
// why (it was left out of the array, in the log only).
TEST(Fleet, EveryDeviceHasAnElementOfTheJson) {
  test::TempDir dir;
  auto args = tiny_tune("all", dir / "t.db");
  args.insert(args.end(), {"--precision", "64"});
  const auto r = test::run_mmtune(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto devices = list_devices();
  ASSERT_EQ(j.size(), devices.size()) << r.out;
  std::size_t skipped = 0;
  for (const auto& e : j) {
    if (!e.contains("skipped")) continue;
    ++skipped;
    EXPECT_NE(e["skipped"].get<std::string>().find("fp64"), std::string::npos) << e;
  }
  std::size_t without_fp64 = 0;
  for (const auto& d : devices) without_fp64 += d.info.fp64 ? 0 : 1;
  EXPECT_EQ(skipped, without_fp64);  // llvmpipe, where rusticl is enabled
}

// A database that fails (a full disk) fails every device after it too: they are not started,
// and the fleet's exit code is the database's (4), as a single tune's (it went on, and said 1).
TEST(Fleet, ADatabaseFailureStopsTheDevicesAfterIt) {
  test::TempDir dir;
  const auto devices = list_devices();
  std::vector<const Device*> all;
  for (const auto& d : devices) all.push_back(&d);
  const FleetPlan plan = plan_fleet(all, square(32));
  ASSERT_EQ(plan.groups.size(), 1u);  // the host's CPU devices, one after another
  ASSERT_GE(plan.groups.begin()->second.size(), 2u);
  std::atomic<int> started{0};
  const auto results = tune_fleet(plan, dir / "t.db", false, [&](const Device&, Store&) {
    ++started;
    throw StorageError("database 't.db' is full");
    return TuneSummary{};
  });
  EXPECT_EQ(started, 1);
  ASSERT_EQ(results.size(), plan.groups.begin()->second.size());
  EXPECT_EQ(results[0].exit_code, kExitStorage);
  for (std::size_t i = 1; i < results.size(); ++i) {
    EXPECT_NE(results[i].error.find("not started: the database failed on"), std::string::npos)
        << results[i].error;
    EXPECT_EQ(results[i].exit_code, kExitStorage);
  }
}

TEST_P(FleetTest, DeviceAllTunesEveryDeviceIntoOneStoreThatLookupAndReportRead) {
  const std::string db = fresh_db();
  const auto r = test::run_mmtune(tiny_tune("all", db));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  const auto devices = list_devices();
  ASSERT_EQ(j.size(), devices.size()) << "one summary per device of the host";
  std::set<std::string> keys;
  for (const auto& s : j) {
    EXPECT_EQ(s["outcome"], "budget");
    EXPECT_FALSE(s["best"].is_null()) << s["device"]["name"];
    keys.insert(s["device"]["key"].get<std::string>());
  }
  EXPECT_EQ(keys.size(), devices.size());
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(DISTINCT device_id) FROM best"),
            std::int64_t(devices.size()));
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM sessions WHERE outcome = 'budget'"),
            std::int64_t(devices.size()));

  // One group (all are CPU devices: PoCL's two and, where enabled, llvmpipe): each session
  // starts after the one before ended.
  Store store(db);
  const auto sessions = store.sessions();
  ASSERT_EQ(sessions.size(), devices.size());
  for (std::size_t i = 1; i < sessions.size(); ++i) {
    EXPECT_GE(sessions[i].started_at, sessions[i - 1].ended_at) << i;
  }
  // They share the default time limit of 8 minutes: the first its share, the last what is left.
  EXPECT_NEAR(sessions.front().time_limit_s, 480.0 / double(sessions.size()), 1.0);
  EXPECT_LT(sessions.back().time_limit_s, 480.0);

  // A consumer reads each device's own best from the shared store.
  const ParameterLookup lookup(db);
  for (const auto& dev : devices) {
    const DeviceInfo& d = dev.info;
    const auto best = store.best(d.key, square(32));
    ASSERT_TRUE(best) << d.name;
    const TunedParameters t = lookup.lookup(d, square(32));
    EXPECT_EQ(t.source, LookupSource::kExact) << d.name;
    EXPECT_EQ(t.device_key, d.key);
    EXPECT_EQ(to_string(t.config), best->config) << d.name;
  }
  // `mmtune best` without --device: every stored device's best, as an array.
  const auto all =
      test::run_mmtune({"best", "--n", "32", "--kernel", "tiled", "--db", db, "--json"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto bests = nlohmann::json::parse(all.out);
  ASSERT_TRUE(bests.is_array()) << all.out;
  std::set<std::string> best_keys;
  for (const auto& b : bests) best_keys.insert(b["device_key"].get<std::string>());
  EXPECT_EQ(best_keys, keys);

  // The report compares the fleet's devices, and their implementations when there are two.
  const std::string out = dir / "report";
  const auto rep = test::run_mmtune({"report", "--db", db, "--out", out});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("Report of " + std::to_string(devices.size()) + " device(s)"),
            std::string::npos)
      << rep.out;
  const std::string html = slurp(out + "/report.html");
  const std::string best_csv = slurp(out + "/best.csv");
  std::set<std::string> platforms;
  for (const auto& dev : devices) {
    const DeviceInfo& d = dev.info;
    platforms.insert(d.platform_name);
    EXPECT_NE(html.find(d.name), std::string::npos) << d.name;
    EXPECT_NE(best_csv.find(d.key), std::string::npos) << d.name;
  }
  EXPECT_NE(html.find("Implementations side by side"), std::string::npos);
  EXPECT_EQ(html.find("Cost of tuning") != std::string::npos, platforms.size() > 1);
}

// A host tunes into its own SQLite file, exports, and the file is merged into the server; the
// server's export, imported into a fresh file, holds the same results; importing again adds
// nothing.
TEST(Fleet, ExportImportMovesResultsBetweenSqliteAndTheServer) {
  if (const std::string why = test::postgres_unavailable(); !why.empty()) GTEST_SKIP() << why;
  test::TempDir dir;
  const std::string local = dir / "local.db", server = test::postgres_database();
  ASSERT_EQ(test::run_mmtune(tiny_tune("pthread", local)).exit_code, 0);

  const auto exp = test::run_mmtune({"export", "--db", local, "--out", dir / "local.json"});
  ASSERT_EQ(exp.exit_code, 0) << exp.err;
  const auto imp = test::run_mmtune({"import", dir / "local.json", "--db", server});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  const std::string rows = "SELECT COUNT(*) FROM measurements";
  EXPECT_EQ(test::count_rows(server, rows), test::count_rows(local, rows));
  EXPECT_GT(test::count_rows(server, rows), 0);

  const auto again = test::run_mmtune({"import", dir / "local.json", "--db", server});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find(" 0 measurements added"), std::string::npos) << again.out;
  EXPECT_EQ(test::count_rows(server, rows), test::count_rows(local, rows));

  const auto back = test::run_mmtune({"export", "--db", server, "--out", dir / "server.json"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  const std::string copy = dir / "copy.db";
  ASSERT_EQ(test::run_mmtune({"import", dir / "server.json", "--db", copy}).exit_code, 0);
  const DeviceInfo& d = test::pocl_device("pthread").info;
  Store a(local), b(copy);
  const auto x = a.best(d.key, square(32)), y = b.best(d.key, square(32));
  ASSERT_TRUE(x && y);
  EXPECT_EQ(x->config, y->config);
  EXPECT_EQ(x->median_ms, y->median_ms);
  EXPECT_EQ(test::count_rows(copy, rows), test::count_rows(local, rows));

  // `mmtune best` answers from the server with MMTUNE_DB instead of --db.
  const auto best = test::run_mmtune({"best", "--device", "pthread", "--n", "32", "--json"},
                                     {{"MMTUNE_DB", server}});
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_EQ(nlohmann::json::parse(best.out)["config"], x->config);
}

// The permissions README.md documents: a consumer role with CONNECT, USAGE and SELECT only reads
// the bests (opening the store takes no write right once its schema is current), and cannot
// write.
TEST(Fleet, AConsumerWithSelectRightsOnlyReadsTheBests) {
  if (const std::string why = test::postgres_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const std::string db = test::postgres_database();
  std::string with_password = db;  // the test server trusts loopback: any password is accepted
  with_password.replace(with_password.find("mmtune@"), 7, "mmtune:secret@");
  ASSERT_EQ(test::run_mmtune(tiny_tune("pthread", with_password)).exit_code, 0);
  EXPECT_EQ(test::count_rows(db,
                             "SELECT COUNT(*) FROM sessions WHERE command_line LIKE "
                             "'%mmtune@127.0.0.1%'"),
            1)
      << "the session records the URI without its password";
  EXPECT_EQ(
      test::count_rows(db, "SELECT COUNT(*) FROM sessions WHERE command_line LIKE '%secret%'"), 0);
  // Nor does a spec tune print it (it printed the URI as given).
  const auto spec = test::run_mmtune(
      {"tune", "--spec", std::string(MMTUNE_EXAMPLES_DIR) + "/kernels/transpose.toml", "--size",
       "64,64", "--device", "pthread", "--budget", "1", "--finalists", "0", "--db", with_password});
  ASSERT_EQ(spec.exit_code, 0) << spec.err;
  EXPECT_NE(spec.out.find("mmtune@127.0.0.1"), std::string::npos) << spec.out;
  EXPECT_EQ(spec.out.find("secret"), std::string::npos) << spec.out;
  const std::string role = "reader" + std::to_string(getpid());  // generated: no user input
  const std::string name = db.substr(db.rfind('/') + 1);
  {
    sql::Database admin(db, sql::OpenMode::kReadWrite);
    admin.exec("CREATE ROLE " + role + " LOGIN");
    admin.exec("GRANT CONNECT ON DATABASE " + name + " TO " + role);
    admin.exec("GRANT USAGE ON SCHEMA public TO " + role);
    admin.exec("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + role);
  }
  std::string reader = db;
  reader.replace(reader.find("mmtune@"), 6, role);
  const DeviceInfo& d = test::pocl_device("pthread").info;
  const ParameterLookup lookup(reader);
  EXPECT_EQ(lookup.lookup(d, square(32)).source, LookupSource::kExact);
  Store store(reader);
  EXPECT_TRUE(store.best(d.key, square(32)));
  EXPECT_THROW(store.upsert_device(d), std::exception) << "a reader cannot write";
}

// A database that fails after it opened is an mmtune::Error whose message, like every other,
// holds the URI without its password.
TEST(Fleet, ALookupsErrorKeepsThePasswordOut) {
  if (const std::string why = test::postgres_unavailable(); !why.empty()) GTEST_SKIP() << why;
  std::string db = test::postgres_database();
  { Store store(db); }
  sql::Database(db, sql::OpenMode::kReadWrite).exec("ALTER TABLE best RENAME COLUMN config TO c");
  db.replace(db.find("mmtune@"), 7, "mmtune:secret@");  // the test server accepts any password
  try {
    ParameterLookup lookup(db);
    ADD_FAILURE() << "read a table without its column";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("secret"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mmtune@"), std::string::npos) << e.what();
  }
}

// A migration step that rebuilds a table keeps the grants on it: 8 rebuilt `best`, and a
// consumer whose role may only SELECT failed with "permission denied for table best" after the
// next tune upgraded the database.
TEST(Fleet, AReadersGrantsSurviveAnUpgradeThatRebuildsATable) {
  if (const std::string why = test::postgres_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const std::string db = test::postgres_database();
  const std::string role = "old_reader" + std::to_string(getpid());  // generated: no user input
  const std::string name = db.substr(db.rfind('/') + 1);
  {
    sql::Database admin(db, sql::OpenMode::kReadWrite);
    for (int v = 0; v < 7; ++v) admin.exec(admin.ddl(schema_migrations()[v]));
    admin.set_schema_version(7);  // step 8 rebuilds `best`
    admin.exec("CREATE ROLE " + role + " LOGIN");
    admin.exec("GRANT CONNECT ON DATABASE " + name + " TO " + role);
    admin.exec("GRANT USAGE ON SCHEMA public TO " + role);
    admin.exec("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + role);
  }
  { Store upgraded(db); }  // a tuner opens it
  std::string reader = db;
  reader.replace(reader.find("mmtune@"), 6, role);
  EXPECT_EQ(ParameterLookup(reader).entries(), 0u);
  Store store(reader, Store::Access::kReadOnly);
  EXPECT_FALSE(store.best(test::pocl_device("pthread").info.key, square(32)));
  sql::Database check(db, sql::OpenMode::kReadWrite);
  auto q = check.prepare(
      "SELECT COUNT(*) FROM information_schema.table_privileges WHERE grantee = ? AND "
      "privilege_type = 'SELECT' AND table_name = 'best'");
  q.bind(1, role);
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.integer(0), 1);
  EXPECT_THROW(store.upsert_device(test::pocl_device("pthread").info), std::exception)
      << "no more than it had: a reader still cannot write";
}

}  // namespace
}  // namespace mmtune
