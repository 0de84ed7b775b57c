// The report command: options and their mapping onto src/report/report.hpp.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace mmtune::cli {

struct ReportCommand {
  // Adds "report" to the application.
  void add(CLI::App& app);
  // Runs it when it was parsed and returns its exit code; -1 when it was not.
  int run() const;

  CLI::App* cmd = nullptr;
  std::string db, out = "mmtune-report";
  std::vector<std::string> devices;
  bool open = false;  // open report.html with the desktop's opener (xdg-open)
};

}  // namespace mmtune::cli
