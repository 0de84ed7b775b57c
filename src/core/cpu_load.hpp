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

  // Records the machine's and our processes' CPU time now: this process, the children it has
  // reaped (earlier workers) and the live `worker` (threads included; -1: none), which must be
  // reaped when it ends. Returns the other processes' share of all CPUs (0 to 1) over the last
  // window_s or more; nothing when /proc cannot be read or no sample is that old yet.
  std::optional<double> sample(pid_t worker);

 private:
  struct Sample {
    std::chrono::steady_clock::time_point at;
    double busy_s = 0, ours_s = 0;  // all CPUs' busy time; ours (this process and its workers)
  };
  double window_s_;
  std::deque<Sample> samples_;
};

}  // namespace mmtune
