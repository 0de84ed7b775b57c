#include "mmtune/sqlite.hpp"

#include <sqlite3.h>

namespace mmtune::sql {
namespace {

[[noreturn]] void fail(sqlite3* db, int rc, const std::string& what) {
  throw Error(what + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)), rc);
}

}  // namespace

Database::Database(const std::string& path, bool create, int busy_timeout_ms) : path_(path) {
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
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

Database::~Database() {
  sqlite3_close_v2(db_);
}

void Database::exec(const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw Error(msg, rc);
  }
}

Statement Database::prepare(const std::string& sql) {
  return Statement(db_, sql);
}
std::int64_t Database::last_insert_id() const {
  return sqlite3_last_insert_rowid(db_);
}
int Database::changes() const {
  return sqlite3_changes(db_);
}

Statement::Statement(sqlite3* db, const std::string& sql) : db_(db) {
  const int rc = sqlite3_prepare_v2(db, sql.c_str(), int(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) fail(db, rc, "cannot prepare SQL");
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}
Statement::Statement(Statement&& o) noexcept : db_(o.db_), stmt_(o.stmt_) {
  o.stmt_ = nullptr;
}

Statement& Statement::bind(int i, std::int64_t v) {
  if (const int rc = sqlite3_bind_int64(stmt_, i, v); rc != SQLITE_OK) fail(db_, rc, "bind");
  return *this;
}
Statement& Statement::bind(int i, double v) {
  if (const int rc = sqlite3_bind_double(stmt_, i, v); rc != SQLITE_OK) fail(db_, rc, "bind");
  return *this;
}
Statement& Statement::bind(int i, const std::string& v) {
  const int rc = sqlite3_bind_text(stmt_, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) fail(db_, rc, "bind");
  return *this;
}
Statement& Statement::bind(int i, std::nullptr_t) {
  if (const int rc = sqlite3_bind_null(stmt_, i); rc != SQLITE_OK) fail(db_, rc, "bind");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, rc, "SQL step failed");
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}
std::int64_t Statement::integer(int col) const {
  return sqlite3_column_int64(stmt_, col);
}
double Statement::real(int col) const {
  return sqlite3_column_double(stmt_, col);
}
std::string Statement::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, col)) : "";
}
std::optional<double> Statement::optional_real(int col) const {
  if (is_null(col)) return std::nullopt;
  return real(col);
}

Transaction::Transaction(Database& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}
Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {  // a failed rollback leaves SQLite to roll back on close
    }
  }
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace mmtune::sql
