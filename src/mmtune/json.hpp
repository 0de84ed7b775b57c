// JSON forms of the library's records (nlohmann::json), shared by the CLI and the exporters.
#pragma once

#include <nlohmann/json.hpp>

#include "mmtune/device.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "mmtune/runner.hpp"

namespace mmtune {

nlohmann::json to_json(const DeviceInfo& d);
nlohmann::json to_json(const SpaceSummary& s);
nlohmann::json to_json(const GemmProblem& p);
nlohmann::json to_json(const Measurement& m);

}  // namespace mmtune
