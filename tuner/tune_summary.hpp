// How a tune's summary is shown: the JSON of `tune --json` (one object per device) and the
// text after a tune.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "mmtune/device.hpp"
#include "tune/tuner.hpp"

namespace mmtune::cli {

// The summary as `tune --json` prints it (docs/usage.md lists its fields).
nlohmann::json summary_json(const TuneSummary& s, const DeviceInfo& d);
// The summary as text: the best, its speed-ups over the defaults and baselines, where the time
// went, and the database `db` it is stored in.
void print_summary(const TuneSummary& s, const std::string& db);

}  // namespace mmtune::cli
