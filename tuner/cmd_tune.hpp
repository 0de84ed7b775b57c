// The tune command (the default one, also for --device all) and the hidden worker command.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.hpp"

namespace mmtune::cli {

struct TuneOptions {
  std::string kernel = "all", space = "full", strategy, time_limit = "8m", db;
  std::vector<std::string> strategy_options;  // NAME=VALUE
  std::size_t budget = 160, finalists = 4, confirm_rounds = 3;
  std::uint64_t seed = 1;
  bool json = false, fresh = false, no_baselines = false, no_drift = false;
  std::string spec, sizes;  // a user's kernel (docs/spec.md) instead of a GEMM problem
};

struct TuneCommands {
  // Adds "tune" and "worker" to the application.
  void add(CLI::App& app);
  // Runs the worker when it was parsed, else the tune (the default command). `command_line` is
  // recorded with the session.
  int run(const GlobalOptions& g, const std::string& command_line) const;

  CLI::App* tune = nullptr;
  CLI::App* worker = nullptr;
  DeviceOptions tune_dev;
  ProblemOptions tune_prob;
  TuneOptions tune_opt;
};

}  // namespace mmtune::cli
