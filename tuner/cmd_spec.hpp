// Users' kernels described by spec files (docs/spec.md): the CLI's side.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "cli_options.hpp"
#include "cmd_tune.hpp"
#include "tune/tuner.hpp"

namespace mmtune::cli {

// "4096,4096,15" -> {4096, 4096, 15}; throws UsageError for anything but positive integers.
std::vector<long long> parse_spec_sizes(const std::string& text);

// `mmtune space --spec FILE --size ...`: the spec's parameters and constraints, and how many
// configurations remain after its constraints and, with a device, within the device's limits
// (counted per first reason).
int cmd_space_spec(const std::string& spec_path, const std::string& sizes,
                   const std::string& device, const std::string& platform, bool json);

// `mmtune run --spec FILE --size ... [--config "..."]`: builds, verifies and times one
// configuration (default: the spec's [default], else its first valid one); exit 1 when it fails.
int cmd_run_spec(const std::string& spec_path, const std::string& sizes, const std::string& config,
                 const std::string& device, const std::string& platform, bool json);

// `mmtune tune --spec FILE --size ...`: a tuning session of the spec's kernel
// (tune/spec_session.hpp).
int cmd_tune_spec(const TuneOptions& t, const DeviceOptions& d, const TuneEnvironment& env,
                  const std::atomic<bool>& stop, const std::string& command_line);

// The stored problem and kernel name of a spec and its sizes (`mmtune best --spec`).
std::pair<GemmProblem, std::string> spec_store_key(const std::string& spec_path,
                                                   const std::string& sizes);

}  // namespace mmtune::cli
