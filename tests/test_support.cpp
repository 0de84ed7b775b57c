#include "test_support.hpp"

#include "opencl/host_data.hpp"
#include "opencl/reference.hpp"
#include "store/sql.hpp"
#include "store/store.hpp"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace mmtune::test {

namespace {

// Every test sees both OpenCL implementations however the binary is started (the mmtune
// processes the tests start inherit it). The sanitizer stage loads PoCL's ICD only
// (scripts/sanitize.sh), so there llvmpipe is absent and its tests are left out.
[[maybe_unused]] const bool kBothImplementations = [] {
  ::setenv("POCL_DEVICES", "pthread basic", 0);
  ::setenv("RUSTICL_ENABLE", "llvmpipe", 0);
  return true;
}();

const std::vector<Device>& all_devices() {
  static const std::vector<Device> devices = list_devices();
  return devices;
}
}  // namespace

const Device& pocl_device(const std::string& kind) {
  for (const auto& d : all_devices()) {
    if (d.info.name.rfind(kind, 0) == 0) return d;
  }
  throw std::runtime_error("no PoCL '" + kind + "' device; is POCL_DEVICES=\"pthread basic\" set?");
}

const Device& llvmpipe_device() {
  for (const auto& d : all_devices()) {
    if (d.info.name.rfind("llvmpipe", 0) == 0) return d;
  }
  throw std::runtime_error(
      "no llvmpipe device: install mesa-opencl-icd and set RUSTICL_ENABLE=llvmpipe");
}

cl::Buffer upload(const cl::Context& context, const std::vector<double>& v, Precision p) {
  auto bytes = to_bytes(v, p);
  if (bytes.empty()) bytes.resize(16);
  return cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data());
}

std::vector<double> download(const cl::CommandQueue& q, const cl::Buffer& b, std::size_t n,
                             Precision p) {
  std::vector<unsigned char> bytes(n * std::size_t(p) / 8);
  if (n) q.enqueueReadBuffer(b, CL_TRUE, 0, bytes.size(), bytes.data());
  return from_bytes(bytes, p);
}

const Device& device_named(const std::string& name) {
  return name == "llvmpipe" ? llvmpipe_device() : pocl_device(name);
}

namespace {

// In a forked child: becomes the built mmtune with `args` (no shell).
[[noreturn]] void exec_mmtune(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::string binary = MMTUNE_BINARY;
  argv.push_back(binary.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(binary.c_str(), argv.data());
  _exit(127);
}

}  // namespace

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool drop_privileges() {
  if (geteuid() != 0) return true;
  return setgroups(0, nullptr) == 0 && setgid(kNobody) == 0 && setuid(kNobody) == 0;
}

CommandResult run_mmtune(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env) {
  return run_mmtune_as(args, env, false);
}

CommandResult run_mmtune_unprivileged(const std::vector<std::string>& args,
                                      const std::map<std::string, std::string>& env) {
  return run_mmtune_as(args, env, true);
}

int run_unprivileged(const std::function<int()>& body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(drop_privileges() ? body() : 125);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

CommandResult run_mmtune_as(const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env, bool unprivileged) {
  char out_path[] = "/tmp/mmtune-test-out-XXXXXX";
  char err_path[] = "/tmp/mmtune-test-err-XXXXXX";
  const int out_fd = mkstemp(out_path);
  const int err_fd = mkstemp(err_path);
  if (out_fd < 0 || err_fd < 0) throw std::runtime_error("mkstemp failed");
  // Whatever the run leaves in its TMPDIR (a crash skips its cleanup) goes with this directory;
  // an unprivileged run could not write to it and keeps the system's.
  const TempDir scratch;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    const int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, STDIN_FILENO);
    if (!unprivileged) setenv("TMPDIR", scratch.path.c_str(), 1);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    if (unprivileged && !drop_privileges()) _exit(125);
    exec_mmtune(args);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(out_fd);
  close(err_fd);
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  unlink(out_path);
  unlink(err_path);
  return r;
}

std::int64_t count_rows(const std::string& db_path, const std::string& sql) {
  sql::Database d(db_path, sql::OpenMode::kReadWrite);
  auto q = d.prepare(sql);
  q.step();
  return q.integer(0);
}

std::int64_t count_rows_if_ready(const std::string& db_path, const std::string& sql) {
  if (!sql::is_postgres_url(db_path) && !std::filesystem::exists(db_path)) return -1;
  try {
    return count_rows(db_path, sql);
  } catch (const sql::Error&) {  // no schema yet ("no such table")
    return -1;
  }
}

int line_count(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  if (!s.empty() && s.back() != '\n') ++n;
  return n;
}

int plant_before_each(std::string& src, const std::string& anchor, const std::string& lines) {
  int found = 0;
  for (auto pos = src.rfind(anchor); pos != std::string::npos;
       pos = pos ? src.rfind(anchor, pos - 1) : std::string::npos) {
    const auto line = src.rfind('\n', pos);
    src.insert(line == std::string::npos ? 0 : line + 1, lines);
    ++found;
  }
  return found;
}

}  // namespace mmtune::test

namespace mmtune::test {

std::string gemm_mismatch(Gemm& gemm, const cl::Context& context, const cl::CommandQueue& queue,
                          const GemmProblem& p, std::uint64_t seed) {
  const Operands o = random_operands(p, seed, p.beta == 0.0);
  const Reference ref = reference_gemm(p, o);
  auto upload = [&](const std::vector<double>& v) {
    auto bytes = to_bytes(v, p.precision);
    return cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(),
                      bytes.data());
  };
  cl::Buffer a = upload(o.a), b = upload(o.b), c = upload(o.c);
  gemm(p, a, b, c).wait();
  std::vector<unsigned char> bytes(o.c.size() * p.element_size());
  queue.enqueueReadBuffer(c, CL_TRUE, 0, bytes.size(), bytes.data());
  const Verdict v = verify(p, ref, from_bytes(bytes, p.precision), o.c);
  return v.ok ? "" : describe(p) + ": " + v.message;
}

TempDir::TempDir() {
  std::string templ = "/tmp/mmtune-test-XXXXXX";
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
  path = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

ScopedEnv::ScopedEnv(const std::map<std::string, std::string>& vars) {
  for (const auto& [name, value] : vars) {
    const char* old = std::getenv(name.c_str());
    before_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    setenv(name.c_str(), value.c_str(), 1);
  }
}

ScopedEnv::~ScopedEnv() {
  for (const auto& [name, value] : before_) {
    if (value) {
      setenv(name.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
}

Background spawn_mmtune(const std::vector<std::string>& args, const std::string& out_dir,
                        const std::map<std::string, std::string>& env) {
  Background b;
  b.out_path = out_dir + "/stdout.txt";
  b.err_path = out_dir + "/stderr.txt";
  b.pid = fork();
  if (b.pid == 0) {
    setpgid(0, 0);
    const int out = open(b.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = open(b.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    // A process the test kills leaves its scratch directory behind: in the test's own directory.
    setenv("TMPDIR", out_dir.c_str(), 1);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    exec_mmtune(args);
  }
  return b;
}

CommandResult Background::wait() {
  int status = 0;
  waitpid(pid, &status, 0);
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

std::string integrity_check(const std::string& db_path) {
  sql::Database d(db_path, sql::OpenMode::kReadWrite);
  auto q = d.prepare("PRAGMA integrity_check");
  return q.step() ? q.text(0) : "no answer";
}

std::int64_t stored_measurements(const std::string& db_path, const std::string& kernel,
                                 const std::string& config) {
  sql::Database d(db_path, sql::OpenMode::kReadWrite);
  auto q = d.prepare("SELECT COUNT(*) FROM measurements WHERE kernel = ? AND config = ?");
  q.bind(1, kernel).bind(2, config);
  q.step();
  return q.integer(0);
}

void store_best(Store& store, const DeviceInfo& d, std::size_t n, const KernelConfig& c,
                double ms) {
  GemmProblem p;
  p.m = p.n = p.k = n;
  store_best(store, d, p, c, ms);
}

void store_best(Store& store, const DeviceInfo& d, const GemmProblem& p, const KernelConfig& c,
                double ms) {
  ASSERT_TRUE(constraint_violations(c).empty()) << to_string(c);
  store.upsert_device(d);
  MeasurementRecord r;
  r.device_key = d.key;
  r.kernel = kernel_name(kind_of(c));
  r.config = to_string(c);
  r.problem = p;
  r.result.median_ms = r.result.min_ms = r.result.max_ms = r.result.kernel_median_ms = ms;
  r.result.routine_ms = r.result.kernel_ms = {ms};
  r.result.gflops = r.problem.flops() / (ms * 1e6);
  store.add_measurement(r);
}

}  // namespace mmtune::test

namespace mmtune::test {

CpuHogs::CpuHogs() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  for (long i = 0; i < std::max(1L, cpus); ++i) {
    const pid_t pid = fork();
    if (pid < 0) {  // kill(-1) would signal every process we may
      ADD_FAILURE() << "fork: " << std::strerror(errno);
      break;
    }
    if (pid == 0) {
      alarm(120);
      volatile unsigned long spin = 0;
      while (true) spin = spin + 1;
    }
    pids.push_back(pid);
  }
}

CpuHogs::~CpuHogs() {
  for (const int p : pids) {
    if (p > 0) kill(p, SIGKILL), waitpid(p, nullptr, 0);
  }
}

}  // namespace mmtune::test
