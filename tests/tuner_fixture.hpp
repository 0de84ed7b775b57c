// Shared by the tuning engine's tests (test_tuner.cpp, test_warm_start.cpp): a small tiled space
// with clearly different speeds, its problem and request, and a tune's environment.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "store/store.hpp"
#include "test_support.hpp"
#include "tune/tuner.hpp"

namespace mmtune::tuner_test {

// Twelve tiled configurations with clearly different speeds.
inline std::vector<KernelConfig> small_space() {
  std::vector<KernelConfig> out;
  for (int vwm : {4, 8}) {  // widths every device allows (8: typed_family.hpp)
    for (int mdimc : {2, 4}) {
      for (int sb : {0, 1}) {
        TiledConfig c;
        c.MWG = 64, c.NWG = 32, c.KWG = 32, c.MDIMC = mdimc, c.NDIMC = 4, c.VWM = vwm, c.VWN = 4;
        c.KWI = 2, c.SA = 0, c.SB = sb, c.MDIMA = mdimc, c.NDIMB = sb ? 8 : 4, c.STRM = 0,
        c.STRN = 0;
        if (constraint_violations(c).empty()) out.push_back(c);
      }
    }
  }
  return out;
}

inline GemmProblem small_problem() {
  GemmProblem p;
  p.m = 128, p.n = 96, p.k = 128;
  return p;
}

// Stores an Ok measurement of `config` at `problem` as an earlier tune would have.
inline MeasurementRecord store_measurement(Store& store, const std::string& device_key,
                                           const KernelConfig& config, const GemmProblem& problem,
                                           double gflops) {
  MeasurementRecord r;
  r.device_key = device_key;
  r.kernel = "tiled";
  r.config = to_string(config);
  r.problem = problem;
  r.result.gflops = gflops;
  r.result.median_ms = r.result.min_ms = r.result.max_ms = problem.flops() / (gflops * 1e6);
  r.result.routine_ms = r.result.kernel_ms = {r.result.median_ms};
  store.add_measurement(r);
  return r;
}

inline TuneRequest small_request(const std::string& strategy) {
  TuneRequest r;
  r.problem = small_problem();
  r.kernels = {KernelKind::kTiled};
  r.strategy = strategy;
  r.candidates = small_space();
  r.budget = r.candidates->size();
  r.baselines = false;
  r.finalists = 0;  // the best is the fastest measurement (confirmation has its own test)
  r.drift = false;  // exact counts of evaluations (drift has its own test)
  return r;
}

inline TuneEnvironment environment(const test::TempDir& dir, const std::string& kernels_dir = "") {
  TuneEnvironment env;
  env.worker_argv = {MMTUNE_BINARY, "worker"};
  env.kernels_dir = kernels_dir;
  env.program_dir = dir / "programs";
  env.scratch_dir = dir.path;
  env.parallel_builds = 2;
  env.first_run_extra_s = 10.0;
  return env;
}

inline const std::atomic<bool> kNoStop{false};

}  // namespace mmtune::tuner_test
