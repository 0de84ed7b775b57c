// Helpers shared by the tests: the PoCL devices and running the mmtune binary.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mmtune/device.hpp"

namespace mmtune::test {

// The PoCL device whose name starts with `kind` ("pthread" or "basic"). Fails the test when absent.
const Device& pocl_device(const std::string& kind = "pthread");

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs the built mmtune with `args` (no shell), with extra environment variables.
CommandResult run_mmtune(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env = {});

// Number of lines in a string, ignoring a trailing newline.
int line_count(const std::string& s);

}  // namespace mmtune::test
