#include "tune/tuner.hpp"

#include "tune/session.hpp"

namespace mmtune {

const char* to_string(TuneOutcome o) {
  switch (o) {
    case TuneOutcome::kCompleted:
      return "completed";
    case TuneOutcome::kBudget:
      return "budget";
    case TuneOutcome::kTimeLimit:
      return "time-limit";
    case TuneOutcome::kInterrupted:
      return "interrupted";
  }
  return "?";
}

TuneSummary tune(const Device& device, Store& store, const TuneRequest& request,
                 const TuneEnvironment& env,
                 const std::function<void(const TuneProgress&)>& progress,
                 const std::atomic<bool>& stop) {
  TuneSession session(device, store, request, env, progress, stop);
  session.start();
  session.prepare_searches();  // first: the defaults' times count toward their kernel's costs
  session.measure_defaults();
  session.warm_start();
  session.search();
  session.confirm();
  session.measure_baselines();
  return session.finish();
}

}  // namespace mmtune
