// What the report reads from the database, as plain rows (report.cpp's first step).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "exchange/exchange.hpp"
#include "mmtune/problem.hpp"
#include "report/report.hpp"
#include "search/landscape_shape.hpp"
#include "store/queries.hpp"
#include "store/store.hpp"

namespace mmtune::report_detail {

using Opt = std::optional<double>;

// Kernels whose stored bests are tuning results: the searched families, and CLBlast imports
// that do not map onto the tiled kernel (stored under their own name, still a device's recorded
// result).
inline const std::vector<std::string>& tuned_kernels() {
  static const std::vector<std::string> k = [] {
    auto names = FamilyRegistry::builtin().searched_names();
    names.emplace_back(kClblastKernel);
    return names;
  }();
  return k;
}

inline bool is_tuned_kernel(const std::string& k) {
  return std::find(tuned_kernels().begin(), tuned_kernels().end(), k) != tuned_kernels().end();
}

// The rows come from the store's named queries (store/queries.hpp).
using DeviceRow = rows::Device;
using BenchRow = rows::Bench;

// The GFLOPS a report may show of a bench run: none unless it is Ok (a MeasurementError's are
// above what the device can do). bench.csv keeps the stored figures beside the status.
inline std::optional<double> shown_gflops(const BenchRow& r) {
  return r.status == "Ok" ? r.gflops : std::nullopt;
}
using BestRow = rows::Best;
using MeasRow = rows::Meas;
using SessionRow = rows::Session;
using RoofRow = rows::Roof;
using ReplayRow = rows::Replay;

// A baseline a tune times beside its search (naive, classic): never the tune's result.
inline bool is_reference_kernel(const std::string& k) {
  const auto kind = parse_kernel_kind(k);
  return kind && (*kind)->role() == FamilyRole::kReference;
}

// Outcome counts of one session's measurements.
struct SessionStats {
  std::size_t ok = 0;
  // SlowerEarlyStop: timed enough to be known slower than the best, as the tune counts it, not
  // a failure.
  std::size_t stopped_early = 0;
  std::map<std::string, std::size_t> failures;
  Opt best;  // of its searched kernels' Ok measurements: a baseline's is not the tune's result
};

inline SessionStats session_stats(const std::vector<const MeasRow*>& ms) {
  SessionStats st;
  std::map<std::string, bool> reference;  // by kernel name, decided once
  for (const MeasRow* m : ms) {
    if (m->status == "Ok") {
      ++st.ok;
    } else if (m->status == to_string(Status::kSlowerEarlyStop)) {
      ++st.stopped_early;
    } else {
      ++st.failures[m->status];
    }
    if (!m->ok()) continue;
    const auto [it, added] = reference.try_emplace(m->kernel, false);
    if (added) it->second = is_reference_kernel(m->kernel);
    if (!it->second && (!st.best || *m->gflops > *st.best)) st.best = m->gflops;
  }
  return st;
}

struct Data {
  std::string db_path;
  std::vector<DeviceRow> devices;  // the selected ones, in database order
  std::vector<BenchRow> bench;
  std::vector<BestRow> best;
  std::vector<MeasRow> meas;  // by id
  std::vector<SessionRow> sessions;
  std::vector<RoofRow> roof;
  std::vector<ReplayRow> replays;
  // The shape of each replayed landscape whose measurements are still stored, by landscape_id.
  std::map<std::string, LandscapeShape> shapes;
};

// The landscape a replay ran on: its device, kernel and problem.
inline std::string landscape_id(const ReplayRow& r) {
  return r.key + "\n" + r.kernel + "\n" + describe(r.p);
}

inline std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The selected devices' rows: bench runs, bests, measurements, sessions, roofs and replays.
Data load(Store& store, const ReportOptions& options);

}  // namespace mmtune::report_detail
