// Shared by the fault tests that run the real mmtune binary (test_faults.cpp,
// test_faults_storage.cpp): a small random tune's arguments and what a database holds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "store/sql.hpp"
#include "test_support.hpp"

namespace mmtune::faults_test {

using Env = std::map<std::string, std::string>;

// Stored measurements, or -1 while the database or its schema does not exist yet.
inline std::int64_t rows(const std::string& db) {
  return test::count_rows_if_ready(db, "SELECT COUNT(*) FROM measurements");
}

// Every row of the first `max_id` measurements, as text: what must survive a later failure.
inline std::string measurements_up_to(const std::string& db, std::int64_t max_id) {
  sql::Database d(db, sql::OpenMode::kReadWrite);
  auto q = d.prepare(
      "SELECT id, kernel, config, status, COALESCE(median_ms, -1), samples FROM measurements "
      "WHERE id <= ? ORDER BY id");
  q.bind(1, max_id);
  std::string out;
  while (q.step()) {
    out += std::to_string(q.integer(0)) + "|" + q.text(1) + "|" + q.text(2) + "|" + q.text(3) +
           "|" + std::to_string(q.real(4)) + "|" + q.text(5) + "\n";
  }
  return out;
}

inline std::vector<std::string> tune_args(const std::string& db, const std::string& n,
                                          const std::string& budget) {
  return {"tune",  "--device", "pthread", "--n",        n,        "--kernel", "tiled", "--space",
          "quick", "--budget", budget,    "--strategy", "random", "--db",     db,      "--json"};
}

}  // namespace mmtune::faults_test
