// Supervises worker processes (see worker.hpp): sends batches of configurations, enforces a time
// limit per run, and turns a hung or crashed worker into a Timeout or Crashed status for the
// variant responsible, restarting the worker and going on.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_load.hpp"
#include "core/measurement.hpp"
#include "mmtune/device_info.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"

namespace mmtune {

// One child process with line-based JSON over pipes.
class WorkerProcess {
 public:
  explicit WorkerProcess(const std::vector<std::string>& argv);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // False when the worker is gone.
  bool send(const nlohmann::json& message);
  enum class Read { kMessage, kTimeout, kExited };
  Read read(nlohmann::json& message, double timeout_s);
  void kill();                // SIGKILL and reap
  std::string exit_reason();  // e.g. "killed by signal 6 (Aborted)", after kExited
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string buffer_;
  int wait_status_ = 0;
  bool reaped_ = false;
};

struct EvaluatorOptions {
  std::vector<std::string> worker_argv;  // e.g. {"/proc/self/exe", "worker"}
  std::size_t device_index = 0;
  std::string device_key;
  std::string kernels_dir;     // empty: embedded kernels
  std::string program_dir;     // on-disk program cache (empty: none)
  std::string reference_file;  // shared by restarted workers (empty: recompute)
  GemmProblem problem;
  // A user's kernel instead of the GEMM families (docs/spec.md): its spec file and sizes. The
  // worker reads the file itself; items then name the spec's kernel and its configuration text.
  std::string spec_path;
  std::vector<long long> spec_sizes;
  std::uint64_t seed = 1;
  std::size_t parallel_builds = 1;
  double startup_limit_s = 600.0;   // device set-up and reference computation
  double build_limit_s = 300.0;     // a batch's builds, per build
  double first_run_extra_s = 60.0;  // added to the limit of a variant's first run
};

// The limits of a searched variant's runs, from the best median so far (infinite: none yet): a
// run may take 50x the best (5 to 120 s); a first run beyond 4x the best plus 5 s (for lazy
// compilation) is not worth finishing (0: no such limit).
struct RunLimits {
  double run_s = 120.0, slow_first_run_s = 0.0;
};
RunLimits run_limits(double best_ms);

class Evaluator {
 public:
  explicit Evaluator(EvaluatorOptions options);
  ~Evaluator();

  // Measures the configurations in order; never throws for a failure of a variant.
  // `run_limit_s` bounds each single run of a variant (the first run gets `first_run_extra_s`
  // more, as it may include lazy compilation). When `stop` becomes true, returns after the variant
  // being measured; the rest stay empty. With `slow_first_run_s` > 0 (derived from the best
  // time so far), a variant whose first run takes longer is stopped there (the worker is
  // restarted) and recorded as Timeout, with that limit as a lower bound of its time: on large
  // problems a bad variant's single run can cost more than measuring several good ones. Throws
  // Error when the worker cannot start at all.
  std::vector<std::optional<Measurement>> evaluate(const std::vector<KernelConfig>& batch,
                                                   const TimingOptions& timing, double run_limit_s,
                                                   const std::atomic<bool>* stop = nullptr,
                                                   double slow_first_run_s = 0.0);
  // The same for configurations named by kernel and canonical text (a spec's configurations).
  struct Item {
    std::string kernel, config;
  };
  std::vector<std::optional<Measurement>> evaluate(const std::vector<Item>& batch,
                                                   const TimingOptions& timing, double run_limit_s,
                                                   const std::atomic<bool>* stop = nullptr,
                                                   double slow_first_run_s = 0.0);

  // Starts the worker now rather than at the first evaluation: its checks of the device and of
  // a spec then fail before a caller stores anything. Throws Error as evaluate does.
  void start_worker() {
    if (!worker_) start();
  }

  std::size_t restarts() const { return restarts_; }
  // How long the worker's last start took (0: none yet). Before a restart this is the first
  // start, which also computed the reference that restarts read from a file: an overestimate.
  double start_seconds() const { return start_seconds_; }
  // Wall time spent in build phases (builds of a batch run in parallel).
  double build_seconds() const { return build_seconds_; }

 private:
  void start();
  void stop_worker();

  EvaluatorOptions options_;
  std::unique_ptr<WorkerProcess> worker_;
  // Other processes' CPU use, attached to each measurement: over a quarter second or more
  // (on 2 CPUs 50 ticks of /proc, a share to about 4 %), so that short runs get one too.
  CpuLoad load_{0.25};
  std::size_t restarts_ = 0;
  double start_seconds_ = 0.0;
  double build_seconds_ = 0.0;
  int next_id_ = 0;
};

}  // namespace mmtune
