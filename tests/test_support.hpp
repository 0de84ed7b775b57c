// Helpers shared by the tests: the PoCL devices and running the mmtune binary.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mmtune/device.hpp"
#include "mmtune/gemm.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"

namespace mmtune {
class Store;
}

namespace mmtune::test {

// A file's bytes; empty when it cannot be read.
std::string slurp(const std::string& path);

// The PoCL device whose name starts with `kind` ("pthread" or "basic"). Fails the test when absent.
const Device& pocl_device(const std::string& kind = "pthread");

// Mesa rusticl's llvmpipe device, the second OpenCL implementation the suite runs on (CTest sets
// RUSTICL_ENABLE=llvmpipe; scripts/dev.sh installs mesa-opencl-icd). Throws when absent.
const Device& llvmpipe_device();

// A read-write buffer holding `v` in precision `p` (16 bytes when `v` is empty: OpenCL has no
// empty buffers), and `n` elements of a buffer read back.
cl::Buffer upload(const cl::Context& context, const std::vector<double>& v, Precision p);
std::vector<double> download(const cl::CommandQueue& q, const cl::Buffer& b, std::size_t n,
                             Precision p);

// Runs `p` through `gemm` on the queue's device with seeded operands and compares C with the CPU
// reference: empty when it matches, else what differs.
std::string gemm_mismatch(Gemm& gemm, const cl::Context& context, const cl::CommandQueue& queue,
                          const GemmProblem& p, std::uint64_t seed);

// A device by the name scheme the tests use: "pthread", "basic" or "llvmpipe".
const Device& device_named(const std::string& name);

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs the built mmtune with `args` (no shell), with extra environment variables.
CommandResult run_mmtune(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env = {});

// The same as the unprivileged user nobody when the tests run as root (root ignores file modes),
// else as the current user.
CommandResult run_mmtune_unprivileged(const std::vector<std::string>& args,
                                      const std::map<std::string, std::string>& env = {});
CommandResult run_mmtune_as(const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env, bool unprivileged);
inline constexpr unsigned kNobody = 65534;

// Runs `body` in a child process as nobody (as above) and returns its exit code; 125 when the
// privileges could not be dropped.
int run_unprivileged(const std::function<int()>& body);

// The single integer a query returns (e.g. COUNT(*)), read through a separate connection.
std::int64_t count_rows(const std::string& db_path, const std::string& sql);

// The same while another process may be creating the database: -1 until the file and the
// queried tables exist.
std::int64_t count_rows_if_ready(const std::string& db_path, const std::string& sql);

// Stores an Ok measurement of `config` for the square problem n x n x n (fp32, row-major, NN)
// taking `ms`, which becomes the best when it is the fastest of its kernel.
void store_best(Store& store, const DeviceInfo& d, std::size_t n, const KernelConfig& c, double ms);
// The same for any problem (layout, transpositions, precision).
void store_best(Store& store, const DeviceInfo& d, const GemmProblem& p, const KernelConfig& c,
                double ms);

// Number of lines in a string, ignoring a trailing newline.
int line_count(const std::string& s);

// Inserts `lines` before every line of a kernel source that contains `anchor` (a fault planted
// on every path that has it); the number of lines found.
int plant_before_each(std::string& src, const std::string& anchor, const std::string& lines);

// Processes that spin on every core until destroyed (at most two minutes): a busy machine.
struct CpuHogs {
  std::vector<int> pids;
  CpuHogs();
  ~CpuHogs();
  CpuHogs(const CpuHogs&) = delete;
  CpuHogs& operator=(const CpuHogs&) = delete;
};

}  // namespace mmtune::test

namespace mmtune::test {

// A fresh private directory, removed with everything in it at scope exit.
struct TempDir {
  std::string path;
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

// Environment variables set for the test's own process, put back as they were at scope exit.
struct ScopedEnv {
  explicit ScopedEnv(const std::map<std::string, std::string>& vars);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::map<std::string, std::optional<std::string>> before_;
};

// Starts the built mmtune in the background with stdout and stderr going to files, in a process
// group of its own (pid = its group), as a shell starts a job.
struct Background {
  int pid = -1;
  std::string out_path, err_path;
  CommandResult wait();  // reaps it and reads both outputs
};
Background spawn_mmtune(const std::vector<std::string>& args, const std::string& out_dir,
                        const std::map<std::string, std::string>& env = {});

// The first row of PRAGMA integrity_check ("ok" for an intact database).
std::string integrity_check(const std::string& db_path);

// Measurements stored for (kernel, config), through a separate connection.
std::int64_t stored_measurements(const std::string& db_path, const std::string& kernel,
                                 const std::string& config);

// ---- both store backends (test_postgres_server.cpp) --------------------------------------

enum class Backend { kSqlite, kPostgres };
const char* to_string(Backend b);
inline void PrintTo(Backend b, std::ostream* os) {
  *os << to_string(b);
}  // readable test names
std::string backend_name(const ::testing::TestParamInfo<Backend>& info);

// Why PostgreSQL tests must be skipped (mmtune built without libpq, or no server binaries), or
// "" when they can run.
std::string postgres_unavailable();
// A new, empty database on the test server (started on first use, stopped and removed when the
// process ends): its postgresql:// URL. Throws when the server cannot be started.
std::string postgres_database();
// The URL of a database name on the test server (which need not exist).
std::string postgres_url(const std::string& database);

// A test suite run once per store backend (INSTANTIATE_BACKENDS). PostgreSQL runs are skipped
// when libpq or the server binaries are absent, and fail when the server will not start.
class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override;
  // A fresh store: a SQLite file in `dir`, or a new database on the test server.
  std::string fresh_db(const std::string& name = "tuning.db");
  bool sqlite() const { return GetParam() == Backend::kSqlite; }
  TempDir dir;
};

#define MMTUNE_INSTANTIATE_BACKENDS(suite)                                                     \
  INSTANTIATE_TEST_SUITE_P(                                                                    \
      Backends, suite,                                                                         \
      ::testing::Values(::mmtune::test::Backend::kSqlite, ::mmtune::test::Backend::kPostgres), \
      ::mmtune::test::backend_name)

}  // namespace mmtune::test
