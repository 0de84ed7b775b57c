// Ctrl-C, `kill` (SIGTERM) and a closed terminal (SIGHUP) stop a tune the same way: what was
// measured is kept and the session marked interrupted.
#pragma once

#include <signal.h>

#include <atomic>
#include <iterator>

#include "cli_options.hpp"

namespace mmtune::cli {

// Set by the first stop signal of a tune.
const std::atomic<bool>& stop_requested();

// The handlers while a tune runs, what was there before after it. A signal ignored when the
// process started stays ignored: `nohup mmtune ...` outlives the terminal it was started from.
class StopSignals {
 public:
  explicit StopSignals(const GlobalOptions& g);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction before_[std::size(kStopSignals)] = {};
};

}  // namespace mmtune::cli
