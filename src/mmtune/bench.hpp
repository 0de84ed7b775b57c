// Side-by-side benchmarks in one process and one run: the tuned routine, the kernel's default
// configuration, the naive and classic baselines, CLBlast (when built with it) and the host's
// BLAS (when built with it and the device is the host CPU). Every subject is verified against
// the CPU reference and timed the same way: wall clock from enqueue to completion (the whole
// routine), plus the GEMM kernel's own event time where that differs.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mmtune/device.hpp"
#include "mmtune/lookup.hpp"
#include "mmtune/problem.hpp"
#include "mmtune/store.hpp"

namespace mmtune {

struct BenchRow {
  std::string subject;  // tuned, default, naive, classic, clblast, clblast-tuned, host-blas
  std::string kernel, config;
  std::string status;  // Ok, WrongResult, NotAvailable, Failed
  std::string note;    // e.g. where the tuned parameters came from
  GemmProblem problem;
  std::vector<double> samples_ms;
  double median_ms = 0, min_ms = 0, max_ms = 0, gflops = 0;
  double kernel_median_ms = 0, kernel_gflops = 0;  // 0 when not separately known
};

struct BenchOptions {
  std::vector<std::size_t> sizes;  // square problems
  Precision precision = Precision::kSingle;
  int min_reps = 3, max_reps = 10;
  double max_seconds = 3.0;  // per subject and size; a slow subject gets a single run
  // CLBlast Xgemm parameter sets (e.g. the bests of clblast_tuner_xgemm files), fastest first,
  // for a further subject, "clblast-tuned": CLBlast's routine after clblast::OverrideParameters
  // with the first set whose result verifies. Empty: not run.
  struct ClblastParameters {
    std::string source;  // shown in the row's note
    std::map<std::string, int> parameters;
  };
  std::vector<ClblastParameters> clblast_tuned;
};

// Throws NoDeviceError when the device lacks the precision, UsageError when a size is 0 or too
// large for it: run_bench's first step, and what a caller checks before opening a database.
void check_bench_options(const Device& device, const BenchOptions& options);

// Runs every subject for every size; rows are also stored in the `bench` table under one run id.
std::vector<BenchRow> run_bench(const Device& device, Store& store, const ParameterLookup& lookup,
                                const BenchOptions& options,
                                const std::function<void(const BenchRow&)>& progress = {});

// Optional comparison libraries compiled into this build.
bool have_clblast();
bool have_host_blas();

}  // namespace mmtune
