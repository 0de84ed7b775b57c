// The tuning database (a SQLite file or a PostgreSQL server shared by several hosts): devices,
// tuning sessions, every measurement and the best configuration per device, kernel and problem.
// Every measurement is committed on arrival. One schema and one set of statements serve both
// backends (see sql.hpp for what differs).
#pragma once

#include <cstdint>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "mmtune/device.hpp"
#include "mmtune/kernel_family.hpp"
#include "mmtune/problem.hpp"
#include "store/sql.hpp"

namespace mmtune {

// Schema version (SQLite: PRAGMA user_version; PostgreSQL: the schema_version table).
inline constexpr int kSchemaVersion = 8;

// The SQL that migrates version i to i + 1, for each i, written for SQLite (exposed for migration
// tests; sql::Database::ddl() turns it into the connection's dialect).
std::vector<std::string> schema_migrations();

// The outcome of a session made for a file's results (a CLBlast or Kernel Tuner import): its
// start and end are the import's time, not a tune's.
inline constexpr const char* kImportedOutcome = "imported";

struct SessionRecord {
  std::int64_t id = 0;
  std::string device_key;
  std::string command_line, strategy, kernels, space;
  std::uint64_t seed = 0;
  std::size_t budget = 0;
  double time_limit_s = 0.0;
  // outcome: running, budget, completed, time-limit, interrupted (Ctrl-C), failed (stopped by an
  // error, e.g. a full disk) or abandoned (its process ended without recording an outcome).
  std::string started_at, ended_at, outcome;
  std::string host;      // host name of the tuning process
  std::int64_t pid = 0;  // its process id; 0 when unknown (older schemas, imports)
  GemmProblem problem;
};

// The outcome to show for a stored session: the stored one, except that a `running` session
// whose process on this host is gone reads as `abandoned`. Needs no write access, so readers of a
// database that cannot be written (disk full, read-only role) see it too.
std::string shown_outcome(const SessionRecord& s);

struct MeasurementRecord {
  std::int64_t id = 0;
  std::int64_t session_id = 0;  // 0: none (e.g. imported)
  std::string device_key;
  std::string kernel;  // kernel_name()
  std::string config;  // canonical text, see to_string(KernelConfig)
  GemmProblem problem;
  Measurement result;
  std::string measured_at;
};

struct BestRecord {
  std::string device_key, kernel, config;
  GemmProblem problem;
  double median_ms = 0.0, gflops = 0.0, kernel_gflops = 0.0;
  double gbps = 0.0;  // 0 unless the kernel states the bytes it moves (spec kernels)
  // The noise of its measurement: other processes' share of the CPUs then (-1: unknown) and
  // the spread of its runs, (max - min) / median (-1: unknown).
  double other_load = -1.0, spread = -1.0;
  std::int64_t measurement_id = 0, session_id = 0;
  std::string updated_at;
};

// Throws the mmtune error for a failed database operation: StorageError (exit 4) for a full
// disk, an I/O error, a lock held too long or any other failure; UsageError (exit 2) for a
// damaged or read-only database or a role without the rights. `path` may be empty.
[[noreturn]] void throw_database_error(const std::string& path, const sql::Error& e);

class Store {
 public:
  // $MMTUNE_DB (a path or a postgresql:// URI), else $XDG_DATA_HOME/mmtune/tuning.db, else
  // ~/.local/share/mmtune/tuning.db; a writer creates that directory, a reader leaves it alone.
  static std::string default_path(bool create_directory = false);

  // Opens or creates the database (a SQLite file, or a postgresql:// / postgres:// URI of an
  // existing server database), migrating older schemas. Throws UsageError with a one-line reason
  // for a missing or read-only location, a file that is not a database, a server that cannot be
  // reached or refuses, a build without PostgreSQL support, or a schema newer than this build.
  // kReadOnly needs no write right on the file or its directory (a database shipped under
  // /usr/share, in a container layer, or owned by the tuning account); the file must exist and
  // its schema be current (an older one is upgraded when it can be written, else UsageError).
  // Any path that exists but is not a regular file (a directory, /dev/null) is refused with
  // UsageError before anything is created.
  enum class Access { kReadWrite, kReadOnly };
  explicit Store(const std::string& path, Access access = Access::kReadWrite);

  void upsert_device(const DeviceInfo& d);
  std::optional<DeviceInfo> device(const std::string& key);

  // Records a `running` session of this process (host name and pid are filled in here).
  std::int64_t begin_session(const SessionRecord& s);
  void end_session(std::int64_t id, const std::string& outcome);
  // Stores `abandoned` for every `running` session of this host whose process is gone; returns
  // how many. A tune calls it before its own session begins.
  std::size_t close_abandoned_sessions();
  // Every session, oldest first, with shown_outcome() as its outcome.
  std::vector<SessionRecord> sessions();

  // Inserts and commits one measurement; updates the best of its kernel and problem when faster.
  std::int64_t add_measurement(const MeasurementRecord& m);
  // The same inside a transaction the caller holds (e.g. an all-or-nothing import), which may
  // leave the best alone (`update_best` false: an import whose file names the best itself).
  std::int64_t insert_measurement(const MeasurementRecord& m, bool update_best = true);

  // Measurements of a device and problem (m, n, k, precision, layout, transpositions), oldest
  // first; optionally of one kernel only.
  std::vector<MeasurementRecord> measurements(const std::string& device_key, const GemmProblem& p,
                                              const std::string& kernel = "");
  // Makes a stored Ok measurement its kernel's best for its problem, faster or not (a tune's
  // confirmation round outranks a faster single measurement). Throws UsageError otherwise.
  void set_best(const MeasurementRecord& m);
  // The same inside a transaction the caller holds (an import, which keeps the file's
  // `updated_at`; empty: now).
  void put_best(const MeasurementRecord& m, const std::string& updated_at = "");
  // The best Ok measurement of a kernel, or of the tiled/direct routine when kernel is empty.
  std::optional<BestRecord> best(const std::string& device_key, const GemmProblem& p,
                                 const std::string& kernel = "");

  // The routine's best (its fastest kernel) of each other shape stored for this device with the
  // same precision, layout and transpositions, the nearest shape first (LogShape), at most
  // `limit`: what the consumer lookup would pick, where a tune of a new shape starts. With
  // `in`, the bests stored in that precision instead, p's own shape among them.
  struct ShapeBest {
    std::string kernel, config;
    double flops;  // of one call at the shape it is the best of
    bool operator==(const ShapeBest&) const = default;
  };
  std::vector<ShapeBest> nearest_bests(const std::string& device_key, const GemmProblem& p,
                                       std::size_t limit,
                                       std::optional<Precision> in = std::nullopt);
  // The fastest distinct (kernel, config) pairs that ran Ok on this device for other shapes of
  // the same precision, layout and transpositions: warm-start candidates for a new problem.
  std::vector<std::pair<std::string, std::string>> top_configs_elsewhere(
      const std::string& device_key, const GemmProblem& p, std::size_t limit);

  const std::string& path() const { return db_.path(); }
  // The kernels whose best is a routine's best (best() without a kernel, top_configs_elsewhere,
  // the lookup's routine bests): the searched families of the program's FamilyRegistry.
  void set_routine_kernels(std::vector<std::string> names) { routine_kernels_ = std::move(names); }
  const std::vector<std::string>& routine_kernels() const { return routine_kernels_; }

  // The connection, for the store's own queries (store/queries.hpp, store/export_rows.hpp,
  // store/import.hpp) and for tests that inspect the database; nothing else writes SQL.
  sql::Database& db() { return db_; }

 private:
  void migrate();
  void check_readable_schema(const std::string& path);
  // Refuses a SQLite file that holds tables but was never an mmtune database (version 0).
  void check_not_foreign(const std::string& path);
  void upsert_best(std::int64_t id, const MeasurementRecord& m, bool only_if_faster,
                   const std::string& updated_at = "");
  sql::Database db_;
  std::vector<std::string> routine_kernels_ = FamilyRegistry::builtin().searched_names();
};

// "?, ?, ..." for an IN list of n values; "NULL" (no value matches) for none.
std::string placeholders(std::size_t n);

std::string now_utc();  // ISO 8601, seconds
// Seconds since the epoch of a time exactly as now_utc() writes it; nullopt for any other text.
std::optional<std::time_t> parse_utc(const std::string& text);

// The problem columns of every table (m, n, k, precision, layout, trans_a, trans_b), bound from
// or read at position `first` of a statement.
void bind_problem(sql::Statement& s, int first, const GemmProblem& p);
GemmProblem read_problem(const sql::Statement& s, int first);

}  // namespace mmtune
