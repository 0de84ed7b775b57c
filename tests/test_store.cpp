// The store on both backends (SQLite files and a PostgreSQL server): migrations, refusal of bad
// databases, concurrent writers and importers, and a tune killed with SIGKILL that loses nothing
// and resumes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "exchange/exchange.hpp"
#include "mmtune/error.hpp"
#include "session_fixture.hpp"
#include "store/queries.hpp"
#include "store/sql_backend.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;

MeasurementRecord sample_record(const DeviceInfo& d, int i) {
  MeasurementRecord r;
  r.device_key = d.key;
  r.kernel = "naive";
  r.config = "";
  r.problem.m = r.problem.n = r.problem.k = 64;
  r.result.median_ms = r.result.min_ms = r.result.max_ms = r.result.kernel_median_ms = 1.0 + i;
  r.result.routine_ms = r.result.kernel_ms = {1.0 + i};
  r.result.gflops = r.problem.flops() / (r.result.median_ms * 1e6);
  r.result.kernel_gflops = r.result.gflops;
  return r;
}

int schema_version(const std::string& target) {
  sql::Database db(target, sql::OpenMode::kReadWrite);
  return db.schema_version();
}

class StoreTest : public test::BackendTest {};
MMTUNE_INSTANTIATE_BACKENDS(StoreTest);

TEST_P(StoreTest, CreatesTheCurrentSchema) {
  const std::string db = fresh_db();
  Store store(db);
  EXPECT_EQ(schema_version(db), kSchemaVersion);
  if (sqlite()) {
    auto q = store.db().prepare("PRAGMA journal_mode");
    q.step();
    EXPECT_EQ(q.text(0), "wal");
  }
  // 64-bit integers and doubles survive on both (PostgreSQL's INTEGER and REAL would not).
  DeviceInfo d = test::pocl_device("pthread").info;
  d.global_mem_bytes = (std::uint64_t(1) << 40) + 3;
  store.upsert_device(d);
  EXPECT_EQ(store.device(d.key)->global_mem_bytes, d.global_mem_bytes);
  MeasurementRecord r = sample_record(d, 0);
  r.result.median_ms = r.result.min_ms = r.result.max_ms = 0.1234567890123456789;
  r.result.gflops = 4.0 / 3.0;
  store.add_measurement(r);
  const auto b = store.best(d.key, r.problem, "naive");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->median_ms, r.result.median_ms);
  EXPECT_EQ(b->gflops, r.result.gflops);
}

// A faster measurement replaces the best on its own; set_best installs a slower one on purpose
// (a tune's confirmation), and only a stored, timed Ok measurement.
TEST_P(StoreTest, SetBestReplacesAFasterBest) {
  Store store(fresh_db());
  const DeviceInfo d = test::pocl_device("pthread").info;
  store.upsert_device(d);
  MeasurementRecord slow = sample_record(d, 2), fast = sample_record(d, 0);
  slow.id = store.add_measurement(slow);
  fast.id = store.add_measurement(fast);
  EXPECT_EQ(store.best(d.key, fast.problem, "naive")->measurement_id, fast.id);
  store.set_best(slow);
  const auto b = store.best(d.key, slow.problem, "naive");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->measurement_id, slow.id);
  EXPECT_EQ(b->median_ms, slow.result.median_ms);
  MeasurementRecord failed = sample_record(d, 3);
  failed.result.status = Status::kWrongResult;
  failed.id = store.add_measurement(failed);
  EXPECT_THROW(store.set_best(failed), UsageError);
  EXPECT_THROW(store.set_best(sample_record(d, 1)), UsageError) << "not stored";
  EXPECT_EQ(store.best(d.key, slow.problem, "naive")->measurement_id, slow.id);
}

// Where a tune of a new shape starts: each tuned shape's best of the routine's kernels (naive and
// classic are not the routine's), the nearest shape first, same precision only.
TEST_P(StoreTest, NearestBestsAreEachShapesRoutineBestNearestFirst) {
  Store store(fresh_db());
  const DeviceInfo d = test::pocl_device("pthread").info;
  store.upsert_device(d);
  const auto add = [&](const char* kernel, const char* config, std::size_t n, double ms,
                       Precision precision = Precision::kSingle) {
    MeasurementRecord r = sample_record(d, 0);
    r.kernel = kernel, r.config = config;
    r.problem.m = r.problem.n = r.problem.k = n;
    r.problem.precision = precision;
    r.result.median_ms = r.result.min_ms = r.result.max_ms = r.result.kernel_median_ms = ms;
    r.result.routine_ms = r.result.kernel_ms = {ms};
    store.add_measurement(r);
  };
  add("tiled", "far", 1024, 1.0);
  add("tiled", "near-slower", 128, 2.0);
  add("direct", "near", 128, 1.0);
  add("naive", "", 128, 0.5);
  add("tiled", "middle", 256, 1.0);
  add("tiled", "fp64", 160, 1.0, Precision::kDouble);
  GemmProblem p;
  p.m = p.n = 128, p.k = 160;
  // 2 n^3 flops a call at each n^3 shape.
  const double near = 2.0 * 128 * 128 * 128, middle = 2.0 * 256 * 256 * 256,
               far = 2.0 * 1024 * 1024 * 1024;
  using Row = Store::ShapeBest;
  EXPECT_EQ(store.nearest_bests(d.key, p, 2),
            (std::vector<Row>{{"direct", "near", near}, {"tiled", "middle", middle}}));
  EXPECT_EQ(store.nearest_bests(d.key, p, 9),
            (std::vector<Row>{
                {"direct", "near", near}, {"tiled", "middle", middle}, {"tiled", "far", far}}));
  p.m = p.n = p.k = 256;  // its own shape is not another
  EXPECT_EQ(store.nearest_bests(d.key, p, 9),
            (std::vector<Row>{{"direct", "near", near}, {"tiled", "far", far}}));
  // Another precision's bests, its twin of p's own shape among them.
  add("tiled", "fp64-256", 256, 1.0, Precision::kDouble);
  EXPECT_EQ(
      store.nearest_bests(d.key, p, 9, Precision::kDouble),
      (std::vector<Row>{{"tiled", "fp64-256", middle}, {"tiled", "fp64", 2.0 * 160 * 160 * 160}}));
  p.precision = Precision::kDouble;
  EXPECT_EQ(store.nearest_bests(d.key, p, 9),
            (std::vector<Row>{{"tiled", "fp64", 2.0 * 160 * 160 * 160}}));
}

TEST_P(StoreTest, MeasuredHintNamesAFewOfWhatADeviceHas) {
  Store store(fresh_db());
  const DeviceInfo d = test::pocl_device("pthread").info;
  store.upsert_device(d);
  EXPECT_EQ(rows::measured_hint(store, d.key, "tiled"), "; it has no measurements");
  MeasurementRecord r = sample_record(d, 0);
  r.kernel = "direct";
  store.add_measurement(r);
  r.kernel = "tiled";
  for (std::size_t n = 1; n <= 8; ++n) {
    r.problem.m = r.problem.n = r.problem.k = 16 * n;
    store.add_measurement(r);
  }
  EXPECT_EQ(rows::measured_hint(store, d.key, "kt:x"), "; it has measurements of direct, tiled");
  EXPECT_EQ(rows::measured_hint(store, d.key, "direct"),
            "; its direct measurements are of 64x64x64 fp32 row NN");
  // Six of the nine problems (in size order), then an ellipsis.
  EXPECT_EQ(rows::measured_hint(store, d.key, ""),
            "; its measurements are of 16x16x16 fp32 row NN, 32x32x32 fp32 row NN, 48x48x48 fp32 "
            "row NN, 64x64x64 fp32 row NN, 80x80x80 fp32 row NN, 96x96x96 fp32 row NN, ...");
  // Only a recorded kernel's measurements: without --kernel the routine picks among mmtune's
  // own kernels, so the hint names the kernel, not the problem that was asked for.
  DeviceInfo recorded = d;
  recorded.name += " recorded";
  recorded.key = device_key(recorded.vendor, recorded.name, recorded.driver_version);
  store.upsert_device(recorded);
  MeasurementRecord k = sample_record(recorded, 1);
  k.kernel = "kt:conv", k.config = "block=8";
  store.add_measurement(k);
  EXPECT_EQ(rows::measured_hint(store, recorded.key, ""),
            "; it has measurements of kt:conv (name one with --kernel)");
  EXPECT_EQ(rows::measured_hint(store, recorded.key, "kt:conv"),
            "; its kt:conv measurements are of 64x64x64 fp32 row NN");
}

TEST_P(StoreTest, MigratesAnOlderSchemaKeepingItsRows) {
  const std::string path = fresh_db("old.db");
  {
    sql::Database db(path, sql::OpenMode::kCreate);
    db.exec(db.ddl(schema_migrations()[0]));  // a version 1 database with one session
    db.set_schema_version(1);
    db.exec("INSERT INTO devices (key, vendor, name, driver_version) VALUES ('k1', 'v', 'n', 'd')");
    db.exec(
        "INSERT INTO sessions (device_id, command_line, strategy, kernels, space, seed, budget, "
        "time_limit_s, m, n, k, precision, layout, trans_a, trans_b, started_at, outcome) VALUES "
        "(1, 'mmtune old', 'random', 'tiled', 'full', 1, 10, 0, 8, 8, 8, 32, 'row', 0, 0, "
        "'2026-01-01T00:00:00Z', 'completed')");
  }
  Store store(path);
  EXPECT_EQ(schema_version(path), kSchemaVersion);
  const auto sessions = store.sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0].command_line, "mmtune old");
  auto q = store.db().prepare("SELECT host, mmtune_version FROM sessions");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.text(0), "");  // the new columns exist with defaults
}

TEST_P(StoreTest, RefusesNewerSchemasAndBadTargets) {
  const std::string target = fresh_db("new.db");
  {
    sql::Database db(target, sql::OpenMode::kCreate);
    db.set_schema_version(99);
  }
  try {
    Store s(target);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
  EXPECT_EQ(schema_version(target), 99) << "the newer database is left untouched";
  if (!sqlite()) {
    // A database that does not exist, and a server that is not there: one-line usage errors.
    try {
      Store s(test::postgres_url("no_such_database"));
      FAIL() << "expected a UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("no_such_database"), std::string::npos) << e.what();
    }
    EXPECT_THROW(Store("postgresql://mmtune@127.0.0.1:1/none?connect_timeout=5"), UsageError);
    return;
  }
  std::ofstream(dir / "junk.db") << std::string(4096, 'x');
  try {
    Store s(dir / "junk.db");
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not a valid mmtune database"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Store(dir / "missing/dir/t.db"), UsageError);
  EXPECT_THROW(Store(dir.path), UsageError);  // a directory
  if (geteuid() != 0) {                       // root ignores permissions
    fs::create_directories(dir / "ro");
    chmod((dir / "ro").c_str(), 0500);
    EXPECT_THROW(Store(dir / "ro/t.db"), UsageError);
  }
}

TEST(Store, PostgresUrlsNameWhatIsMissing) {
  try {
    Store s("postgresql://mmtune:secret@127.0.0.1:1/none?connect_timeout=5");
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(sql::have_postgres() ? "cannot connect" : "built without PostgreSQL"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find("secret"), std::string::npos) << "passwords stay out of messages";
  }
  EXPECT_EQ(sql::redact_url("postgres://u:pw@h:5/db?x=1"), "postgres://u@h:5/db?x=1");
  EXPECT_EQ(sql::redact_url("postgresql://h/db"), "postgresql://h/db");
  // libpq also takes the password as a query parameter.
  EXPECT_EQ(sql::redact_url("postgresql://u@h/db?sslmode=require&password=hunter2&x=1"),
            "postgresql://u@h/db?sslmode=require&x=1");
  EXPECT_EQ(sql::redact_url("postgresql://h/db?PassWord=hunter2"), "postgresql://h/db");
}

TEST(Store, PlaceholdersAreNumberedOutsideLiteralsAndComments) {
  EXPECT_EQ(sql::detail::numbered_placeholders(
                "SELECT '?', 'it''s ?', \"odd?\" FROM t WHERE a = ? AND b IN (?, ?) -- c = ?\n"
                "AND d = ?"),
            "SELECT '?', 'it''s ?', \"odd?\" FROM t WHERE a = $1 AND b IN ($2, $3) -- c = ?\n"
            "AND d = $4");
}

TEST(Store, DefaultPathFollowsEnvironment) {
  test::TempDir dir;
  setenv("MMTUNE_DB", (dir / "env.db").c_str(), 1);
  EXPECT_EQ(Store::default_path(), dir / "env.db");
  setenv("MMTUNE_DB", "postgresql://tuner@db.example/mmtune", 1);
  EXPECT_EQ(Store::default_path(), "postgresql://tuner@db.example/mmtune");
  unsetenv("MMTUNE_DB");
  setenv("XDG_DATA_HOME", dir.path.c_str(), 1);
  // A reader leaves the directory alone: `mmtune history` on a new machine created it.
  EXPECT_EQ(Store::default_path(), dir / "mmtune/tuning.db");
  EXPECT_FALSE(fs::exists(dir / "mmtune"));
  for (const char* reader : {"history", "report", "export"}) {
    const auto r = test::run_mmtune({reader}, {{"XDG_DATA_HOME", dir.path}});
    EXPECT_EQ(r.exit_code, kExitUsage) << reader << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "mmtune"));
  EXPECT_EQ(Store::default_path(true), dir / "mmtune/tuning.db");  // a writer's
  EXPECT_TRUE(fs::is_directory(dir / "mmtune"));
  unsetenv("XDG_DATA_HOME");
}

TEST_P(StoreTest, ConcurrentWritersLoseNothing) {
  const std::string path = fresh_db("shared.db");
  const DeviceInfo& dev = test::pocl_device("pthread").info;
  {
    Store s(path);
    s.upsert_device(dev);
  }
  constexpr int kWriters = 4, kRows = 150;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    if (pid == 0) {
      try {
        Store s(path);
        for (int i = 0; i < kRows; ++i) s.add_measurement(sample_record(dev, w * 1000 + i));
      } catch (...) {
        _exit(1);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed";
  }
  Store s(path);
  auto q = s.db().prepare("SELECT COUNT(*), COUNT(DISTINCT median_ms) FROM measurements");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.integer(0), kWriters * kRows);
  EXPECT_EQ(q.integer(1), kWriters * kRows);
}

// Several hosts merging the same export at once: the duplicate checks and inserts of one import
// never interleave with another's, so every row arrives exactly once.
TEST_P(StoreTest, ConcurrentImportsOfOneExportAddEachRowOnce) {
  const DeviceInfo& dev = test::pocl_device("pthread").info;
  const std::string export_path = dir / "export.json";
  constexpr int kRows = 40, kImporters = 4;
  {
    Store source(dir / "source.db");
    source.upsert_device(dev);
    SessionRecord session;
    session.device_key = dev.key;
    session.command_line = "mmtune --n 64";
    session.strategy = "random", session.kernels = "naive", session.space = "full";
    session.problem.m = session.problem.n = session.problem.k = 64;
    const auto id = source.begin_session(session);
    for (int i = 0; i < kRows; ++i) {
      MeasurementRecord r = sample_record(dev, i);
      r.session_id = id;
      source.add_measurement(r);
    }
    std::ofstream(export_path) << export_json(source, "").dump();
  }
  const std::string target = fresh_db("target.db");
  Store(target).upsert_device(dev);  // the schema exists before the importers race
  std::vector<pid_t> children;
  for (int w = 0; w < kImporters; ++w) {
    const pid_t pid = fork();
    if (pid == 0) {
      try {
        Store s(target);
        import_file(s, export_path);
      } catch (...) {
        _exit(1);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "an importer failed";
  }
  EXPECT_EQ(test::count_rows(target, "SELECT COUNT(*) FROM devices"), 1);
  EXPECT_EQ(test::count_rows(target, "SELECT COUNT(*) FROM sessions"), 1);
  EXPECT_EQ(test::count_rows(target, "SELECT COUNT(*) FROM measurements"), kRows);
  EXPECT_EQ(test::count_rows(target, "SELECT COUNT(*) FROM best"), 1);
}

// A session left `running` by a process that is gone (killed, or too short of disk space to
// record its end) reads as abandoned, and close_abandoned_sessions() (each tune's first step)
// stores that. Sessions of live processes, of other hosts and those that ended keep theirs.
TEST_P(StoreTest, SessionsWhoseProcessIsGoneReadAsAbandoned) {
  const std::string db = fresh_db();
  Store store(db);
  const DeviceInfo& dev = test::pocl_device("pthread").info;
  store.upsert_device(dev);
  const SessionRecord session = test::small_session(dev);
  const auto live = store.begin_session(session);       // this process
  const auto killed = store.begin_session(session);     // given the pid of an exited child
  const auto reused = store.begin_session(session);     // this pid, begun before this process
  const auto elsewhere = store.begin_session(session);  // another host's
  const auto ended = store.begin_session(session);
  store.end_session(ended, "budget");
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  const auto set = [&](const std::string& assignments, std::int64_t id) {
    auto u = store.db().prepare("UPDATE sessions SET " + assignments + " WHERE id = ?");
    u.bind(1, id);
    u.run();
  };
  const std::string child_pid = std::to_string(child);
  set("pid = " + child_pid, killed);
  set("started_at = '2000-01-01T00:00:00Z'", reused);
  set("host = 'another-host', pid = " + child_pid, elsewhere);
  set("pid = " + child_pid, ended);

  const auto shown = [&] {
    std::map<std::int64_t, std::string> out;
    for (const auto& s : store.sessions()) out[s.id] = s.outcome;
    return out;
  };
  const std::map<std::int64_t, std::string> expected = {{live, "running"},
                                                        {killed, "abandoned"},
                                                        {reused, "abandoned"},
                                                        {elsewhere, "running"},
                                                        {ended, "budget"}};
  EXPECT_EQ(shown(), expected);
  // Reading wrote nothing.
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM sessions WHERE outcome = 'running'"), 4);

  EXPECT_EQ(store.close_abandoned_sessions(), 2u);
  EXPECT_EQ(shown(), expected);
  // Ended at their last sign of life: without measurements, their start.
  EXPECT_EQ(test::count_rows(db,
                             "SELECT COUNT(*) FROM sessions WHERE outcome = 'abandoned' AND "
                             "ended_at = started_at AND id IN (" +
                                 std::to_string(killed) + ", " + std::to_string(reused) + ")"),
            2);
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM sessions WHERE outcome = 'running'"), 2);
  EXPECT_EQ(store.close_abandoned_sessions(), 0u);
}

TEST_P(StoreTest, SigkillLosesNothingAndTheSameCommandResumes) {
  const std::string db = fresh_db();
  // Without the drift reference the strategy sees the stored times exactly as the killed run saw
  // them, so the resumed run asks the same configurations again (with it, stored times are scaled
  // by their recorded slowdown and an adaptive strategy may take another path).
  const std::vector<std::string> args = {"--device", "pthread", "--n",    "80",       "--kernel",
                                         "tiled",    "--space", "quick",  "--budget", "40",
                                         "--db",     db,        "--json", "-q",       "--no-drift"};
  auto bg = test::spawn_mmtune(args, dir.path);
  std::int64_t before = 0;
  for (int i = 0; i < 600 && before < 6; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    before =
        test::count_rows_if_ready(db, "SELECT COUNT(*) FROM measurements WHERE kernel = 'tiled'");
  }
  kill(bg.pid, SIGKILL);
  const auto r = bg.wait();
  EXPECT_EQ(r.exit_code, 128 + SIGKILL);
  if (sqlite()) {
    sql::Database d(db, sql::OpenMode::kReadWrite);
    auto q = d.prepare("PRAGMA integrity_check");
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.text(0), "ok");
  }
  EXPECT_GE(test::count_rows(db, "SELECT COUNT(*) FROM measurements WHERE kernel = 'tiled'"),
            before)
      << "every committed measurement survives";
  const auto kept = test::count_rows(
      db, "SELECT COUNT(DISTINCT config) FROM measurements WHERE kernel = 'tiled'");
  const auto resumed = test::run_mmtune(args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto j = nlohmann::json::parse(resumed.out);
  EXPECT_GE(j["reused"].get<std::int64_t>(), kept - 2)
      << "stored configurations are not measured again";
  EXPECT_EQ(j["drift"]["evaluations"], 0) << "--no-drift times no reference again";
  EXPECT_EQ(j["outcome"], "budget");
}

TEST_P(StoreTest, TwoTunesIntoOneDatabaseBothComplete) {
  test::TempDir out_a, out_b;
  const std::string db = fresh_db("shared.db");
  auto args = [&](const char* n) {
    return std::vector<std::string>{"--device", "pthread", "--n",    n,          "--kernel",
                                    "tiled",    "--space", "quick",  "--budget", "6",
                                    "--db",     db,        "--json", "-q"};
  };
  auto a = test::spawn_mmtune(args("72"), out_a.path);
  auto b = test::spawn_mmtune(args("88"), out_b.path);
  const auto ra = a.wait();
  const auto rb = b.wait();
  ASSERT_EQ(ra.exit_code, 0) << ra.err;
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  std::int64_t reported = 0;
  for (const auto* r : {&ra, &rb}) {
    const auto j = nlohmann::json::parse(r->out);
    reported += j["evaluations"].get<std::int64_t>();
    EXPECT_EQ(j["outcome"], "budget");
  }
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM measurements"), reported);
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM sessions WHERE outcome = 'budget'"), 2);
  const auto history = test::run_mmtune({"history", "--db", db, "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_EQ(nlohmann::json::parse(history.out).size(), 2u);
}

}  // namespace
}  // namespace mmtune
