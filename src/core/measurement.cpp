#include "core/measurement.hpp"

#include <algorithm>
#include <cmath>

namespace mmtune {

std::optional<double> observed_time(const Measurement& m) {
  const bool timed = m.status == Status::kOk || m.status == Status::kSlowerEarlyStop;
  if (timed && !m.routine_ms.empty() && m.median_ms > 0) return m.median_ms;
  return std::nullopt;
}

std::optional<double> ok_time(const Measurement& m) {
  if (m.status == Status::kOk) return observed_time(m);
  return std::nullopt;
}

std::optional<double> lower_bound_ms(const Measurement& m) {
  if (m.status == Status::kTimeout && !m.routine_ms.empty() && m.median_ms > 0) return m.median_ms;
  return std::nullopt;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double median_ratio(std::vector<double> ratios) {
  if (ratios.empty()) return 0.0;
  std::sort(ratios.begin(), ratios.end());
  const std::size_t n = ratios.size();
  return n % 2 ? ratios[n / 2] : std::sqrt(ratios[n / 2 - 1] * ratios[n / 2]);
}

bool repeat_timed(const TimingOptions& timing, const std::vector<double>& samples,
                  const std::function<void()>& run) {
  double timed_ms = 0.0, last_median = 0.0;
  while (int(samples.size()) < timing.max_reps) {
    run();
    timed_ms += samples.back();
    if (timing.early_stop_ms > 0 && samples.size() == 1 && samples.back() > timing.early_stop_ms) {
      return false;
    }
    const double med = median(samples);
    if (int(samples.size()) >= timing.min_reps &&
        (std::fabs(med - last_median) <= timing.stable_within * med ||
         timed_ms > timing.max_seconds * 1e3)) {
      break;
    }
    last_median = med;
  }
  return true;
}

}  // namespace mmtune
