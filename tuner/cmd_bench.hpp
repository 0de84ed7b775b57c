// The commands that measure references: bench (side by side with CLBlast and the host BLAS)
// and roofline.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.hpp"

namespace mmtune::cli {

struct BenchCliOptions {
  std::string sizes = "256,512,1024,2048", db;
  std::string shapes;   // MxNxK, comma-separated
  std::string batch;    // multiplications per call (empty: 1)
  bool squares = true;  // false: only --shape was given
  std::vector<std::string> clblast_tuned;
  int precision = 32;
  bool json = false;
  bool no_baselines = false;
};

struct BenchCommands {
  // Adds "bench" and "roofline" to the application.
  void add(CLI::App& app);
  // Runs whichever of them was parsed and returns its exit code; -1 when neither was.
  int run(const GlobalOptions& g) const;

  CLI::App* bench = nullptr;
  CLI::Option* bench_sizes = nullptr;
  DeviceOptions bench_dev;
  BenchCliOptions bench_opt;
  CLI::App* roofline = nullptr;
  DeviceOptions roof_dev;
  int roof_precision = 32;
  std::string roof_db;
  bool roof_json = false;
  bool roof_replace = false;
};

}  // namespace mmtune::cli
