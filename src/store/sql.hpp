// One small SQL layer over two databases: SQLite files and PostgreSQL servers (libpq). Callers
// write each statement once, with '?' placeholders (rewritten to $1, $2, ... for PostgreSQL);
// values are always bound, never spliced into SQL text. RAII throughout: a Database owns its
// connection, a Statement its prepared statement or result, a Transaction rolls back unless
// committed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>

namespace mmtune::sql {

enum class Dialect { kSqlite, kPostgres };

// True for postgresql:// and postgres:// connection URIs (anything else is a SQLite path).
bool is_postgres_url(const std::string& target);
// Whether this build has the PostgreSQL backend (libpq was found at configure time).
bool have_postgres();
// A connection URI without its password, for messages and reports.
std::string redact_url(const std::string& url);

// Database failures. `code` is the SQLite result code (0 for PostgreSQL); `sqlstate` is
// PostgreSQL's five-character error code ("" for SQLite and for connection failures).
class Error : public std::runtime_error {
 public:
  Error(const std::string& what, int code, std::string sqlstate = "")
      : std::runtime_error(what), code_(code), sqlstate_(std::move(sqlstate)) {}
  int code() const { return code_; }
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  int code_;
  std::string sqlstate_;
};

using Value = std::variant<std::nullptr_t, std::int64_t, double, std::string>;

namespace detail {
class Connection;
class Cursor;
}  // namespace detail

class Statement {
 public:
  explicit Statement(std::unique_ptr<detail::Cursor> cursor);
  ~Statement();
  Statement(Statement&& o) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;

  // Binds by 1-based position; returns *this for chaining.
  Statement& bind(int i, const Value& v);
  Statement& bind(int i, std::int64_t v) { return bind(i, Value(v)); }
  Statement& bind(int i, int v) { return bind(i, std::int64_t(v)); }
  Statement& bind(int i, std::size_t v) { return bind(i, std::int64_t(v)); }
  Statement& bind(int i, bool v) { return bind(i, std::int64_t(v ? 1 : 0)); }
  Statement& bind(int i, double v) { return bind(i, Value(v)); }
  Statement& bind(int i, const std::string& v) { return bind(i, Value(v)); }
  Statement& bind(int i, const char* v) { return bind(i, std::string(v)); }
  Statement& bind(int i, std::nullptr_t) { return bind(i, Value(nullptr)); }
  template <class T>
  Statement& bind(int i, const std::optional<T>& v) {
    if (!v.has_value()) return bind(i, nullptr);
    const T value = v.value();  // a copy: GCC 12 misreads the optional's storage otherwise
    return bind(i, value);
  }

  bool step();   // true while a row is available
  void run();    // step() to completion
  void reset();  // ready to run again; bindings cleared

  // Column values of the current row (0-based); NULL reads as 0, 0.0 or "".
  bool is_null(int col) const;
  std::int64_t integer(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  std::optional<double> optional_real(int col) const;

 private:
  std::unique_ptr<detail::Cursor> cursor_;
};

// How a SQLite file is opened (a PostgreSQL server database is always opened the same way).
enum class OpenMode {
  kReadWrite,  // an existing file, for reading and writing
  kCreate,     // the same, creating the file when missing
  kReadOnly,   // an existing file, reading only (needs no write right on file or directory)
  kImmutable,  // the same for a WAL file in a directory nobody can write: SQLite then assumes
               // that no one changes the file while it is open (immutable=1)
};

class Database {
 public:
  // `target`: a SQLite file, or a postgresql:// / postgres:// URI (the database must exist).
  // `busy_timeout_ms` bounds waits for other writers' locks. Throws UsageError for a PostgreSQL
  // URI when built without libpq, sql::Error otherwise.
  Database(const std::string& target, OpenMode mode, int busy_timeout_ms = 30000);
  ~Database();
  Database(Database&&) noexcept;
  Database& operator=(Database&&) = delete;
  Database(const Database&) = delete;

  void exec(const std::string& sql);  // statements without parameters (schema, settings)
  Statement prepare(const std::string& sql);
  std::int64_t last_insert_id();  // the id the latest INSERT on this connection generated
  Dialect dialect() const;
  const std::string& path() const { return path_; }  // the file, or the URI without password

  // The schema version: PRAGMA user_version (SQLite) or the schema_version table (PostgreSQL).
  // Read and write it inside a Transaction.
  int schema_version();
  void set_schema_version(int version);
  // Schema SQL written for SQLite in this database's dialect: for PostgreSQL, "INTEGER PRIMARY
  // KEY" becomes BIGSERIAL, INTEGER BIGINT (SQLite's integers are 64-bit), REAL DOUBLE PRECISION.
  std::string ddl(const std::string& sqlite_ddl) const;

  detail::Connection& connection() { return *conn_; }

 private:
  std::unique_ptr<detail::Connection> conn_;
  std::string path_;
};

// A write transaction that other writers wait for (SQLite: BEGIN IMMEDIATE; PostgreSQL: BEGIN
// plus a transaction-scoped advisory lock, so read-then-write sequences such as an import's
// duplicate checks cannot interleave across hosts). Rolls back in the destructor unless
// commit() was called.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace mmtune::sql
