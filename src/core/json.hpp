// JSON forms of the library's records (nlohmann::json), shared by the CLI and the exporters.
#pragma once

#include <nlohmann/json.hpp>

#include "core/measurement.hpp"
#include "mmtune/device.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"

namespace mmtune {

nlohmann::json to_json(const DeviceInfo& d);
nlohmann::json to_json(const SpaceSummary& s);
nlohmann::json to_json(const GemmProblem& p);
nlohmann::json to_json(const Measurement& m);
// A measurement as mmtune prints it (`--json` of run and tune): what it does not know is null,
// not 0 (an untimed run's times, a rate or kernel time not measured), as `best --json` writes
// them. to_json's zeros are the worker's protocol.
nlohmann::json to_output_json(const Measurement& m);
nlohmann::json to_json(const TimingOptions& t);

// The figures a measurement summarises, its times and rates: 0 in a record is "not known".
inline constexpr const char* kMeasuredFigures[] = {
    "median_ms", "min_ms", "max_ms", "kernel_median_ms", "gflops", "kernel_gflops", "gbps"};
// A time or rate as mmtune prints it: null when it is not known (<= 0), never 0.
nlohmann::json figure_or_null(double v);

// Inverses, for the worker protocol. Throw nlohmann::json::exception on malformed input.
GemmProblem problem_from_json(const nlohmann::json& j);
Measurement measurement_from_json(const nlohmann::json& j);
TimingOptions timing_from_json(const nlohmann::json& j);

}  // namespace mmtune
