#include "tune/worker.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "core/json.hpp"
#include "family/spec.hpp"
#include "mmtune/error.hpp"
#include "opencl/runner.hpp"
#include "opencl/spec_runner.hpp"

namespace mmtune {
namespace {

using nlohmann::json;

// Test-only fault injection, for every family: a crash (abort) or a hang (sleep forever) on the
// configuration named by the environment, or a hang on every configuration of a kernel.
void inject_test_faults(const std::string& config, const std::string& kernel = {}) {
  const char* crash = std::getenv("MMTUNE_TEST_ABORT_ON_CONFIG");
  const char* hang = std::getenv("MMTUNE_TEST_HANG_ON_CONFIG");
  const char* hang_kernel = std::getenv("MMTUNE_TEST_HANG_ON_KERNEL");
  if (crash && *crash && config == crash) std::abort();
  while ((hang && *hang && config == hang) ||
         (hang_kernel && *hang_kernel && kernel == hang_kernel)) {
    std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

// Calls build(i) for i < count on the request's "parallel_builds" threads.
void build_in_parallel(const json& req, std::size_t count,
                       const std::function<void(std::size_t)>& build) {
  const std::size_t threads = std::min<std::size_t>(
      count, std::max<std::size_t>(1, req.value("parallel_builds", std::size_t(1))));
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < count; i = next++) build(i);
    });
  }
  for (auto& t : pool) t.join();
}

class Worker {
 public:
  Worker(std::ostream& out, const FamilyRegistry& families) : out_(out), families_(families) {}

  void init(const json& req) {
    const auto devices = list_devices();
    const std::size_t index = req.at("device_index").get<std::size_t>();
    if (index >= devices.size() ||
        devices[index].info.key != req.at("device_key").get<std::string>()) {
      throw NoDeviceError("device " + std::to_string(index) + " is not the one the tuner selected");
    }
    device_ = devices[index];
    if (req.contains("spec")) {  // a user's kernel (docs/spec.md)
      spec_ = std::make_unique<KernelSpec>(parse_spec_file(req.at("spec").get<std::string>()));
      spec_runner_ = std::make_unique<SpecRunner>(
          device_, *spec_, req.at("sizes").get<std::vector<long long>>(),
          req.value("program_dir", ""), BinaryWrites::kOnKeep);
      send({{"op", "ready"}});
      return;
    }
    const std::string dir = req.value("kernels_dir", "");
    sources_ =
        dir.empty() ? std::make_unique<KernelSources>() : std::make_unique<KernelSources>(dir);
    // Most variants run once: only what is evaluated again keeps its binary (program_cache.hpp).
    runner_ = std::make_unique<Runner>(device_, *sources_, req.value("program_dir", ""),
                                       BinaryWrites::kOnKeep);
    runner_->set_problem(problem_from_json(req.at("problem")), req.at("seed").get<std::uint64_t>(),
                         req.value("reference_file", ""));
    send({{"op", "ready"}});
  }

  void eval(const json& req) {
    if (spec_runner_) return eval_spec(req);
    if (!runner_) throw Error("eval before init");
    struct Item {
      int id;
      KernelConfig config;
      std::string text;
    };
    std::vector<Item> items;
    for (const auto& it : req.at("items")) {
      const auto kind = parse_kernel_kind(it.at("kernel").get<std::string>(), families_);
      if (!kind) throw UsageError("unknown kernel in request");
      const std::string text = it.at("config").get<std::string>();
      items.push_back({it.at("id").get<int>(), parse_config(*kind, text), text});
    }
    const TimingOptions timing = timing_from_json(req.at("timing"));

    // Build the whole batch first, in parallel: on a CPU device no compiler may compete with a
    // measurement for the cores.
    build_in_parallel(req, items.size(), [&](std::size_t i) {
      runner_->prepare(items[i].config);
      send({{"op", "built"}, {"id", items[i].id}});
    });

    for (const auto& item : items) {
      inject_test_faults(item.text, kernel_name(kind_of(item.config)));
      const Measurement m = runner_->evaluate(item.config, timing, [&] {
        send({{"op", "tick"}, {"id", item.id}});
      });
      send({{"op", "result"}, {"id", item.id}, {"measurement", to_json(m)}});
    }
  }

  // The same for a spec's configurations: options are computed one by one (expressions share
  // one scope), builds run in parallel.
  void eval_spec(const json& req) {
    struct Item {
      int id;
      SpecPoint point;
      std::string text;
      std::optional<std::string> options;
    };
    std::vector<Item> items;
    for (const auto& it : req.at("items")) {
      if (it.at("kernel").get<std::string>() != spec_kernel_name(*spec_)) {
        throw UsageError("unknown kernel in request");
      }
      const std::string text = it.at("config").get<std::string>();
      SpecPoint point = spec_runner_->instance().parse(text);
      auto options = spec_runner_->build_options(point);
      items.push_back({it.at("id").get<int>(), std::move(point), text, std::move(options)});
    }
    const TimingOptions timing = timing_from_json(req.at("timing"));
    build_in_parallel(req, items.size(), [&](std::size_t i) {
      if (items[i].options) spec_runner_->build(*items[i].options);
      send({{"op", "built"}, {"id", items[i].id}});
    });
    for (const auto& item : items) {
      inject_test_faults(item.text);
      const Measurement m = spec_runner_->evaluate(item.point, timing, [&] {
        send({{"op", "tick"}, {"id", item.id}});
      });
      send({{"op", "result"}, {"id", item.id}, {"measurement", to_json(m)}});
    }
  }

  void send(const json& j) {
    std::lock_guard lock(mutex_);
    out_ << j.dump() << '\n' << std::flush;
  }

 private:
  std::ostream& out_;
  const FamilyRegistry& families_;
  std::mutex mutex_;
  Device device_;
  std::unique_ptr<KernelSources> sources_;
  std::unique_ptr<Runner> runner_;
  std::unique_ptr<KernelSpec> spec_;
  std::unique_ptr<SpecRunner> spec_runner_;
};

}  // namespace

int run_worker(std::istream& in, std::ostream& out, const FamilyRegistry& families) {
  Worker worker(out, families);
  std::string line;
  while (std::getline(in, line)) {
    json req;
    try {
      req = json::parse(line);
      const std::string op = req.at("op").get<std::string>();
      if (op == "quit") return kExitOk;
      if (op == "init") {
        worker.init(req);
      } else if (op == "eval") {
        worker.eval(req);
      } else {
        throw UsageError("unknown worker request '" + op + "'");
      }
    } catch (const Error& e) {
      worker.send({{"op", "error"}, {"message", e.what()}, {"exit_code", e.exit_code()}});
    } catch (const std::exception& e) {
      worker.send({{"op", "error"}, {"message", e.what()}, {"exit_code", int(kExitFailure)}});
    }
  }
  return kExitOk;
}

}  // namespace mmtune
