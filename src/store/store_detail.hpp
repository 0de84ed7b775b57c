// Shared by the store's own files (schema.cpp, migrations.cpp, store.cpp).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "mmtune/error.hpp"

namespace mmtune {

// The routine's timed runs in a measurement's samples column (0 when unreadable).
inline std::size_t routine_runs(const std::string& samples) {
  const auto j = nlohmann::json::parse(samples, nullptr, /*allow_exceptions=*/false);
  const auto it = j.is_object() ? j.find("routine_ms") : j.end();
  return it != j.end() && it->is_array() ? it->size() : 0;
}

// "database PATH has schema version V, newer than this mmtune's": refused, never downgraded.
UsageError newer_schema(const std::string& path, int version);

// A positive integer from a test-only environment variable, or 0 when unset or malformed.
long test_switch(const char* name);

}  // namespace mmtune
