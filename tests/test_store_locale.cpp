// A library caller's locale changes no number the store writes or reads: a consumer that calls
// setlocale(LC_ALL, "") in Germany read PostgreSQL's "0.05" as 0 and chose a slower kernel.
#include <gtest/gtest.h>

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

// LC_NUMERIC with a decimal comma, built here (localedef from Debian's `locales`) and set for
// this scope only: the suite's other tests run in the C locale.
class DecimalCommaLocale {
 public:
  explicit DecimalCommaLocale(const test::TempDir& dir) {
    const std::string command =
        "localedef -i de_DE -f UTF-8 '" + (dir / "de_DE.UTF-8") + "' > /dev/null 2>&1";
    built_ = std::system(command.c_str()) == 0;
    setenv("LOCPATH", dir.path.c_str(), 1);
    set_ = built_ && std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr;
  }
  DecimalCommaLocale(const DecimalCommaLocale&) = delete;
  DecimalCommaLocale& operator=(const DecimalCommaLocale&) = delete;
  ~DecimalCommaLocale() {
    std::setlocale(LC_NUMERIC, "C");
    unsetenv("LOCPATH");
  }
  bool set() const { return set_; }

 private:
  bool built_ = false, set_ = false;
};

class StoreLocale : public test::BackendTest {};
MMTUNE_INSTANTIATE_BACKENDS(StoreLocale);

TEST_P(StoreLocale, ADecimalCommaChangesNoStoredOrReadNumber) {
  const std::string db = fresh_db();  // the test server starts in the C locale
  DeviceInfo d = test::pocl_device("pthread").info;
  const DecimalCommaLocale german(dir);
  ASSERT_TRUE(german.set()) << "localedef could not build de_DE.UTF-8 (package locales)";
  char text[16];
  std::snprintf(text, sizeof text, "%.2f", 0.5);
  ASSERT_STREQ(text, "0,50") << "the locale is in effect";

  Store store(db);
  store.upsert_device(d);
  MeasurementRecord r;
  r.device_key = d.key, r.kernel = "naive";
  r.problem.m = r.problem.n = r.problem.k = 64;
  r.result.median_ms = r.result.min_ms = r.result.max_ms = r.result.kernel_median_ms = 0.05;
  r.result.routine_ms = r.result.kernel_ms = {0.05};
  r.result.gflops = r.result.kernel_gflops = r.problem.flops() / (0.05 * 1e6);
  store.add_measurement(r);
  const auto b = store.best(d.key, r.problem, "naive");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->median_ms, 0.05);
  EXPECT_EQ(b->gflops, r.result.gflops);
  const auto rows = store.measurements(d.key, r.problem, "naive");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].result.median_ms, 0.05);
  EXPECT_EQ(rows[0].result.routine_ms, std::vector<double>{0.05});
}

}  // namespace
}  // namespace mmtune
