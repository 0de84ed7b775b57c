// Databases that are not what they say: a schema version no mmtune wrote, on both backends
// (refused as damage, the database untouched), a lock held past the wait, and names SQLite
// reads specially.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "mmtune/error.hpp"
#include "store/sql.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

class StoreDamageTest : public test::BackendTest {};
MMTUNE_INSTANTIATE_BACKENDS(StoreDamageTest);

void expect_damaged(const std::string& target, Store::Access access) {
  try {
    Store s(target, access);
    ADD_FAILURE() << "opened";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged"), std::string::npos) << e.what();
  }
}

// A negative version indexed the migration steps before their start (undefined behaviour: "error:
// basic_string: construction from null is not valid", exit 1).
TEST_P(StoreDamageTest, ANegativeSchemaVersionIsDamage) {
  const std::string target = fresh_db("negative.db");
  { Store s(target); }
  {
    sql::Database db(target, sql::OpenMode::kReadWrite);
    db.set_schema_version(-1);
  }
  expect_damaged(target, Store::Access::kReadWrite);
  expect_damaged(target, Store::Access::kReadOnly);
}

// A current database that says an older version: the step that adds a column met it there
// ("duplicate column name: pid", exit 1, read as a failed write).
TEST_P(StoreDamageTest, AVersionItsTablesAreNotIsDamage) {
  const std::string target = fresh_db("misfit.db");
  { Store s(target); }
  {
    sql::Database db(target, sql::OpenMode::kReadWrite);
    db.set_schema_version(3);
  }
  expect_damaged(target, Store::Access::kReadWrite);
  sql::Database db(target, sql::OpenMode::kReadWrite);
  EXPECT_EQ(db.schema_version(), 3) << "the failed step was rolled back";
}

// A database another process keeps locked past the wait while it is opened (here, while an older
// schema is upgraded: WAL lets the checks before read) is a failure of the database: a
// StorageError (exit 4; kDatabaseError for the CLBlast entry point). It was a plain
// mmtune::Error, which reads as a failed kernel build.
TEST(StoreLocked, ALockHeldPastTheWaitIsAStorageError) {
  test::TempDir dir;
  const std::string path = dir / "old.db";
  {
    sql::Database db(path, sql::OpenMode::kCreate);
    db.exec(db.ddl(schema_migrations()[0]));
    db.set_schema_version(1);
    db.exec("PRAGMA journal_mode = WAL");
  }
  sql::Database holder(path, sql::OpenMode::kReadWrite);
  holder.exec("BEGIN EXCLUSIVE");
  try {
    Store s(path);  // waits for the lock as long as every open does (30 s)
    ADD_FAILURE() << "opened";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("stayed locked"), std::string::npos) << e.what();
  }
  holder.exec("ROLLBACK");
  { Store s(path); }  // upgraded once the lock is gone
  EXPECT_EQ(sql::Database(path, sql::OpenMode::kReadWrite).schema_version(), kSchemaVersion);
}

// "--db :memory:" kept nothing while it said "Stored in :memory:", and "--db file:u.db" stored in
// u.db, where a later command looked for file:u.db and found nothing: both are file names.
TEST(StorePaths, NamesSqliteReadsSpeciallyAreFiles) {
  test::TempDir dir;
  struct InDir {  // back where it was, whatever fails
    std::filesystem::path was = std::filesystem::current_path();
    ~InDir() { std::filesystem::current_path(was); }
  } in_dir;
  std::filesystem::current_path(dir.path);
  for (const std::string name : {":memory:", "file:u.db"}) {
    SCOPED_TRACE(name);
    const DeviceInfo d = test::pocl_device("pthread").info;
    { Store(name).upsert_device(d); }
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / name));
    EXPECT_TRUE(Store(name, Store::Access::kReadOnly).device(d.key).has_value());
    // Read immutable (a WAL database in a read-only directory), ":memory:" was SQLite's
    // in-memory database: an empty one.
    EXPECT_EQ(sql::Database(name, sql::OpenMode::kImmutable).schema_version(), kSchemaVersion);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "u.db"));
}

}  // namespace
}  // namespace mmtune
