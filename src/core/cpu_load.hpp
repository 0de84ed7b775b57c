// Other processes' use of the machine's CPUs, read from /proc (Linux): what a measurement on a
// CPU device competes with, and a cause of slow, noisy timings on a GPU's host too.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <deque>
#include <optional>

namespace mmtune {

// Other processes' share of the CPUs above which a measurement counts as taken on a busy
// machine (on 2 cores, one busy process is 50 %).
inline constexpr double kBusyShare = 0.15;

class CpuLoad {
 public:
  // `window_s`: the shortest interval a share is computed over (/proc counts in 10 ms ticks).
  explicit CpuLoad(double window_s = 0.5) : window_s_(window_s) {}

  // Records the machine's and our processes' CPU time now: this process and `worker` (its
  // threads included; -1: none). Returns the other processes' share of all CPUs (0 to 1) over
  // the last window_s or more, back to a sample taken with the same worker; nothing when /proc
  // cannot be read or no such sample exists yet.
  std::optional<double> sample(pid_t worker);

 private:
  struct Sample {
    std::chrono::steady_clock::time_point at;
    double busy_s = 0, ours_s = 0;  // all CPUs' busy time; this process's and the worker's
    pid_t worker = -1;
  };
  double window_s_;
  std::deque<Sample> samples_;
};

}  // namespace mmtune
