// The export and import commands: options and their mapping onto src/exchange/exchange.hpp.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli_options.hpp"

namespace mmtune::cli {

struct ExchangeCommands {
  // Adds "export" and "import" to the application.
  void add(CLI::App& app);
  // Runs whichever of them was parsed and returns its exit code; -1 when neither was.
  int run() const;

  CLI::App* export_cmd = nullptr;
  CLI::App* import_cmd = nullptr;
  std::string format = "json", device, db, out, kernel = "tiled";
  ProblemOptions problem;         // --format clblast
  ProblemOptions import_problem;  // a Kernel Tuner cache file's problem
  std::string file;
};

}  // namespace mmtune::cli
