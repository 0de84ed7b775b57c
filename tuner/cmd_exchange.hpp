// The export and import commands: options and their mapping onto src/mmtune/exchange.hpp.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace mmtune::cli {

struct ExchangeCommands {
  // Adds "export" and "import" to the application.
  void add(CLI::App& app);
  // Runs whichever of them was parsed and returns its exit code; -1 when neither was.
  int run() const;

  CLI::App* export_cmd = nullptr;
  CLI::App* import_cmd = nullptr;
  std::string format = "json", device, db, out;
  std::string m, n, k, layout = "row";
  int precision = 32;
  bool trans_a = false, trans_b = false;
  std::string file;
};

}  // namespace mmtune::cli
