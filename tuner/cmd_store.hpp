// The commands that read the tuning database: simulate, best, history.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.hpp"

namespace mmtune::cli {

struct SimulateOptions {
  std::string strategy = "all", db, device, kernel = "tiled";
  std::vector<std::string> strategy_options;  // NAME=VALUE
  bool curve = false;
  std::string svg;    // --curve as a chart
  bool save = false;  // --curve into the database
  std::size_t budget = 100, seeds = 20;
  std::size_t batch = 1;   // proposals asked for at once
  double told = 0;         // share of the results outside the target told to each run first
  bool landscape = false;  // describe the landscape's shape instead of replaying
  ProblemOptions problem;
  bool json = false;
};

struct BestOptions {
  std::string kernel, db;
  std::string spec, sizes;  // a user's kernel (docs/spec.md)
  bool json = false;
};

struct StoreCommands {
  // Adds "simulate", "best" and "history" to the application.
  void add(CLI::App& app);
  // Runs whichever of them was parsed and returns its exit code; -1 when none was.
  int run() const;

  CLI::App* simulate = nullptr;
  SimulateOptions sim;
  CLI::App* best = nullptr;
  BestOptions best_opt;
  DeviceOptions best_dev;
  ProblemOptions best_prob;
  CLI::App* history = nullptr;
  std::string history_db;
  bool history_json = false;
};

}  // namespace mmtune::cli
