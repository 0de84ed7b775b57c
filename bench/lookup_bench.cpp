// How long ParameterLookup::lookup takes once the database is open: fills a temporary database
// with `entries` bests (default 2000) across shapes and devices, then times 20000 lookups.
//   mmtune_lookup_bench [entries]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "mmtune/lookup.hpp"
#include "store/store.hpp"

int main(int argc, char** argv) {
  using namespace mmtune;
  const int entries = argc > 1 ? std::atoi(argv[1]) : 2000;
  char dir[] = "/tmp/mmtune-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  const std::string db = std::string(dir) + "/bench.db";
  const auto devices = list_devices();
  const DeviceInfo& dev = devices.front().info;
  const auto configs = enumerate(KernelKind::kTiled, SpaceSize::kQuick, &dev, Precision::kSingle);
  {
    Store store(db);
    store.upsert_device(dev);
    std::mt19937 rng(1);
    sql::Transaction t(store.db());
    for (int i = 0; i < entries; ++i) {
      MeasurementRecord r;
      r.device_key = dev.key;
      r.kernel = "tiled";
      r.config = to_string(configs[rng() % configs.size()]);
      r.problem.m = 16 + rng() % 4000, r.problem.n = 16 + rng() % 4000,
      r.problem.k = 16 + rng() % 4000;
      r.result.median_ms = r.result.min_ms = r.result.max_ms = r.result.kernel_median_ms = 1.0;
      r.result.routine_ms = r.result.kernel_ms = {1.0};
      store.insert_measurement(r);
    }
    t.commit();
  }
  const auto t0 = std::chrono::steady_clock::now();
  const ParameterLookup lookup(db);
  const double open_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::vector<double> us;
  std::mt19937 rng(2);
  std::size_t exact = 0;
  for (int i = 0; i < 20000; ++i) {
    GemmProblem p;
    p.m = 16 + rng() % 4000, p.n = 16 + rng() % 4000, p.k = 16 + rng() % 4000;
    const auto a = std::chrono::steady_clock::now();
    const auto t = lookup.lookup(dev, p);
    us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
    exact += t.source == LookupSource::kExact;
  }
  std::sort(us.begin(), us.end());
  std::printf("%zu stored bests: open %.1f ms; lookup median %.1f us, p99 %.1f us, max %.1f us\n",
              lookup.entries(), open_ms, us[us.size() / 2], us[us.size() * 99 / 100], us.back());
  std::filesystem::remove_all(dir);
  return exact > us.size() ? 1 : 0;
}
