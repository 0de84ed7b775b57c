// The schema's migrations: one step per version, each applied in a transaction of its own.
#include <sqlite3.h>

#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "mmtune/error.hpp"
#include "store/store.hpp"
#include "store/store_detail.hpp"

namespace mmtune {
namespace {

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

}  // namespace

std::vector<std::string> schema_migrations() {
  return {std::begin(kMigrations), std::end(kMigrations)};
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
