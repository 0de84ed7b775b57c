// The rows of an mmtune export (docs/exchange.md), as the JSON the format names, and of the
// generated C++ header: the export's queries, kept in the store with the rest of the SQL.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mmtune/problem.hpp"
#include "store/store.hpp"

namespace mmtune::rows {

// Each of a device's (every device's, for an empty key) rows of one table, oldest first.
nlohmann::json export_devices(Store& store, const std::string& device_key);
nlohmann::json export_sessions(Store& store, const std::string& device_key);
nlohmann::json export_measurements(Store& store, const std::string& device_key);
nlohmann::json export_bests(Store& store, const std::string& device_key);

// A stored best with its device's names, for the generated header.
struct HeaderBest {
  std::string key, vendor, name, kernel, config;
  GemmProblem p;
  double gflops = 0;     // 0: unknown (an imported best may have none)
  double median_ms = 0;  // what ranks bests, as `mmtune best` ranks them
};
std::vector<HeaderBest> header_bests(Store& store, const std::string& device_key);

// Every stored device's key, oldest first.
std::vector<std::string> device_keys(Store& store);

}  // namespace mmtune::rows
