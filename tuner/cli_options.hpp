// Options shared by several commands: device choice and problem shape.
#pragma once

#include <signal.h>

#include <iterator>

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <string>
#include <vector>

#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "opencl/kernel_source.hpp"

namespace mmtune::cli {

// Ctrl-C, `kill` (SIGTERM) and a closed terminal (SIGHUP) stop a tune the same way: what was
// measured is kept and the session marked interrupted.
inline constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Options before the command: logging and where kernels come from.
struct GlobalOptions {
  int verbose = 0;
  bool quiet = false;
  std::string kernels_dir;
  // SIGINT, SIGTERM and SIGHUP as the process started: ignored ones (`nohup`, a background job
  // of a script) stay ignored during a tune. Read before OpenCL loads: its compiler installs
  // handlers of its own for them.
  bool ignored_at_start[std::size(kStopSignals)] = {};
};

// The kernel sources: the embedded copies, or --kernels-dir's files.
KernelSources load_sources(const GlobalOptions& g);

struct DeviceOptions {
  std::string device;  // empty: the most capable device
  std::string platform;
};

struct ProblemOptions {
  std::string m, n, k;  // text, so that "-5" or "abc" get mmtune's own one-line error
  int precision = 32;
  std::string layout = "row";
  bool trans_a = false, trans_b = false;
  std::string batch;  // empty: 1
  bool given() const { return !m.empty() || !n.empty() || !k.empty(); }
};

// `device_help` replaces the --device help where the command resolves devices its own way.
void add_device_options(CLI::App* app, DeviceOptions& o, const std::string& device_help = "");
// Refuses `--device all` where a command takes one device (usage, not an unknown device).
CLI::Validator one_device();
// `what` prefixes the help texts, e.g. "clblast: ".
void add_problem_options(CLI::App* app, ProblemOptions& o, const std::string& what = "");
// --batch: where a problem may be a strided batch (tune, best, run).
void add_batch_option(CLI::App* app, ProblemOptions& o);

// A matrix size: a positive decimal integer. Throws UsageError naming `flag` otherwise.
std::size_t parse_size(const char* flag, const std::string& text);
// Checks for counts and seeds: plain decimal digits (no sign: CLI11 would wrap "-1" around to
// 2^64 - 1) of at most 2^63 - 1, what the store keeps; positive or not. The message names the
// option.
CLI::Validator positive_integer();
CLI::Validator non_negative_integer();
// 0 to `max`: a count that sizes work no time limit bounds (finalists, confirmation rounds).
CLI::Validator integer_at_most(std::uint64_t max);

// The database a command that writes opens: `db`, or the default one (its directory created)
// when empty.
std::string database_path(const std::string& db);
// "90s", "10m", "1h", "1h30m" or plain seconds (--time-limit); throws UsageError otherwise.
double parse_duration(const std::string& text);
// The same for a command that only reads (history, best, export, simulate, report): a file that
// does not exist is refused with a UsageError, since opening it would create an empty database,
// and the default directory is not created.
std::string existing_database_path(const std::string& db);

// --n alone means a square problem. Throws UsageError when no size was given.
GemmProblem make_problem(const ProblemOptions& o);
// Whether --layout, --trans-a or --trans-b was given on `app` (which has the problem options).
bool layout_stated(const CLI::App& app);
// The same, or --precision: anything of the problem but its size.
bool shape_stated(const CLI::App& app);
// Refuses --precision, --layout and --trans-* given without a size where the size is optional:
// the command would ignore them.
void refuse_shape_without_size(const CLI::App& app, const ProblemOptions& o);
// Refuses any GEMM problem option (and --batch, where `app` has it) next to --spec: a user's
// kernel takes its problem from --size.
void refuse_problem_with_spec(const CLI::App& app, const ProblemOptions& o);
// Refuses the first of `options` given on `app` ("OPTION" + why): the path the command takes
// would ignore it.
void refuse_given(const CLI::App& app, std::initializer_list<const char*> options,
                  const std::string& why);
// refuse_given for the options a command's --spec path ignores: "OPTION and --spec exclude each
// other".
void refuse_with_spec(const CLI::App& app, std::initializer_list<const char*> options);

// UsageError when `path` is the database `db` (--db as given) or one of SQLite's files beside
// it: an export over it would destroy every stored result.
void refuse_database_as_output(const std::string& path, const std::string& db);
// UsageError when the file `path` could not be written (its directory missing or not writable,
// the file not writable, or the database): checked before long work whose output goes there.
void check_output_writable(const std::string& path, const std::string& db);
// Writes `text` to the file `path` (standard output for "" or "-"); UsageError when it cannot,
// or when `path` is the database (refuse_database_as_output).
void write_output(const std::string& path, const std::string& text, const std::string& db);

// --kernel: one searched family by name, or "all" of them; UsageError naming them otherwise.
std::vector<KernelKind> searched_kernels(const std::string& name);

}  // namespace mmtune::cli
