// A thin RAII layer over the SQLite C API: a connection, prepared statements with bound
// parameters (SQL text never contains values), and transactions that roll back unless committed.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>

struct sqlite3;
struct sqlite3_stmt;

namespace mmtune::sql {

// SQLite failures; `code` is the SQLite result code.
class Error : public std::runtime_error {
 public:
  Error(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

class Statement;

class Database {
 public:
  // Opens (creating if allowed) with WAL, foreign keys and a busy timeout.
  Database(const std::string& path, bool create, int busy_timeout_ms = 30000);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql);  // statements without parameters (schema, pragmas)
  Statement prepare(const std::string& sql);
  std::int64_t last_insert_id() const;
  int changes() const;
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

using Value = std::variant<std::nullptr_t, std::int64_t, double, std::string>;

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql);
  ~Statement();
  Statement(Statement&& o) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;

  // Binds by 1-based position; returns *this for chaining.
  Statement& bind(int i, std::int64_t v);
  Statement& bind(int i, int v) { return bind(i, std::int64_t(v)); }
  Statement& bind(int i, std::size_t v) { return bind(i, std::int64_t(v)); }
  Statement& bind(int i, bool v) { return bind(i, std::int64_t(v ? 1 : 0)); }
  Statement& bind(int i, double v);
  Statement& bind(int i, const std::string& v);
  Statement& bind(int i, const char* v) { return bind(i, std::string(v)); }
  Statement& bind(int i, std::nullptr_t);
  template <class T>
  Statement& bind(int i, const std::optional<T>& v) {
    if (!v.has_value()) return bind(i, nullptr);
    const T value = v.value();  // a copy: GCC 12 misreads the optional's storage otherwise
    return bind(i, value);
  }

  bool step();  // true while a row is available
  void run();   // step() to completion
  void reset();

  bool is_null(int col) const;
  std::int64_t integer(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  std::optional<double> optional_real(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE (so writers queue on the busy timeout instead of failing on upgrade);
// rolls back in the destructor unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace mmtune::sql
