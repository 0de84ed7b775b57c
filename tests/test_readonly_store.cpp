// Reading a tuning database never needs write rights (a database shipped read-only), and a path
// that is not a regular file is refused before anything is created.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mmtune/error.hpp"
#include "mmtune/lookup.hpp"
#include "store/sql.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;

TiledConfig tuned() {
  TiledConfig t;
  t.MWG = 64, t.NWG = 64, t.KWG = 32, t.MDIMC = 4, t.NDIMC = 4, t.VWM = 8, t.VWN = 8, t.KWI = 2;
  t.SA = 0, t.SB = 0, t.MDIMA = 4, t.NDIMB = 4;
  return t;
}

// A database with one best in `dir` (world-readable), in WAL mode unless `journal` says else,
// then made read-only: the file 0444 and, with `lock_dir`, its directory 0555.
std::string read_only_db(const test::TempDir& dir, const std::string& journal, bool lock_dir) {
  const std::string path = dir / "tuning.db";
  {
    Store store(path);
    test::store_best(store, test::pocl_device("pthread").info, 256, tuned(), 2.0);
  }
  if (journal != "wal") {
    sql::Database db(path, sql::OpenMode::kReadWrite);
    db.exec("PRAGMA journal_mode = " + journal);
  }
  EXPECT_EQ(chmod(path.c_str(), 0444), 0);
  EXPECT_EQ(chmod(dir.path.c_str(), lock_dir ? 0555 : 0777), 0);
  return path;
}

struct Unlock {  // lets TempDir remove what the test locked
  const test::TempDir& dir;
  ~Unlock() { chmod(dir.path.c_str(), 0700); }
};

class ReadOnlyStore : public ::testing::TestWithParam<std::pair<const char*, bool>> {};

TEST_P(ReadOnlyStore, LookupBestAndHistoryReadItAsAnUnprivilegedUser) {
  const auto [journal, lock_dir] = GetParam();
  test::TempDir dir;
  Unlock unlock{dir};
  const std::string path = read_only_db(dir, journal, lock_dir);
  const auto before = fs::last_write_time(path);
  // The library: a lookup finds the stored best (exit code 0), in a process that cannot write.
  const int rc = test::run_unprivileged([&] {
    if (access(path.c_str(), W_OK) == 0) return 3;  // the test would prove nothing
    try {
      const ParameterLookup lookup(path);
      GemmProblem p;
      p.m = p.n = p.k = 256;
      const auto t = lookup.lookup(test::pocl_device("pthread").info, p);
      return lookup.entries() == 1 && t.source == LookupSource::kExact ? 0 : 1;
    } catch (const Error&) {
      return 2;
    }
  });
  EXPECT_EQ(rc, 0) << "1: wrong lookup, 2: refused, 3: the file was writable";
  // The binary: best and history.
  const auto best = test::run_mmtune_unprivileged(
      {"best", "--db", path, "--device", "pthread", "--n", "256"}, {{"POCL_DEVICES", "pthread"}});
  EXPECT_EQ(best.exit_code, 0) << best.err;
  EXPECT_NE(best.out.find("MWG=64"), std::string::npos) << best.out;
  const auto history = test::run_mmtune_unprivileged({"history", "--db", path});
  EXPECT_EQ(history.exit_code, 0) << history.err;
  EXPECT_EQ(fs::last_write_time(path), before);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path)) left.push_back(e.path().filename());
  EXPECT_LE(left.size(), 3u) << "only the database and its own -wal/-shm may be there";
}

INSTANTIATE_TEST_SUITE_P(Modes, ReadOnlyStore,
                         ::testing::Values(std::pair{"wal", true}, std::pair{"wal", false},
                                           std::pair{"delete", true}, std::pair{"delete", false}),
                         [](const auto& p) {
                           return std::string(p.param.first) +
                                  (p.param.second ? "_ReadOnlyDir" : "_WritableDir");
                         });

// An older schema needs one writer to upgrade it: a reader without write rights gets one line.
TEST(ReadOnlyStoreSchema, AnOlderSchemaThatCannotBeUpgradedIsAClearError) {
  test::TempDir dir;
  Unlock unlock{dir};
  const std::string path = read_only_db(dir, "delete", true);
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  {
    sql::Database db(path, sql::OpenMode::kReadWrite);
    db.exec("PRAGMA user_version = 3");
  }
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  const auto r = test::run_mmtune_unprivileged({"history", "--db", path});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("older than this mmtune"), std::string::npos) << r.err;
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
}

// Committed changes still in the -wal file cannot be read in a read-only directory (SQLite
// would need the -shm file, and without it ignores the -wal): refused, never shown stale.
TEST(ReadOnlyStoreSchema, ChangesLeftInTheWalOfAReadOnlyDirectoryAreNotHidden) {
  test::TempDir made, shipped;
  Unlock unlock{shipped};
  const std::string path = made / "tuning.db";
  {
    Store store(path);
    test::store_best(store, test::pocl_device("pthread").info, 256, tuned(), 2.0);
  }
  {
    sql::Database db(path, sql::OpenMode::kReadWrite);
    db.exec("PRAGMA wal_autocheckpoint = 0");
    db.exec("UPDATE best SET updated_at = '2030-01-01T00:00:00Z'");
    // Copied while the connection is open: closing would move the change into the file.
    fs::copy_file(path, shipped / "tuning.db");
    fs::copy_file(path + "-wal", shipped / "tuning.db-wal");
  }
  ASSERT_GT(fs::file_size(shipped / "tuning.db-wal"), 0u);
  for (const char* f : {"tuning.db", "tuning.db-wal"}) {
    ASSERT_EQ(chmod((shipped / f).c_str(), 0444), 0);
  }
  ASSERT_EQ(chmod(shipped.path.c_str(), 0555), 0);
  const auto r = test::run_mmtune_unprivileged({"history", "--db", shipped / "tuning.db"});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("-wal"), std::string::npos) << r.err;
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
}

// A rollback-journal database copied while a writer was mid-transaction (a crash snapshot) holds
// a hot -journal. A reader opened it immutable, read half a transaction and called the intact
// database damaged ("restore it from a copy"); a writer rolls the journal back.
TEST(ReadOnlyStoreSchema, AnUnfinishedTransactionIsNotReadAsDamage) {
  test::TempDir made, copy;
  const std::string path = made / "tuning.db", snapshot = copy / "tuning.db";
  {
    Store store(path);
    test::store_best(store, test::pocl_device("pthread").info, 256, tuned(), 2.0);
  }
  {
    sql::Database db(path, sql::OpenMode::kReadWrite);
    db.exec("PRAGMA journal_mode = DELETE");
    db.exec("PRAGMA cache_size = 1");  // changed pages spill into the file mid-transaction
    db.exec("BEGIN");
    db.exec("UPDATE best SET updated_at = '2030-01-01T00:00:00Z'");
    db.exec("CREATE TABLE filler (x BLOB)");
    db.exec(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) "
        "INSERT INTO filler SELECT randomblob(4000) FROM n");
    fs::copy_file(path, snapshot);
    fs::copy_file(path + "-journal", snapshot + "-journal");
    db.exec("ROLLBACK");
  }
  ASSERT_GT(fs::file_size(snapshot + "-journal"), 0u);
  try {
    ParameterLookup lookup(snapshot);
    ADD_FAILURE() << "half a transaction was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("-journal"), std::string::npos) << e.what();
    // The fix it names is a command to paste: with this database's path, not a placeholder.
    EXPECT_NE(std::string(e.what()).find("`sqlite3 '" + snapshot + "' 'PRAGMA quick_check'`"),
              std::string::npos)
        << e.what();
  }
  { Store writer(snapshot); }  // rolls the transaction back
  EXPECT_EQ(ParameterLookup(snapshot).entries(), 1u);
  // A journal whose header was zeroed at its commit (journal_mode = PERSIST) holds nothing.
  std::ofstream(snapshot + "-journal", std::ios::binary) << std::string(512, '\0');
  EXPECT_EQ(ParameterLookup(snapshot).entries(), 1u);
}

// Another program's SQLite file is not made an mmtune database by a reader or a tune, and an
// empty file (a database truncated by a full disk, say) is said to be empty, not read as one.
// Another program's SQLite file, whatever its user_version (which SQLite offers every program
// and mmtune keeps its schema version in): older, current and newer than mmtune's.
TEST(ForeignDatabase, IsRefusedAndLeftAsItWas) {
  test::TempDir dir;
  for (const int version : {0, 2, 5, 99}) {
    const std::string foreign = dir / ("notes" + std::to_string(version) + ".db");
    {
      sql::Database db(foreign, sql::OpenMode::kCreate);
      db.exec("CREATE TABLE notes (x TEXT)");
      db.exec("PRAGMA user_version = " + std::to_string(version));
    }
    const auto size = fs::file_size(foreign);
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"history", "--db", foreign},
             {"--device", "pthread", "--n", "16", "--db", foreign, "--budget", "1"}}) {
      const auto r = test::run_mmtune(args, {{"POCL_DEVICES", "pthread"}});
      EXPECT_EQ(r.exit_code, kExitUsage) << version << ": " << r.err;
      EXPECT_NE(r.err.find("not an mmtune database"), std::string::npos) << r.err;
    }
    sql::Database db(foreign, sql::OpenMode::kReadWrite);
    auto q = db.prepare("SELECT group_concat(name) FROM sqlite_master");
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.text(0), "notes");
    EXPECT_EQ(db.schema_version(), version);
    EXPECT_EQ(fs::file_size(foreign), size);
    EXPECT_FALSE(fs::exists(foreign + "-wal")) << version;
  }

  const std::string empty = dir / "empty.db";
  { std::ofstream touch(empty); }
  const auto r = test::run_mmtune({"history", "--db", empty});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("is empty"), std::string::npos) << r.err;
  EXPECT_EQ(fs::file_size(empty), 0u);
}

// Not a regular file, or missing for a reader: exit 2 with one line, and nothing is created
// (SQLite would have left a -journal beside /dev/null).
TEST(NotARegularFile, DevNullAndMissingDatabasesAreRefusedWithoutCreatingAnything) {
  const std::string journal = "/dev/null-journal";
  if (fs::is_regular_file(journal)) fs::remove(journal);  // left by an older mmtune
  test::TempDir dir;
  const std::vector<std::vector<std::string>> commands = {
      {"history", "--db", "/dev/null"},
      {"best", "--db", "/dev/null", "--device", "pthread", "--n", "64"},
      {"import", "--db", "/dev/null", "/dev/null"},
      {"--device", "pthread", "--n", "16", "--db", "/dev/null", "--budget", "1"},
      {"history", "--db", dir / "missing.db"},
      {"--device", "pthread", "--n", "16", "--db", dir.path, "--budget", "1"},
  };
  for (const auto& args : commands) {
    const auto r = test::run_mmtune(args, {{"POCL_DEVICES", "pthread"}});
    EXPECT_EQ(r.exit_code, kExitUsage) << args[0] << " " << args[2] << ": " << r.err;
    EXPECT_EQ(test::line_count(r.err), 1) << r.err;
  }
  const auto env = test::run_mmtune({"history"}, {{"MMTUNE_DB", "/dev/null"}});
  EXPECT_EQ(env.exit_code, kExitUsage) << env.err;
  EXPECT_NE(env.err.find("not a regular file"), std::string::npos) << env.err;
  EXPECT_THROW(ParameterLookup("/dev/null"), UsageError);
  EXPECT_THROW(ParameterLookup(dir / "missing.db"), UsageError);
  EXPECT_THROW(ParameterLookup(dir.path), UsageError);
  EXPECT_THROW(Store("/dev/null"), UsageError);
  EXPECT_FALSE(fs::exists(journal));
  EXPECT_FALSE(fs::exists("/dev/null-wal"));
  EXPECT_FALSE(fs::exists(dir / "missing.db"));
  EXPECT_TRUE(fs::is_empty(dir.path));
}

// A reader does not make an empty database an mmtune one: on a server a lookup created the
// whole schema, where an empty SQLite file was refused.
class EmptyDatabase : public test::BackendTest {};
MMTUNE_INSTANTIATE_BACKENDS(EmptyDatabase);

TEST_P(EmptyDatabase, IsRefusedByReadersAndLeftEmpty) {
  std::string db = fresh_db();
  if (sqlite()) std::ofstream(db).flush();  // an empty file, as a server's new database is
  try {
    ParameterLookup lookup(db);
    ADD_FAILURE() << "an empty database was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("is empty"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Store(db, Store::Access::kReadOnly), UsageError);
  EXPECT_EQ(sql::Database(db, sql::OpenMode::kReadWrite).schema_version(), 0);
  Store writer(db);  // a writer creates the schema; a reader then reads it
  EXPECT_EQ(ParameterLookup(db).entries(), 0u);
}

}  // namespace
}  // namespace mmtune
