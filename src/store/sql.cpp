// What both database backends share: the facade classes, backend choice by target, placeholder
// and schema translation.
#include <algorithm>
#include <cctype>
#include <string>

#include "mmtune/error.hpp"
#include "store/sql_backend.hpp"

namespace mmtune::sql {

bool is_postgres_url(const std::string& target) {
  return target.rfind("postgresql://", 0) == 0 || target.rfind("postgres://", 0) == 0;
}

bool have_postgres() {
#ifdef MMTUNE_HAVE_POSTGRESQL
  return true;
#else
  return false;
#endif
}

namespace {

// `url` without a `password=` parameter of its query (libpq takes one there too).
std::string without_query_password(const std::string& url) {
  const auto q = url.find('?');
  if (q == std::string::npos) return url;
  std::string kept;
  std::size_t from = q + 1;
  while (from <= url.size()) {
    const auto amp = std::min(url.find('&', from), url.size());
    const std::string pair = url.substr(from, amp - from);
    std::string key = pair.substr(0, pair.find('='));
    for (auto& c : key) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (key != "password") kept += (kept.empty() ? "" : "&") + pair;
    from = amp + 1;
  }
  return url.substr(0, q) + (kept.empty() ? "" : "?" + kept);
}

}  // namespace

std::string redact_url(const std::string& given) {
  const auto scheme = given.find("://");
  if (scheme == std::string::npos) return given;
  const std::string url = without_query_password(given);
  const auto start = scheme + 3;
  const auto end = url.find_first_of("/?", start);
  const auto at = url.rfind('@', end == std::string::npos ? std::string::npos : end);
  if (at == std::string::npos || at < start) return url;
  const auto colon = url.find(':', start);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon) + url.substr(at);
}

// ---- Statement ------------------------------------------------------------------------------

Statement::Statement(std::unique_ptr<detail::Cursor> cursor) : cursor_(std::move(cursor)) {}
Statement::~Statement() = default;
Statement::Statement(Statement&& o) noexcept = default;

Statement& Statement::bind(int i, const Value& v) {
  cursor_->bind(i, v);
  return *this;
}
bool Statement::step() {
  return cursor_->step();
}
void Statement::run() {
  while (step()) {
  }
}
void Statement::reset() {
  cursor_->reset();
}
bool Statement::is_null(int col) const {
  return cursor_->is_null(col);
}
std::int64_t Statement::integer(int col) const {
  return cursor_->integer(col);
}
double Statement::real(int col) const {
  return cursor_->real(col);
}
std::string Statement::text(int col) const {
  return cursor_->text(col);
}
std::optional<double> Statement::optional_real(int col) const {
  if (is_null(col)) return std::nullopt;
  return real(col);
}

// ---- Database -------------------------------------------------------------------------------

Database::Database(const std::string& target, OpenMode mode, int busy_timeout_ms) {
  if (is_postgres_url(target)) {
    path_ = redact_url(target);
#ifdef MMTUNE_HAVE_POSTGRESQL
    conn_ = detail::open_postgres(target, busy_timeout_ms);
#else
    throw UsageError("cannot open '" + path_ +
                     "': mmtune was built without PostgreSQL support (install libpq-dev and "
                     "rebuild)");
#endif
  } else {
    path_ = target;
    conn_ = detail::open_sqlite(target, mode, busy_timeout_ms);
  }
}

Database::~Database() = default;
Database::Database(Database&&) noexcept = default;

void Database::exec(const std::string& sql) {
  conn_->exec(sql);
}
Statement Database::prepare(const std::string& sql) {
  return Statement(conn_->prepare(sql));
}
std::int64_t Database::last_insert_id() {
  return conn_->last_insert_id();
}
Dialect Database::dialect() const {
  return conn_->dialect();
}
int Database::schema_version() {
  const int version = conn_->schema_version();
  // No mmtune writes a negative version (SQLite's user_version is any 32-bit integer).
  if (version < 0) {
    throw UsageError("database '" + path() + "' is damaged (schema version " +
                     std::to_string(version) + "); restore it from a copy or use another --db");
  }
  return version;
}
void Database::set_schema_version(int version) {
  conn_->set_schema_version(version);
}

std::string Database::ddl(const std::string& sqlite_ddl) const {
  if (dialect() == Dialect::kSqlite) return sqlite_ddl;
  std::string out;
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  std::size_t i = 0;
  while (i < sqlite_ddl.size()) {
    if (!word_char(sqlite_ddl[i])) {
      out += sqlite_ddl[i++];
      continue;
    }
    std::size_t j = i;
    while (j < sqlite_ddl.size() && word_char(sqlite_ddl[j])) ++j;
    const std::string word = sqlite_ddl.substr(i, j - i);
    if (word == "INTEGER") {
      out += sqlite_ddl.compare(j, 12, " PRIMARY KEY") == 0 ? "BIGSERIAL" : "BIGINT";
    } else if (word == "REAL") {
      out += "DOUBLE PRECISION";
    } else {
      out += word;
    }
    i = j;
  }
  return out;
}

// ---- Transaction ----------------------------------------------------------------------------

Transaction::Transaction(Database& db) : db_(db) {
  db_.connection().begin_write();
}
Transaction::~Transaction() {
  if (!done_) db_.connection().rollback();
}
void Transaction::commit() {
  db_.connection().commit();
  done_ = true;
}

// ---- placeholders ---------------------------------------------------------------------------

namespace detail {

std::string numbered_placeholders(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {  // a literal or quoted identifier; doubled quotes stay inside
      const std::size_t end = sql.find(c, i + 1);
      const std::size_t stop = end == std::string::npos ? sql.size() : end + 1;
      out.append(sql, i, stop - i);
      i = stop - 1;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      const std::size_t end = sql.find('\n', i);
      const std::size_t stop = end == std::string::npos ? sql.size() : end;
      out.append(sql, i, stop - i);
      i = stop - 1;
    } else if (c == '?') {
      out += '$' + std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace detail
}  // namespace mmtune::sql
