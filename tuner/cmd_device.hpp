// The commands about devices and single configurations: devices, space, run.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.hpp"

namespace mmtune::cli {

struct DeviceCommands {
  // Adds "devices", "space" and "run" to the application.
  void add(CLI::App& app);
  // Runs whichever of them was parsed and returns its exit code; -1 when none was.
  int run(const GlobalOptions& g) const;

  CLI::App* devices = nullptr;
  bool devices_json = false;

  CLI::App* space = nullptr;
  std::string space_kernel = "tiled", space_size = "full", space_device, space_platform;
  int space_precision = 32;
  bool space_json = false;
  std::string space_spec, space_sizes;  // a user's kernel (--spec FILE --size 4096,4096)

  CLI::App* run_cmd = nullptr;
  DeviceOptions run_dev;
  ProblemOptions run_prob;
  std::string run_kernel = "tiled", run_config;
  std::uint64_t run_seed = 1;
  bool run_json = false;
  std::string run_spec, run_sizes;
};

}  // namespace mmtune::cli
