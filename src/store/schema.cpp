// Opening a store: the checks for what cannot be read or written, and the mmtune errors for a
// database's failures (the schema's migrations are in migrations.cpp).
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

UsageError newer_schema(const std::string& path, int version) {
  return UsageError("database '" + path + "' has schema version " + std::to_string(version) +
                    ", newer than this mmtune understands (" + std::to_string(kSchemaVersion) +
                    "); upgrade mmtune");
}

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
    // No right to create the schema (42501) is a UsageError there; a lock, a full disk or an
    // I/O error a StorageError.
    throw_database_error(db_.path(), e);
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

}  // namespace mmtune
