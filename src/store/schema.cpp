// Opening a store and its schema: the migrations from version 1 on, the checks for what cannot
// be read or written, and the mmtune errors for a database's failures.
#include "store/store.hpp"

#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "mmtune/error.hpp"
#include "store/store_detail.hpp"

namespace mmtune {
namespace {

// `text` as one word for a POSIX shell, in single quotes ('\'' for each quote it holds).
std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace fs = std::filesystem;

// Each entry migrates from version i to i + 1.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  vendor TEXT NOT NULL, name TEXT NOT NULL, driver_version TEXT NOT NULL,
  platform TEXT NOT NULL DEFAULT '', platform_version TEXT NOT NULL DEFAULT '',
  device_version TEXT NOT NULL DEFAULT '', opencl_c_version TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL DEFAULT '', compute_units INTEGER, max_clock_mhz INTEGER,
  global_mem_bytes INTEGER, local_mem_bytes INTEGER, max_work_group_size INTEGER,
  source TEXT NOT NULL DEFAULT 'measured'
);
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id),
  command_line TEXT NOT NULL, strategy TEXT NOT NULL, kernels TEXT NOT NULL, space TEXT NOT NULL,
  seed INTEGER NOT NULL, budget INTEGER NOT NULL, time_limit_s REAL NOT NULL,
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL, precision INTEGER NOT NULL,
  layout TEXT NOT NULL, trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL,
  started_at TEXT NOT NULL, ended_at TEXT, outcome TEXT NOT NULL
);
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  session_id INTEGER REFERENCES sessions(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel TEXT NOT NULL, config TEXT NOT NULL, params TEXT NOT NULL,
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL, precision INTEGER NOT NULL,
  layout TEXT NOT NULL, trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL,
  status TEXT NOT NULL, message TEXT NOT NULL DEFAULT '',
  build_s REAL, median_ms REAL, min_ms REAL, max_ms REAL, kernel_median_ms REAL,
  gflops REAL, kernel_gflops REAL, max_error REAL, samples TEXT NOT NULL DEFAULT '[]',
  measured_at TEXT NOT NULL
);
CREATE INDEX measurements_by_problem
  ON measurements(device_id, m, n, k, precision, layout, trans_a, trans_b, kernel);
CREATE TABLE best (
  device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel TEXT NOT NULL,
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL, precision INTEGER NOT NULL,
  layout TEXT NOT NULL, trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL,
  measurement_id INTEGER NOT NULL REFERENCES measurements(id),
  config TEXT NOT NULL, median_ms REAL NOT NULL, gflops REAL NOT NULL, kernel_gflops REAL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (device_id, kernel, m, n, k, precision, layout, trans_a, trans_b)
);
)sql",
    // 2: provenance of sessions, for databases shared by several hosts.
    R"sql(
ALTER TABLE sessions ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN mmtune_version TEXT NOT NULL DEFAULT '';
)sql",
    // 3: side-by-side benchmarks (mmtune bench) and measured device peaks (mmtune roofline).
    R"sql(
CREATE TABLE bench (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id),
  run_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  kernel TEXT NOT NULL DEFAULT '', config TEXT NOT NULL DEFAULT '',
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL, precision INTEGER NOT NULL,
  layout TEXT NOT NULL, trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL,
  status TEXT NOT NULL, note TEXT NOT NULL DEFAULT '',
  median_ms REAL, min_ms REAL, max_ms REAL, gflops REAL,
  kernel_median_ms REAL, kernel_gflops REAL,
  measured_at TEXT NOT NULL
);
CREATE INDEX bench_by_device ON bench(device_id, precision, m, n, k);
CREATE TABLE roofline (
  device_id INTEGER NOT NULL REFERENCES devices(id),
  precision INTEGER NOT NULL,
  peak_gflops REAL NOT NULL,
  bandwidth_gbs REAL NOT NULL,
  measured_at TEXT NOT NULL,
  PRIMARY KEY (device_id, precision)
);
)sql",
    // 4: the tuning process of a session, so that one left `running` by a process that is gone
    // (SIGKILL, or a disk too full to record its end) can be told apart from one still running.
    R"sql(
ALTER TABLE sessions ADD COLUMN pid INTEGER;
)sql",
    // 5: an import looks each measurement up by its configuration; a recorded landscape holds
    // thousands per kernel and problem, which the problem index alone scans one by one.
    R"sql(
CREATE INDEX measurements_by_config
  ON measurements(device_id, m, n, k, precision, layout, trans_a, trans_b, kernel, config);
)sql",
    // 6: replays of the search strategies on a stored landscape (`mmtune simulate --curve
    // --save`), shown by the report: one row per landscape, strategy and strategy options (the
    // latest replay replaces an earlier one), its curve in replay_curve.
    R"sql(
CREATE TABLE replays (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel TEXT NOT NULL,
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL, precision INTEGER NOT NULL,
  layout TEXT NOT NULL, trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL,
  strategy TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '',
  configurations INTEGER NOT NULL, seeds INTEGER NOT NULL, budget INTEGER NOT NULL,
  tolerance REAL NOT NULL, reached INTEGER NOT NULL, median_evaluations REAL NOT NULL,
  random_expected REAL NOT NULL, measured_at TEXT NOT NULL,
  UNIQUE (device_id, kernel, m, n, k, precision, layout, trans_a, trans_b, strategy, settings)
);
CREATE TABLE replay_curve (
  replay_id INTEGER NOT NULL REFERENCES replays(id),
  evaluations INTEGER NOT NULL, mean_fraction REAL NOT NULL,
  PRIMARY KEY (replay_id, evaluations)
);
)sql",
    // 6 -> 7: GB/s of a measurement whose kernel states the bytes it moves (spec kernels); other
    // processes' share of the CPUs while it was measured (a busy machine's figures are slower).
    R"sql(
ALTER TABLE measurements ADD COLUMN gbps REAL;
ALTER TABLE measurements ADD COLUMN other_load REAL;
)sql",
    // 7 -> 8: strided-batched problems: `batch` multiplications in one call are a problem of
    // their own. The best's key gains the column, so that table is rebuilt.
    R"sql(
ALTER TABLE sessions ADD COLUMN batch INTEGER NOT NULL DEFAULT 1;
ALTER TABLE measurements ADD COLUMN batch INTEGER NOT NULL DEFAULT 1;
ALTER TABLE bench ADD COLUMN batch INTEGER NOT NULL DEFAULT 1;
ALTER TABLE replays ADD COLUMN batch INTEGER NOT NULL DEFAULT 1;
CREATE TABLE best_by_batch (
  device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel TEXT NOT NULL,
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL, precision INTEGER NOT NULL,
  layout TEXT NOT NULL, trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL,
  batch INTEGER NOT NULL DEFAULT 1,
  measurement_id INTEGER NOT NULL REFERENCES measurements(id),
  config TEXT NOT NULL, median_ms REAL NOT NULL, gflops REAL NOT NULL, kernel_gflops REAL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (device_id, kernel, m, n, k, precision, layout, trans_a, trans_b, batch)
);
INSERT INTO best_by_batch (device_id, kernel, m, n, k, precision, layout, trans_a, trans_b,
  batch, measurement_id, config, median_ms, gflops, kernel_gflops, updated_at)
  SELECT device_id, kernel, m, n, k, precision, layout, trans_a, trans_b, 1, measurement_id,
  config, median_ms, gflops, kernel_gflops, updated_at FROM best;
DROP TABLE best;
ALTER TABLE best_by_batch RENAME TO best;
)sql",
};

static_assert(std::size(kMigrations) == kSchemaVersion, "one migration per schema version");

UsageError newer_schema(const std::string& path, int version) {
  return UsageError("database '" + path + "' has schema version " + std::to_string(version) +
                    ", newer than this mmtune understands (" + std::to_string(kSchemaVersion) +
                    "); upgrade mmtune");
}

// A reader does not make an empty database an mmtune one (a server's empty database got the
// whole schema from a lookup; an empty SQLite file was refused).
UsageError empty_database(const std::string& path) {
  return UsageError("database '" + path +
                    "' is empty: nothing is stored in it yet (tune, bench or import into it "
                    "first)");
}

bool sqlite_cannot_read(const sql::Error& e) {
  const int primary = e.code() & 0xff;
  return primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_PERM;
}

// A rollback journal that still holds a transaction: its header starts with SQLite's magic
// number (a committed journal is deleted, truncated or, in PERSIST mode, its header zeroed).
bool hot_journal(const std::string& journal) {
  static constexpr unsigned char kMagic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
  std::ifstream in(journal, std::ios::binary);
  unsigned char header[8] = {};
  return in.read(reinterpret_cast<char*>(header), sizeof header) &&
         std::equal(std::begin(header), std::end(header), std::begin(kMagic));
}

sql::Database open(const std::string& path, Store::Access access) {
  const bool read_only = access == Store::Access::kReadOnly;
  if (sql::is_postgres_url(path)) {
    try {
      return sql::Database(path, sql::OpenMode::kReadWrite);  // the server's database must exist
    } catch (const sql::Error& e) {
      throw UsageError(e.what());
    }
  }
  const fs::path p(path);
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (read_only && !fs::exists(st)) {
    throw UsageError("database '" + path + "' does not exist; tune, bench or import into it first");
  }
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) {
    throw UsageError("database directory '" + dir.string() + "' does not exist");
  }
  if (fs::is_directory(st)) throw UsageError("database path '" + path + "' is a directory");
  // A device, pipe or socket (e.g. /dev/null) would make SQLite fail late and leave a journal
  // beside it: refused before anything is created.
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    throw UsageError("database path '" + path + "' is not a regular file");
  }
  try {
    if (!read_only) return sql::Database(path, sql::OpenMode::kCreate);
    sql::Database db(path, sql::OpenMode::kReadOnly);
    bool immutable = false;
    try {
      // A WAL database needs its -shm file, which a read-only directory cannot get.
      db.prepare("SELECT count(*) FROM sqlite_master").step();
    } catch (const sql::Error& e) {
      immutable = sqlite_cannot_read(e);  // other errors: Store's checks name them
    }
    if (!immutable) return db;
    // Immutable means SQLite ignores the -wal file: what was committed there would be hidden.
    if (fs::file_size(path + "-wal", ec) > 0 && !ec) {
      throw UsageError("database '" + path + "' has committed changes in its -wal file, which " +
                       "cannot be read without creating its -shm file in this read-only " +
                       "directory: copy both files to a writable directory");
    }
    // And the -journal of a writer that died mid-transaction: read without rolling it back, the
    // file is half a transaction (it was reported damaged, its committed data intact).
    if (hot_journal(path + "-journal")) {
      throw UsageError("database '" + path + "' holds a transaction a writer left unfinished " +
                       "(its -journal file), which only a writer can roll back: run `sqlite3 " +
                       shell_quoted(path) +
                       " 'PRAGMA quick_check'` once with write access to it and its directory");
    }
    return sql::Database(path, sql::OpenMode::kImmutable);
  } catch (const sql::Error& e) {
    throw UsageError(e.what());  // "cannot open database '<path>': <why>"
  }
}

}  // namespace

void throw_database_error(const std::string& path, const sql::Error& e) {
  const std::string where = path.empty() ? "the database" : "database '" + path + "'";
  // PostgreSQL reports SQLSTATEs instead of SQLite's result codes.
  const std::string& state = e.sqlstate();
  if (state == "53100") {  // disk_full
    throw StorageError(where + " is full (no space left on the server's disk): " + e.what() +
                       "; everything committed before is kept");
  }
  if (state == "42501") throw UsageError(where + ": permission denied (" + e.what() + ")");
  if (state == "55P03") {  // lock_not_available (lock_timeout)
    throw StorageError(where + " stayed locked by another process: " + e.what());
  }
  switch (e.code() & 0xff) {
    case SQLITE_FULL:
      throw StorageError(where + " is full (no space left on its disk, or its size limit): " +
                         e.what() + "; everything committed before is kept");
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      throw UsageError(where + " is damaged (" + e.what() +
                       "); restore it from a copy or use another --db");
    case SQLITE_READONLY:
    case SQLITE_PERM:
      throw UsageError(where + " is not writable (" + e.what() + ")");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw StorageError(where + " stayed locked by another process: " + e.what());
    default:  // reads end here too (a table or column an older program dropped)
      throw StorageError(where + " failed: " + e.what() + "; everything committed before is kept");
  }
}

std::vector<std::string> schema_migrations() {
  return {std::begin(kMigrations), std::end(kMigrations)};
}

std::string Store::default_path(bool create_directory) {
  if (const char* env = std::getenv("MMTUNE_DB"); env && *env) return env;
  fs::path base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = fs::path(home) / ".local" / "share";
  } else {
    throw UsageError("cannot find a place for the database: set MMTUNE_DB or HOME, or pass --db");
  }
  std::error_code ec;
  if (create_directory) fs::create_directories(base / "mmtune", ec);
  return (base / "mmtune" / "tuning.db").string();
}

Store::Store(const std::string& path, Access access) : db_(open(path, access)) {
  try {
    // A truncated or damaged file is refused before anything reads or writes it (a full scan
    // of the b-trees; tuning databases are small). A server checks its own storage.
    if (db_.dialect() == sql::Dialect::kSqlite) {
      auto check = db_.prepare("PRAGMA quick_check(1)");
      if (check.step() && check.text(0) != "ok") {
        std::string why = check.text(0).substr(0, 200);
        std::replace(why.begin(), why.end(), '\n', ' ');  // error messages are one line
        throw UsageError("'" + path + "' is damaged (" + why +
                         "); restore it from a copy or use another --db");
      }
    }
    if (access == Access::kReadOnly && db_.dialect() == sql::Dialect::kSqlite) {
      check_readable_schema(path);
      return;
    }
    // A server: an empty database is refused, the current schema only read, and an older one
    // upgraded below as a writer would, where the role may.
    if (access == Access::kReadOnly) {
      const int version = db_.schema_version();
      if (version == 0) throw empty_database(db_.path());
      if (version > kSchemaVersion) throw newer_schema(db_.path(), version);
      if (version == kSchemaVersion) return;
    }
    check_not_foreign(path);
    // Switching to WAL needs a moment without other connections; it persists in the file, so
    // only the first opener of a new database ever has to wait here.
    for (int attempt = 0; db_.dialect() == sql::Dialect::kSqlite; ++attempt) {
      try {
        db_.exec("PRAGMA journal_mode = WAL");
        break;
      } catch (const sql::Error& e) {
        if ((e.code() & 0xff) != SQLITE_BUSY || attempt >= 300) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    migrate();
    // Test-only: a size limit in pages stands in for a full disk (PRAGMA max_page_count).
    const long pages = test_switch("MMTUNE_TEST_DB_MAX_PAGES");
    if (pages > 0 && db_.dialect() == sql::Dialect::kSqlite) {
      db_.exec("PRAGMA max_page_count = " + std::to_string(pages));
    }
  } catch (const sql::Error& e) {
    const int primary = e.code() & 0xff;
    if (primary == SQLITE_NOTADB) {
      throw UsageError("'" + path + "' is not a valid mmtune database (" + e.what() + ")");
    }
    if (primary == SQLITE_CORRUPT) {
      throw UsageError("'" + path + "' is damaged (" + e.what() +
                       "); restore it from a copy or use another --db");
    }
    if (primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN || primary == SQLITE_PERM) {
      throw UsageError("database '" + path + "' " +
                       (access == Access::kReadOnly ? "cannot be read" : "is not writable") + " (" +
                       e.what() + ")");
    }
    if (e.sqlstate() == "42501") {  // insufficient_privilege: e.g. no right to create the schema
      throw UsageError("database '" + db_.path() + "': permission denied (" + e.what() + ")");
    }
    throw_database_error(db_.path(), e);  // a lock, a full disk, an I/O error: the database's
  }
}

void Store::check_not_foreign(const std::string& path) {
  if (db_.dialect() != sql::Dialect::kSqlite) return;
  const auto count = [&](const char* query) {
    auto q = db_.prepare(query);
    return q.step() ? q.integer(0) : 0;
  };
  const std::int64_t tables =
      count("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'");
  const int version = db_.schema_version();
  if (version == 0) {  // new: only an empty file may become a database
    if (tables > 0) {
      throw UsageError("'" + path + "' is not an mmtune database (it holds other tables)");
    }
    return;
  }
  // A schema version is any program's user_version: every mmtune schema has these tables.
  const std::int64_t ours = count(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('devices', "
      "'sessions', 'measurements', 'best')");
  if (ours != 4 && (version <= kSchemaVersion || (ours == 0 && tables > 0))) {
    throw UsageError("'" + path + "' is not an mmtune database (its schema version is " +
                     std::to_string(version) + ", but it lacks mmtune's tables)");
  }
  // Refused before anything is written (the switch to WAL would change the file).
  if (version > kSchemaVersion) throw newer_schema(path, version);
}

void Store::check_readable_schema(const std::string& path) {
  check_not_foreign(path);
  int version = db_.schema_version();
  if (version == 0) throw empty_database(path);
  if (version > kSchemaVersion) throw newer_schema(path, version);
  if (version == kSchemaVersion) return;
  // An older schema is upgraded once by a writer; this connection then reads the new one.
  try {
    Store upgrade(path, Access::kReadWrite);
  } catch (const UsageError& e) {
    throw UsageError("database '" + path + "' has schema version " + std::to_string(version) +
                     ", older than this mmtune's " + std::to_string(kSchemaVersion) +
                     ", and cannot be upgraded here: open it once with write access (" + e.what() +
                     ")");
  }
  version = db_.schema_version();
  if (version != kSchemaVersion) {
    throw UsageError("database '" + path + "' was not upgraded to schema version " +
                     std::to_string(kSchemaVersion));
  }
}

namespace {

// A server role's privileges on the tables, to be granted again after a migration step: a step
// that rebuilds a table (8 rebuilt `best`) dropped its grants, and every consumer whose role
// may only SELECT failed with "permission denied for table best".
struct TableGrant {
  std::string table, grantee, privilege;
  bool grantable = false;  // WITH GRANT OPTION
};

std::vector<TableGrant> table_grants(sql::Database& db) {
  std::vector<TableGrant> out;
  if (db.dialect() != sql::Dialect::kPostgres) return out;
  auto q = db.prepare(
      "SELECT table_name, grantee, privilege_type, is_grantable FROM "
      "information_schema.table_privileges WHERE table_schema = current_schema() AND grantee <> "
      "current_user");
  while (q.step()) out.push_back({q.text(0), q.text(1), q.text(2), q.text(3) == "YES"});
  return out;
}

std::string quoted_identifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void grant_again(sql::Database& db, const std::vector<TableGrant>& grants) {
  static const std::set<std::string> kPrivileges = {
      "SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER", "MAINTAIN"};
  for (const TableGrant& g : grants) {
    auto exists = db.prepare("SELECT to_regclass(?) IS NOT NULL");
    exists.bind(1, quoted_identifier(g.table));
    if (!kPrivileges.count(g.privilege) || !exists.step() || !exists.integer(0)) continue;
    db.exec("GRANT " + g.privilege + " ON TABLE " + quoted_identifier(g.table) + " TO " +
            (g.grantee == "PUBLIC" ? g.grantee : quoted_identifier(g.grantee)) +
            (g.grantable ? " WITH GRANT OPTION" : ""));
  }
}

}  // namespace

void Store::migrate() {
  // The version is read inside the write transaction: two processes opening a new database at
  // once must not both apply the same step.
  while (true) {
    sql::Transaction t(db_);
    const int version = db_.schema_version();
    if (version > kSchemaVersion) throw newer_schema(db_.path(), version);
    if (version == kSchemaVersion) return;  // the transaction only read: rolling back is fine
    const auto grants = table_grants(db_);
    try {
      db_.exec(db_.ddl(kMigrations[version]));
    } catch (const sql::Error& e) {
      // A step that does not fit the tables (a column it adds is there already): the stored
      // version is not the schema's. A full disk or a lock stays what it is.
      const bool misfit = e.sqlstate().empty()
                              ? (e.code() & 0xff) == SQLITE_ERROR
                              : e.sqlstate().rfind("42", 0) == 0 && e.sqlstate() != "42501";
      if (version == 0 || !misfit) throw;
      throw UsageError("database '" + db_.path() +
                       "' is damaged (its tables are not those of "
                       "schema version " +
                       std::to_string(version) + ": " + e.what() +
                       "); restore it from a copy or use another --db");
    }
    grant_again(db_, grants);
    db_.set_schema_version(version + 1);
    t.commit();
  }
}

}  // namespace mmtune
