#include "tune/evaluator.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "core/json.hpp"
#include "mmtune/error.hpp"

namespace mmtune {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

}  // namespace

WorkerProcess::WorkerProcess(const std::vector<std::string>& argv) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    throw Error(std::string("cannot create pipes for the worker: ") + std::strerror(errno));
  }
  // A write to a dead worker must fail with EPIPE instead of killing the tuner.
  signal(SIGPIPE, SIG_IGN);
  // The argument vector is built before fork: with `--device all` other threads run, and the
  // child should only make async-signal-safe calls until execv.
  std::vector<std::string> copy = argv;
  std::vector<char*> args;
  for (auto& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw Error(std::string("cannot start the worker: ") + std::strerror(errno));
  if (pid_ == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    // A process group of its own: a terminal's Ctrl-C (or a kill of the tuner's group) reached
    // the compiler and linker the OpenCL implementation runs, and a healthy variant was stored
    // as BuildFailed or Crashed. The tuner decides when to stop the worker; it finishes its
    // variant. Signals sent to it alone are ignored too.
    setpgid(0, 0);
    signal(SIGTTOU, SIG_IGN);  // a background group's writes to the terminal (stty tostop)
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the tuner
#endif
    execv(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
}

WorkerProcess::~WorkerProcess() {
  kill();
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
}

bool WorkerProcess::send(const json& message) {
  const std::string line = message.dump() + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(to_child_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += std::size_t(n);
  }
  return true;
}

WorkerProcess::Read WorkerProcess::read(json& message, double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    for (auto nl = buffer_.find('\n'); nl != std::string::npos; nl = buffer_.find('\n')) {
      const std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (line.empty() || line.front() != '{') continue;  // driver chatter on stdout
      message = json::parse(line, nullptr, false);
      if (!message.is_discarded()) return Read::kMessage;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return Read::kTimeout;
    pollfd pfd{from_child_, POLLIN, 0};
    const int r = poll(&pfd, 1, int(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (!reaped_ && waitpid(pid_, &wait_status_, 0) == pid_) reaped_ = true;
      return Read::kExited;
    }
    buffer_.append(buf, std::size_t(n));
  }
}

void WorkerProcess::kill() {
  if (pid_ > 0 && !reaped_) {
    // Its group: the compiler and linker it started (its own group: no Ctrl-C reaches them).
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    if (waitpid(pid_, &wait_status_, 0) == pid_) reaped_ = true;
  }
}

std::string WorkerProcess::exit_reason() {
  if (!reaped_) return "worker closed its output";
  if (WIFSIGNALED(wait_status_)) {
    const int sig = WTERMSIG(wait_status_);
    return "worker killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "worker exited with code " + std::to_string(WEXITSTATUS(wait_status_));
}

Evaluator::Evaluator(EvaluatorOptions options) : options_(std::move(options)) {}

Evaluator::~Evaluator() {
  stop_worker();
}

void Evaluator::stop_worker() {
  if (worker_) {
    worker_->send({{"op", "quit"}});
    json ignored;
    worker_->read(ignored, 2.0);  // give it a moment to exit cleanly
    worker_.reset();
  }
}

void Evaluator::start() {
  const auto t0 = Clock::now();
  worker_ = std::make_unique<WorkerProcess>(options_.worker_argv);
  json init = {{"op", "init"},
               {"device_index", options_.device_index},
               {"device_key", options_.device_key},
               {"kernels_dir", options_.kernels_dir},
               {"program_dir", options_.program_dir},
               {"reference_file", options_.reference_file},
               {"problem", to_json(options_.problem)},
               {"seed", options_.seed}};
  if (!options_.spec_path.empty()) {
    init["spec"] = options_.spec_path;
    init["sizes"] = options_.spec_sizes;
  }
  json reply;
  const auto r = worker_->send(init) ? worker_->read(reply, options_.startup_limit_s)
                                     : WorkerProcess::Read::kExited;
  if (r != WorkerProcess::Read::kMessage || reply.value("op", "") != "ready") {
    std::string why = r == WorkerProcess::Read::kTimeout  ? "did not start in time"
                      : r == WorkerProcess::Read::kExited ? worker_->exit_reason()
                                                          : reply.value("message", "failed");
    const int code = r == WorkerProcess::Read::kMessage ? reply.value("exit_code", 1) : 1;
    worker_.reset();
    throw Error("evaluation worker: " + why, code);
  }
  // The load's window opens now: the first measurements after a start get a share too.
  load_.sample(worker_->pid());
  start_seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
}

RunLimits run_limits(double best_ms) {
  if (!std::isfinite(best_ms)) return {};
  return {std::clamp(50.0 * best_ms / 1e3, 5.0, 120.0), 4.0 * best_ms / 1e3 + 5.0};
}

std::vector<std::optional<Measurement>> Evaluator::evaluate(const std::vector<KernelConfig>& batch,
                                                            const TimingOptions& timing,
                                                            double run_limit_s,
                                                            const std::atomic<bool>* stop,
                                                            double slow_first_run_s) {
  std::vector<Item> items;
  for (const auto& c : batch) items.push_back({kernel_name(kind_of(c)), to_string(c)});
  return evaluate(items, timing, run_limit_s, stop, slow_first_run_s);
}

std::vector<std::optional<Measurement>> Evaluator::evaluate(const std::vector<Item>& batch,
                                                            const TimingOptions& timing,
                                                            double run_limit_s,
                                                            const std::atomic<bool>* stop,
                                                            double slow_first_run_s) {
  std::vector<std::optional<Measurement>> results(batch.size());
  std::vector<std::size_t> pending(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) pending[i] = i;
  bool serial = false;  // after a fault during parallel builds: one variant at a time
  // Limit of a variant's first run: lazy compilation is allowed for, a clearly slow run is not.
  const double first_limit =
      slow_first_run_s > 0 ? std::min(run_limit_s + options_.first_run_extra_s, slow_first_run_s)
                           : run_limit_s + options_.first_run_extra_s;
  const auto failed = [](Status s, std::string message) {
    Measurement m;
    m.status = s;
    m.message = std::move(message);
    return m;
  };

  while (!pending.empty()) {
    if (stop && *stop) break;
    if (!worker_) start();
    const std::vector<std::size_t> chunk =
        serial ? std::vector<std::size_t>{pending.front()} : pending;
    json items = json::array();
    std::map<int, std::size_t> by_id;
    for (std::size_t i : chunk) {
      const int id = next_id_++;
      by_id[id] = i;
      items.push_back({{"id", id}, {"kernel", batch[i].kernel}, {"config", batch[i].config}});
    }
    const std::size_t builders = serial ? 1 : options_.parallel_builds;
    std::set<std::size_t> unbuilt(chunk.begin(), chunk.end());
    std::size_t current = chunk.front();
    bool measuring = false;
    bool first_run = true;  // the current variant has not completed a run yet
    double limit = options_.build_limit_s * std::ceil(double(chunk.size()) / double(builders));
    std::string phase_note = "building";
    auto r = worker_->send({{"op", "eval"},
                            {"items", items},
                            {"timing", to_json(timing)},
                            {"parallel_builds", builders}})
                 ? WorkerProcess::Read::kMessage
                 : WorkerProcess::Read::kExited;
    std::size_t done_in_chunk = 0;
    const auto build_start = Clock::now();
    while (r == WorkerProcess::Read::kMessage && done_in_chunk < chunk.size()) {
      json msg;
      r = worker_->read(msg, limit);
      if (r != WorkerProcess::Read::kMessage) break;
      const std::string op = msg.value("op", "");
      if (op == "error") throw Error("evaluation worker: " + msg.value("message", "error"));
      const auto it = by_id.find(msg.value("id", -1));
      if (it == by_id.end()) continue;
      if (op == "built") {
        unbuilt.erase(it->second);
        if (unbuilt.empty()) {
          build_seconds_ += std::chrono::duration<double>(Clock::now() - build_start).count();
          load_.sample(worker_->pid());  // the measurements' window starts here at the latest
          measuring = true;
          limit = first_limit;
        }
      } else if (op == "tick") {
        first_run = false;
        limit = run_limit_s;
      } else if (op == "result") {
        results[it->second] = measurement_from_json(msg.at("measurement"));
        if (const auto share = load_.sample(worker_->pid()))
          results[it->second]->other_load = *share;
        std::erase(pending, it->second);
        ++done_in_chunk;
        first_run = true;
        limit = first_limit;
        for (std::size_t i : chunk) {
          if (!results[i]) {
            current = i;
            break;
          }
        }
        if (stop && *stop && done_in_chunk < chunk.size()) {
          worker_->kill();  // the rest of the batch is abandoned, not measured
          worker_.reset();
          return results;
        }
      }
    }
    if (done_in_chunk == chunk.size()) continue;

    // The worker hung or died: blame the variant it was working on, restart, go on.
    const bool timed_out = r == WorkerProcess::Read::kTimeout;
    worker_->kill();
    const std::string reason = timed_out ? "" : worker_->exit_reason();
    worker_.reset();
    ++restarts_;
    const Status status = timed_out ? Status::kTimeout : Status::kCrashed;
    if (!measuring && unbuilt.size() > 1) {
      serial = true;  // several builds were in flight: find the culprit one at a time
      continue;
    }
    const std::size_t culprit = measuring ? current : *unbuilt.begin();
    if (timed_out && measuring && first_run && slow_first_run_s > 0 && limit == slow_first_run_s) {
      // The limit derived from the best time so far: a Timeout, with the limit kept as a lower
      // bound of the variant's time.
      char why[128];
      std::snprintf(why, sizeof why,
                    "first run did not finish within %.1f s (the limit derived from the best time)",
                    limit);
      Measurement slow = failed(Status::kTimeout, why);
      slow.routine_ms = slow.kernel_ms = {limit * 1e3};
      slow.median_ms = slow.min_ms = slow.max_ms = slow.kernel_median_ms = limit * 1e3;
      if (options_.spec_path.empty()) {  // a spec's FLOPs are the worker's to know
        slow.gflops = slow.kernel_gflops = options_.problem.flops() / (limit * 1e9);
      }
      results[culprit] = slow;
      std::erase(pending, culprit);
      continue;
    }
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s did not finish within %.1f s",
                  measuring ? "a run" : "the build", limit);
    results[culprit] =
        failed(status, timed_out ? buf : (measuring ? "" : "while building: ") + reason);
    std::erase(pending, culprit);
  }
  return results;
}

}  // namespace mmtune
