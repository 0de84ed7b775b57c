// The outcome of evaluating one kernel configuration. Failures of a variant are values, not
// exceptions: a tuning run records them and goes on.
#pragma once

#include <optional>
#include <string>

namespace mmtune {

enum class Status {
  kOk,
  kBuildFailed,      // the OpenCL compiler rejected the variant
  kLaunchFailed,     // enqueue or execution failed (incl. out of resources)
  kWrongResult,      // ran, but the result differs from the reference
  kTimeout,          // did not finish within the time limit
  kCrashed,          // took the evaluating process down
  kExceedsLimits,    // needs more than the device offers (work-group size, local memory, ...)
  kSlowerEarlyStop,  // stopped timing early: clearly slower than the best so far
  // Timed, but the figure is impossible (above the device's measured peak): a broken clock or
  // a measurement disturbed in a way the timing could not see. Recorded, never a result.
  kMeasurementError,
};

inline const char* to_string(Status s) {
  switch (s) {
    case Status::kOk:
      return "Ok";
    case Status::kBuildFailed:
      return "BuildFailed";
    case Status::kLaunchFailed:
      return "LaunchFailed";
    case Status::kWrongResult:
      return "WrongResult";
    case Status::kTimeout:
      return "Timeout";
    case Status::kCrashed:
      return "Crashed";
    case Status::kExceedsLimits:
      return "ExceedsLimits";
    case Status::kSlowerEarlyStop:
      return "SlowerEarlyStop";
    case Status::kMeasurementError:
      return "MeasurementError";
  }
  return "?";
}

inline std::optional<Status> parse_status(const std::string& s) {
  for (int i = 0; i <= static_cast<int>(Status::kMeasurementError); ++i) {
    if (s == to_string(static_cast<Status>(i))) return static_cast<Status>(i);
  }
  return std::nullopt;
}

}  // namespace mmtune
