// The replay of a spec's recorded landscape (tune/replay.hpp): its parameters' words are searched
// as numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tune/replay.hpp"

namespace mmtune {
namespace {

MeasurementRecord timed(const std::string& config, double ms) {
  MeasurementRecord r;
  r.kernel = "spec:k:0123456789abcdef";
  r.config = config;
  r.result.status = Status::kOk;
  r.result.median_ms = r.result.min_ms = r.result.max_ms = ms;
  r.result.routine_ms = {ms};
  return r;
}

TEST(ReplaySpec, AWordAndANumberOfOneParameterStayTwoValues) {
  // mode 0 or fast: "fast" was numbered 0 as the first word, the same as the number 0, and the
  // replay kept two of the four configurations.
  const std::vector<MeasurementRecord> records = {
      timed("mode=0 tile=8", 4.0), timed("mode=0 tile=16", 3.0), timed("mode=fast tile=8", 2.0),
      timed("mode=fast tile=16", 1.0)};
  const Landscape land = load_landscape(records[0].kernel, records);
  ASSERT_EQ(land.table.space.size(), 4u);
  std::vector<double> times;
  for (const auto& t : land.table.times) times.push_back(t.value_or(0));
  std::sort(times.begin(), times.end());
  EXPECT_EQ(times, (std::vector<double>{1.0, 2.0, 3.0, 4.0}));
}

}  // namespace
}  // namespace mmtune
