// The SQLite backend of mmtune::sql.
#include <sqlite3.h>

#include "store/sql_backend.hpp"

namespace mmtune::sql::detail {
namespace {

[[noreturn]] void fail(sqlite3* db, int rc, const std::string& what) {
  throw Error(what + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)), rc);
}

class SqliteCursor final : public Cursor {
 public:
  SqliteCursor(sqlite3* db, const std::string& sql) : db_(db) {
    const int rc = sqlite3_prepare_v2(db, sql.c_str(), int(sql.size()), &stmt_, nullptr);
    if (rc != SQLITE_OK) fail(db, rc, "cannot prepare SQL");
  }
  ~SqliteCursor() override { sqlite3_finalize(stmt_); }
  SqliteCursor(const SqliteCursor&) = delete;
  SqliteCursor& operator=(const SqliteCursor&) = delete;

  void bind(int i, const Value& v) override {
    int rc = SQLITE_OK;
    if (const auto* n = std::get_if<std::int64_t>(&v)) {
      rc = sqlite3_bind_int64(stmt_, i, *n);
    } else if (const auto* d = std::get_if<double>(&v)) {
      rc = sqlite3_bind_double(stmt_, i, *d);
    } else if (const auto* s = std::get_if<std::string>(&v)) {
      rc = sqlite3_bind_text(stmt_, i, s->data(), int(s->size()), SQLITE_TRANSIENT);
    } else {
      rc = sqlite3_bind_null(stmt_, i);
    }
    if (rc != SQLITE_OK) fail(db_, rc, "bind");
  }
  bool step() override {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, rc, "SQL step failed");
  }
  void reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  bool is_null(int col) const override { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::int64_t integer(int col) const override { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const override { return sqlite3_column_double(stmt_, col); }
  std::string text(int col) const override {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, col)) : "";
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// A file path as the path part of a SQLite URI: characters that would end it are escaped.
std::string uri_path(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char ch : path) {
    if (ch == '?' || ch == '#' || ch == '%' || ch < 0x21 || ch >= 0x7f) {
      out += '%';
      out += hex[ch >> 4];
      out += hex[ch & 15];
    } else {
      out += char(ch);
    }
  }
  return out;
}

class SqliteConnection final : public Connection {
 public:
  SqliteConnection(const std::string& path, OpenMode mode, int busy_timeout_ms) {
    int flags = SQLITE_OPEN_NOMUTEX;
    // A database is a file by its path: SQLite would take ":memory:" as a database that keeps
    // nothing and "file:x.db" as a URI (naming x.db), where a path names a file of that name.
    const std::string file = path == ":memory:" || path.rfind("file:", 0) == 0 ? "./" + path : path;
    std::string name = file;
    switch (mode) {
      case OpenMode::kCreate:
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        break;
      case OpenMode::kReadWrite:
        flags |= SQLITE_OPEN_READWRITE;
        break;
      case OpenMode::kReadOnly:
        flags |= SQLITE_OPEN_READONLY;
        break;
      case OpenMode::kImmutable:
        flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
        name = "file:" + uri_path(file) + "?immutable=1";
        break;
    }
    const int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
      const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      db_ = nullptr;
      throw Error("cannot open database '" + path + "': " + msg, rc);
    }
    sqlite3_busy_timeout(db_, busy_timeout_ms);
    sqlite3_extended_result_codes(db_, 1);
    exec("PRAGMA foreign_keys = ON");
  }
  ~SqliteConnection() override { sqlite3_close_v2(db_); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  Dialect dialect() const override { return Dialect::kSqlite; }
  void exec(const std::string& sql) override {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
      const std::string msg = err ? err : sqlite3_errstr(rc);
      sqlite3_free(err);
      throw Error(msg, rc);
    }
  }
  std::unique_ptr<Cursor> prepare(const std::string& sql) override {
    return std::make_unique<SqliteCursor>(db_, sql);
  }
  std::int64_t last_insert_id() override { return sqlite3_last_insert_rowid(db_); }
  // IMMEDIATE: writers queue on the busy timeout instead of failing on a lock upgrade.
  void begin_write() override { exec("BEGIN IMMEDIATE"); }
  void commit() override { exec("COMMIT"); }
  void rollback() noexcept override {
    try {
      exec("ROLLBACK");
    } catch (...) {  // a failed rollback leaves SQLite to roll back on close
    }
  }
  int schema_version() override {
    SqliteCursor q(db_, "PRAGMA user_version");
    q.step();
    return int(q.integer(0));
  }
  void set_schema_version(int version) override {
    exec("PRAGMA user_version = " + std::to_string(version));  // a pragma takes no parameters
  }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<Connection> open_sqlite(const std::string& path, OpenMode mode,
                                        int busy_timeout_ms) {
  return std::make_unique<SqliteConnection>(path, mode, busy_timeout_ms);
}

}  // namespace mmtune::sql::detail
