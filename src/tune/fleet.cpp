#include "tune/fleet.hpp"

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

#include "mmtune/error.hpp"

namespace mmtune {

std::size_t FleetPlan::parallel_builds() const {
  const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  return std::max<std::size_t>(1, threads / std::max<std::size_t>(1, groups.size()));
}

FleetPlan plan_fleet(const std::vector<const Device*>& candidates, const GemmProblem& problem) {
  validate(problem);
  FleetPlan plan;
  for (const Device* d : candidates) {
    if (!d->info.supports(problem.precision)) {
      plan.skipped.emplace_back(d,
                                std::string("no fp") + to_string(problem.precision) + " support");
      continue;
    }
    try {
      check_fits(problem, d->info);
    } catch (const Error& e) {
      plan.skipped.emplace_back(d, e.what());
      continue;
    }
    plan.groups[hardware_group(*d)].push_back(d);
  }
  return plan;
}

double fleet_time_limit(const FleetPlan& plan, const Device& device, double limit_s,
                        double elapsed_s) {
  if (limit_s <= 0) return 0;
  for (const auto& [group, members] : plan.groups) {
    const auto it = std::find(members.begin(), members.end(), &device);
    if (it == members.end()) continue;
    const auto left = double(members.end() - it);  // this device and those after it
    // Never 0, which means no limit: a device started past the limit runs its first batch.
    return std::max(1e-3, (limit_s - elapsed_s) / left);
  }
  throw Error("fleet_time_limit: " + device.info.name + " is not in the plan");
}

std::vector<FleetResult> tune_fleet(const FleetPlan& plan, const std::string& db,
                                    const std::atomic<bool>& stop, const TuneOne& tune_one) {
  if (plan.groups.empty()) throw NoDeviceError("no OpenCL device can run the problem");
  // Fails early for a bad database, and creates or migrates the schema before the threads start.
  Store(db).upsert_device(plan.groups.begin()->second.front()->info);
  std::vector<std::vector<FleetResult>> by_group(plan.groups.size());
  std::vector<std::thread> threads;
  std::mutex failed_mutex;
  std::optional<FleetResult> database_failed;  // the first failure of the database itself
  std::size_t gi = 0;
  for (const auto& entry : plan.groups) {
    threads.emplace_back([&, members = entry.second, slot = &by_group[gi++]] {
      for (const Device* d : members) {
        FleetResult r;
        r.device = d;
        {
          const std::lock_guard lock(failed_mutex);
          if (database_failed) {
            r.error = "not started: the database failed on [" +
                      std::to_string(database_failed->device->info.index) + "]";
            r.exit_code = database_failed->exit_code;
          }
        }
        if (stop) {
          r.error = "not started: interrupted";
        } else if (r.error.empty()) {
          try {
            Store store(db);  // a connection per thread
            r.summary = tune_one(*d, store);
          } catch (const Error& e) {
            r.error = e.what();
            r.exit_code = e.exit_code();
            if (dynamic_cast<const StorageError*>(&e)) {
              const std::lock_guard lock(failed_mutex);
              if (!database_failed) database_failed = r;
            }
          } catch (const std::exception& e) {
            r.error = e.what();
            r.exit_code = kExitFailure;
          }
        }
        slot->push_back(std::move(r));
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<FleetResult> out;
  for (auto& group : by_group) {
    for (auto& r : group) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mmtune
