// The PostgreSQL backend of mmtune::sql (libpq). Statements run with PQexecParams when first
// stepped: parameters travel separately from the SQL text, typed by what was bound, and the
// whole result is read at once (the store's queries are small).
#include <libpq-fe.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "store/sql_backend.hpp"

namespace mmtune::sql::detail {
namespace {

// Type OIDs from PostgreSQL's catalog (stable since 7.x); 0 lets the server infer the type from
// the context, which suits text literals and NULLs.
constexpr Oid kInt8Oid = 20;
constexpr Oid kFloat8Oid = 701;

// One key for every mmtune writer: transactions that write serialize on it, like SQLite's.
constexpr long long kWriteLockKey = 0x6d6d74756e65;  // "mmtune"

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

std::string trimmed(const char* msg) {
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Checks a result; throws sql::Error with the server's message and SQLSTATE otherwise.
Result checked(PGconn* conn, PGresult* raw, const std::string& what) {
  Result r(raw);
  const auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
  const char* state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
  const std::string msg = trimmed(r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn));
  throw Error(what + ": " + msg, 0, state ? state : "");
}

std::string number_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  // Shortest text that round-trips, in no locale: snprintf wrote "0,05" where a library
  // caller had set a German LC_NUMERIC.
  char buf[40];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// A value's text as the server sends it ("0.05", "Infinity", "NaN"), in no locale: strtod
// read "0.05" as 0 under a German LC_NUMERIC, and lookups compared the wrong times.
double parse_real(const char* v) {
  double x = 0;
  const char* end = v + std::strlen(v);
  std::from_chars(v + (*v == '+'), end, x);
  return x;
}

class PgCursor final : public Cursor {
 public:
  PgCursor(PGconn* conn, const std::string& sql) : conn_(conn), sql_(numbered_placeholders(sql)) {}

  void bind(int i, const Value& v) override {
    if (i < 1) throw Error("bind: parameter positions start at 1", 0);
    if (std::size_t(i) > values_.size()) {
      values_.resize(std::size_t(i));
      types_.resize(std::size_t(i), 0);
    }
    auto& slot = values_[std::size_t(i) - 1];
    Oid& type = types_[std::size_t(i) - 1];
    if (const auto* n = std::get_if<std::int64_t>(&v)) {
      slot = std::to_string(*n), type = kInt8Oid;
    } else if (const auto* d = std::get_if<double>(&v)) {
      slot = number_text(*d), type = kFloat8Oid;
    } else if (const auto* s = std::get_if<std::string>(&v)) {
      slot = *s, type = 0;
    } else {
      slot.reset(), type = 0;
    }
  }

  bool step() override {
    if (!result_) {
      std::vector<const char*> values;
      for (const auto& v : values_) values.push_back(v ? v->c_str() : nullptr);
      result_ = checked(conn_,
                        PQexecParams(conn_, sql_.c_str(), int(values.size()), types_.data(),
                                     values.data(), nullptr, nullptr, 0),
                        "SQL failed");
      row_ = -1;
    }
    return ++row_ < PQntuples(result_.get());
  }
  void reset() override {
    result_.reset();
    values_.clear();
    types_.clear();
  }

  bool is_null(int col) const override { return PQgetisnull(result_.get(), row_, col) != 0; }
  std::int64_t integer(int col) const override {
    if (is_null(col)) return 0;
    const char* v = PQgetvalue(result_.get(), row_, col);
    if (v[0] == 't' && v[1] == '\0') return 1;  // booleans
    if (v[0] == 'f' && v[1] == '\0') return 0;
    long long n = 0;
    const auto [end, ec] = std::from_chars(v, v + std::strlen(v), n);
    if (*end == '.' || *end == 'e' || *end == 'E') return std::int64_t(parse_real(v));
    return n;
  }
  double real(int col) const override {
    if (is_null(col)) return 0.0;
    return parse_real(PQgetvalue(result_.get(), row_, col));
  }
  std::string text(int col) const override {
    if (is_null(col)) return "";
    return std::string(PQgetvalue(result_.get(), row_, col),
                       std::size_t(PQgetlength(result_.get(), row_, col)));
  }

 private:
  PGconn* conn_;
  std::string sql_;
  std::vector<std::optional<std::string>> values_;
  std::vector<Oid> types_;
  Result result_;
  int row_ = -1;
};

class PgConnection final : public Connection {
 public:
  PgConnection(const std::string& url, int busy_timeout_ms) : conn_(PQconnectdb(url.c_str())) {
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      const std::string msg = trimmed(conn_ ? PQerrorMessage(conn_) : "out of memory");
      PQfinish(conn_);
      conn_ = nullptr;
      throw Error("cannot connect to '" + redact_url(url) + "': " + msg, 0);
    }
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);  // no NOTICEs on stderr
    // Waits for other writers' locks are bounded like SQLite's busy timeout.
    exec("SET lock_timeout = " + std::to_string(busy_timeout_ms));
    // Doubles come back as text: exactly, whatever the server's or a pooler's default (0 rounds
    // to 15 digits; 3 is exact on every version).
    exec("SET extra_float_digits = 3");
  }
  ~PgConnection() override { PQfinish(conn_); }
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  Dialect dialect() const override { return Dialect::kPostgres; }
  void exec(const std::string& sql) override {
    checked(conn_, PQexec(conn_, sql.c_str()), "SQL failed");
  }
  std::unique_ptr<Cursor> prepare(const std::string& sql) override {
    return std::make_unique<PgCursor>(conn_, sql);
  }
  std::int64_t last_insert_id() override {
    PgCursor q(conn_, "SELECT lastval()");  // this session's latest BIGSERIAL value
    q.step();
    return q.integer(0);
  }
  void begin_write() override {
    exec("BEGIN");
    try {
      PgCursor lock(conn_, "SELECT pg_advisory_xact_lock(?)");
      lock.bind(1, Value(std::int64_t(kWriteLockKey)));
      lock.step();
    } catch (...) {
      rollback();
      throw;
    }
  }
  void commit() override { exec("COMMIT"); }
  void rollback() noexcept override {
    try {
      exec("ROLLBACK");
    } catch (...) {  // the connection is gone: the server has rolled back already
    }
  }
  int schema_version() override {
    // Checked before reading, so that a consumer with SELECT rights only needs no CREATE right.
    if (!has_version_table()) return 0;
    PgCursor q(conn_, "SELECT COALESCE(MAX(version), 0) FROM schema_version");
    q.step();
    return int(q.integer(0));
  }
  void set_schema_version(int version) override {
    if (!has_version_table()) exec("CREATE TABLE schema_version (version INTEGER NOT NULL)");
    exec("DELETE FROM schema_version");
    PgCursor q(conn_, "INSERT INTO schema_version (version) VALUES (?)");
    q.bind(1, Value(std::int64_t(version)));
    q.step();
  }

 private:
  bool has_version_table() {
    PgCursor q(conn_, "SELECT to_regclass('schema_version') IS NOT NULL");
    q.step();
    return q.integer(0) != 0;
  }
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<Connection> open_postgres(const std::string& url, int busy_timeout_ms) {
  return std::make_unique<PgConnection>(url, busy_timeout_ms);
}

}  // namespace mmtune::sql::detail
