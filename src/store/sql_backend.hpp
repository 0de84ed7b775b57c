// The two implementations behind mmtune::sql (not installed): a connection and a cursor per
// backend. sql.cpp holds what both share; sql_sqlite.cpp and sql_postgres.cpp the rest.
#pragma once

#include <memory>
#include <string>

#include "store/sql.hpp"

namespace mmtune::sql::detail {

class Cursor {
 public:
  virtual ~Cursor() = default;
  virtual void bind(int i, const Value& v) = 0;
  virtual bool step() = 0;
  virtual void reset() = 0;
  virtual bool is_null(int col) const = 0;
  virtual std::int64_t integer(int col) const = 0;
  virtual double real(int col) const = 0;
  virtual std::string text(int col) const = 0;
};

class Connection {
 public:
  virtual ~Connection() = default;
  virtual Dialect dialect() const = 0;
  virtual void exec(const std::string& sql) = 0;
  virtual std::unique_ptr<Cursor> prepare(const std::string& sql) = 0;
  virtual std::int64_t last_insert_id() = 0;
  virtual void begin_write() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  virtual int schema_version() = 0;
  virtual void set_schema_version(int version) = 0;
};

std::unique_ptr<Connection> open_sqlite(const std::string& path, OpenMode mode,
                                        int busy_timeout_ms);
// Defined only when built with libpq.
std::unique_ptr<Connection> open_postgres(const std::string& url, int busy_timeout_ms);

// '?' placeholders outside string literals, quoted identifiers and comments become $1, $2, ...
std::string numbered_placeholders(const std::string& sql);

}  // namespace mmtune::sql::detail
