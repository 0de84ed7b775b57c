// What the report reads from the database, as plain rows (report.cpp's first step).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "mmtune/problem.hpp"
#include "report/report.hpp"
#include "store/store.hpp"

namespace mmtune::report_detail {

using Opt = std::optional<double>;

// Kernels whose stored bests are tuning results (CLBlast imports that do not map onto the tiled
// kernel are stored under their own name and still count as a device's recorded result).
inline const char* const kTunedKernels[] = {"tiled", "direct", "clblast_xgemm"};

inline bool is_tuned_kernel(const std::string& k) {
  return std::find(std::begin(kTunedKernels), std::end(kTunedKernels), k) !=
         std::end(kTunedKernels);
}

struct DeviceRow {
  std::int64_t id = 0;
  std::string key, vendor, name, driver, platform, type, source;
  std::int64_t compute_units = 0, clock_mhz = 0, global_mem = 0;
  bool imported() const { return source.rfind("imported:", 0) == 0; }
};

struct BenchRow {
  std::int64_t id = 0;
  std::string key, run_id, subject, kernel, config;
  GemmProblem p;
  std::string status, note;
  Opt median_ms, min_ms, max_ms, gflops, kernel_median_ms, kernel_gflops;
  std::string measured_at;
};

struct BestRow {
  std::string key, kernel, config;
  GemmProblem p;
  std::int64_t measurement_id = 0;
  double median_ms = 0, gflops = 0;
  Opt kernel_gflops;
  std::string updated_at;
};

struct MeasRow {
  std::int64_t id = 0, session_id = 0;
  std::string key, kernel, config;
  GemmProblem p;
  std::string status, message;
  Opt build_s, median_ms, min_ms, max_ms, kernel_median_ms, gflops, kernel_gflops, max_error;
  std::string measured_at;
  bool ok() const { return status == "Ok" && gflops.has_value(); }
};

// Outcome counts of one session's measurements: Ok, failures by status, best Ok GFLOPS.
struct SessionStats {
  std::size_t ok = 0;
  std::map<std::string, std::size_t> failures;
  Opt best;
};

inline SessionStats session_stats(const std::vector<const MeasRow*>& ms) {
  SessionStats st;
  for (const MeasRow* m : ms) {
    if (m->status == "Ok") {
      ++st.ok;
    } else {
      ++st.failures[m->status];
    }
    if (m->ok() && (!st.best || *m->gflops > *st.best)) st.best = m->gflops;
  }
  return st;
}

struct SessionRow {
  SessionRecord r;
  std::string host, version;
};

struct RoofRow {
  std::string key;
  int precision = 0;
  double peak = 0, bandwidth = 0;
  std::string measured_at;
};

struct Data {
  std::string db_path;
  std::vector<DeviceRow> devices;  // the selected ones, in database order
  std::vector<BenchRow> bench;
  std::vector<BestRow> best;
  std::vector<MeasRow> meas;  // by id
  std::vector<SessionRow> sessions;
  std::vector<RoofRow> roof;
};

inline std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The selected devices' rows: bench runs, bests, measurements, sessions and roofs.
Data load(Store& store, const ReportOptions& options);

}  // namespace mmtune::report_detail
