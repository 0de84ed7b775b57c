#include "stop_signals.hpp"

namespace mmtune::cli {
namespace {

std::atomic<bool> g_stop{false};  // a signal handler has no other way to say it

extern "C" void on_stop_signal(int sig) {
  g_stop = true;
  signal(sig, SIG_DFL);  // a second one ends the process at once
}

}  // namespace

const std::atomic<bool>& stop_requested() {
  return g_stop;
}

StopSignals::StopSignals(const GlobalOptions& g) {
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    struct sigaction now = {};
    now.sa_handler = g.ignored_at_start[i] ? SIG_IGN : on_stop_signal;
    sigemptyset(&now.sa_mask);
    sigaction(kStopSignals[i], &now, &before_[i]);
  }
}

StopSignals::~StopSignals() {
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    sigaction(kStopSignals[i], &before_[i], nullptr);
  }
}

}  // namespace mmtune::cli
