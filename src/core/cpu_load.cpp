#include "core/cpu_load.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace mmtune {
namespace {

double ticks_per_second() {
  const long t = sysconf(_SC_CLK_TCK);
  return t > 0 ? double(t) : 100.0;
}

// The busy time of all CPUs since boot (user, nice, system, irq, softirq, steal), in seconds.
std::optional<double> machine_busy_s() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq) || cpu != "cpu") {
    return std::nullopt;
  }
  in >> steal;  // absent on old kernels
  return (user + nice + system + irq + softirq + steal) / ticks_per_second();
}

// A process's user and system time (its threads together), in seconds; with `reaped`, also
// that of its children it has waited for (a restarted worker's time stays counted as ours).
std::optional<double> process_s(pid_t pid, bool reaped) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  // The command name may hold spaces and parentheses: the fields follow the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 > line.size()) return std::nullopt;
  std::istringstream fields(line.substr(close + 2));
  std::string skip;
  for (int i = 3; i < 14; ++i) fields >> skip;  // state .. cmajflt
  double utime = 0, stime = 0, cutime = 0, cstime = 0;
  if (!(fields >> utime >> stime >> cutime >> cstime)) return std::nullopt;
  return (utime + stime + (reaped ? cutime + cstime : 0.0)) / ticks_per_second();
}

}  // namespace

std::optional<double> CpuLoad::sample(pid_t worker) {
  const auto busy = machine_busy_s();
  const auto self = process_s(getpid(), true);
  const auto child = worker > 0 ? process_s(worker, false) : std::optional<double>(0.0);
  if (!busy || !self || !child) return std::nullopt;
  const Sample now{std::chrono::steady_clock::now(), *busy, *self + *child};
  // The newest sample at least a window old; older ones are not needed again.
  const auto age = [&](const Sample& s) {
    return std::chrono::duration<double>(now.at - s.at).count();
  };
  while (samples_.size() > 1 && age(samples_[1]) >= window_s_) samples_.pop_front();
  std::optional<double> share;
  if (!samples_.empty() && age(samples_.front()) >= window_s_) {
    const Sample& then = samples_.front();
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const double capacity = age(then) * double(cpus > 0 ? cpus : 1);
    const double others = (now.busy_s - then.busy_s) - (now.ours_s - then.ours_s);
    share = std::clamp(others / capacity, 0.0, 1.0);
  }
  samples_.push_back(now);
  return share;
}

}  // namespace mmtune
