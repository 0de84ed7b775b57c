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

TEST(ReplaySpec, IntegersBeyond32BitsAndDecimalsAreRankedAsNumbers) {
  // A spec tunes integers up to 2^53; their replay was refused as "invalid or repeated value".
  const std::vector<MeasurementRecord> big = {
      timed("big=1 wg=1", 4.0), timed("big=4294967296 wg=1", 3.0), timed("big=1 wg=2", 2.0),
      timed("big=4294967296 wg=2", 1.0)};
  EXPECT_EQ(load_landscape(big[0].kernel, big).table.space.size(), 4u);
  // Decimals are numbers: ranked as words, 16.0 came between 0.5 and 2.0.
  const std::vector<MeasurementRecord> decimals = {timed("step=16.0", 1.0), timed("step=2.0", 2.0),
                                                   timed("step=0.5", 3.0)};
  const Landscape land = load_landscape(decimals[0].kernel, decimals);
  ASSERT_EQ(land.table.space.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const double ms = land.table.times[i].value_or(0);
    EXPECT_EQ(land.table.space.point(i)[0], ms == 1.0 ? 2 : ms == 2.0 ? 1 : 0) << ms;
  }
}

}  // namespace
}  // namespace mmtune
