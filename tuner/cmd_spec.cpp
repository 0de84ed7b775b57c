#include "cmd_spec.hpp"

#include <cctype>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/json.hpp"
#include "family/spec.hpp"
#include "family/spec_space.hpp"
#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "opencl/spec_runner.hpp"
#include "search/strategy.hpp"
#include "store/store.hpp"
#include "tune/spec_session.hpp"

namespace mmtune::cli {
namespace {

// "work-group of 2048 exceeds the device's 1024" -> "work-group of # exceeds the device's #":
// configurations excluded for one reason are counted together.
std::string without_numbers(const std::string& why) {
  std::string out;
  for (const char c : why) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      out += c;
    } else if (out.empty() || out.back() != '#') {
      out += '#';
    }
  }
  return out;
}

// " = 12.3 GFLOPS, 45.6 GB/s" from the spec's metrics (empty without them).
std::string rates(const Measurement& m) {
  std::string out;
  char buf[64];
  if (m.gflops > 0) {
    std::snprintf(buf, sizeof buf, " = %.3g GFLOPS", m.gflops);
    out += buf;
  }
  if (m.gbps > 0) {
    std::snprintf(buf, sizeof buf, "%s%.3g GB/s", out.empty() ? " = " : ", ", m.gbps);
    out += buf;
  }
  return out;
}

}  // namespace

std::vector<long long> parse_spec_sizes(const std::string& text) {
  std::vector<long long> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || v < 1) {
      throw UsageError("--size: '" + item + "' is not a positive integer (e.g. --size 4096,4096)");
    }
    out.push_back(v);
    pos = end + 1;
  }
  return out;
}

int cmd_space_spec(const std::string& spec_path, const std::string& sizes,
                   const std::string& device, const std::string& platform, bool json) {
  const KernelSpec spec = parse_spec_file(spec_path);
  if (sizes.empty()) {
    std::string names;
    for (const auto& n : spec.sizes) names += (names.empty() ? "" : ",") + n;
    throw UsageError(spec_path + " needs --size " + names);
  }
  std::optional<DeviceInfo> info;
  // --platform alone names that platform's default device (and an unknown one is refused).
  if (!device.empty() || !platform.empty()) {
    info = select_device(list_devices(), device, platform).info;
  }
  SpecInstance instance(spec, parse_spec_sizes(sizes), info ? &*info : nullptr);

  // Counted by the first reason a configuration fails, like a tune's ExceedsLimits statuses.
  std::size_t valid = 0, total = 0;
  std::map<std::string, std::size_t> reasons;
  std::map<std::string, std::string> examples;  // a reason's first instance, with its numbers
  instance.for_each([&](const SpecPoint&, const std::string& why) {
    ++total;
    if (why.empty()) {
      ++valid;
    } else {
      const std::string key = why.rfind("constraint ", 0) == 0 ? why : without_numbers(why);
      ++reasons[key];
      if (key != why) examples.emplace(key, why);
    }
    return true;
  });
  if (json) {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : spec.parameters) {
      params.push_back(
          {{"name", p.name},
           {"values", p.numeric() ? nlohmann::json(p.values) : nlohmann::json(p.labels)}});
    }
    nlohmann::json constraints = nlohmann::json::array();
    for (const auto& c : spec.constraints) constraints.push_back(c.text);
    nlohmann::json j = {{"spec", spec.name},       {"kernel", spec.kernel},
                        {"parameters", params},    {"constraints", constraints},
                        {"configurations", total}, {"valid", valid},
                        {"excluded", reasons},     {"excluded_examples", examples}};
    if (info) j["device"] = info->name;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%s (%s in %s), sizes %s\n", spec.name.c_str(), spec.kernel.c_str(),
              spec.path.string().c_str(), sizes.c_str());
  for (const auto& p : spec.parameters) {
    std::string vals;
    for (std::size_t i = 0; i < p.size(); ++i) {
      vals += (vals.empty() ? "" : " ") + (p.numeric() ? std::to_string(p.values[i]) : p.labels[i]);
    }
    std::printf("  %-16s {%s}\n", p.name.c_str(), vals.c_str());
  }
  for (const auto& c : spec.constraints) std::printf("  constraint: %s\n", c.text.c_str());
  std::printf(
      "configurations: %zu, %zu valid%s\n", total, valid,
      info ? (" on '" + info->name + "'").c_str() : " (without a device: its limits not applied)");
  for (const auto& [why, n] : reasons) {
    const auto e = examples.find(why);
    std::printf("  excluded: %zu by %s%s\n", n, why.c_str(),
                e == examples.end() ? "" : (" (e.g. " + e->second + ")").c_str());
  }
  return kExitOk;
}

int cmd_run_spec(const std::string& spec_path, const std::string& sizes, const std::string& config,
                 const std::string& device, const std::string& platform, bool json) {
  const KernelSpec spec = parse_spec_file(spec_path);
  if (sizes.empty()) throw UsageError(spec_path + " needs --size");
  const auto devices = list_devices();
  const Device& dev = select_device(devices, device, platform);
  SpecRunner runner(dev, spec, parse_spec_sizes(sizes));
  // Sizes no configuration can run with are bad input, not a variant's status.
  std::string why_none;
  const auto valid = runner.instance().enumerate(&why_none, 1);  // is there one, and which
  if (valid.empty()) {
    throw UsageError("no configuration of " + spec_path + " can run on " + dev.info.name +
                     " for these sizes: " + why_none);
  }
  SpecPoint point;
  if (config.empty() && !spec.default_config.empty()) {
    point = runner.instance().parse(spec.default_config);
  } else if (config.empty()) {
    point = valid.front();
  } else {
    point = runner.instance().parse(config);
  }
  const std::string text = runner.instance().to_text(point);
  const Measurement m = runner.evaluate(point);
  if (json) {
    const nlohmann::json j = {{"device", dev.info.name},
                              {"spec", spec.name},
                              {"sizes", parse_spec_sizes(sizes)},
                              {"config", text},
                              {"measurement", to_output_json(m)}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("%s %s [%s] on %s\n", spec.name.c_str(), sizes.c_str(), text.c_str(),
                dev.info.name.c_str());
    if (m.status == Status::kOk) {
      std::printf("Ok: %.3f ms median (%.3f-%.3f, %zu runs%s)", m.median_ms, m.min_ms, m.max_ms,
                  m.routine_ms.size(),
                  m.kernel_wall_clock ? ", wall clock: event timestamps unusable" : "");
      std::printf("%s", rates(m).c_str());
      std::printf("; build %.2f s; max error %.3g\n", m.build_seconds, m.max_error);
    } else {
      std::printf("%s: %s\n", to_string(m.status), m.message.c_str());
    }
  }
  return m.status == Status::kOk ? kExitOk : kExitFailure;
}

std::pair<GemmProblem, std::string> spec_store_key(const std::string& spec_path,
                                                   const std::string& sizes) {
  const KernelSpec spec = parse_spec_file(spec_path);
  const auto values = parse_spec_sizes(sizes);
  if (values.size() != spec.sizes.size()) {
    throw UsageError(spec_path + " needs " + std::to_string(spec.sizes.size()) + " size(s)");
  }
  return {spec_problem(values), spec_kernel_name(spec)};
}

int cmd_tune_spec(const TuneOptions& t, const DeviceOptions& d, const TuneEnvironment& env,
                  const std::atomic<bool>& stop, const std::string& command_line) {
  const KernelSpec spec = parse_spec_file(t.spec);
  if (t.sizes.empty()) throw UsageError(t.spec + " needs --size");
  SpecTuneRequest req;
  req.sizes = parse_spec_sizes(t.sizes);
  req.strategy = t.strategy.empty() ? default_strategy() : t.strategy;
  for (const auto& pair : t.strategy_options) parse_strategy_setting(pair, req.strategy_settings);
  check_strategy_settings(req.strategy, req.strategy_settings);
  req.budget = t.budget;
  req.time_limit_s = t.time_limit == "none" ? 0.0 : parse_duration(t.time_limit);
  req.seed = t.seed;
  req.fresh = t.fresh;
  req.finalists = t.finalists;
  req.confirm_rounds = t.confirm_rounds;
  req.command_line = command_line;
  if (d.device == "all") {
    throw UsageError("--device all tunes a GEMM on every device; a spec tune takes one device");
  }
  const auto devices = list_devices();
  const Device& device = select_device(devices, d.device, d.platform);
  const std::string db = database_path(t.db);
  Store store(db);
  const SpecTuneSummary s = tune_spec(device, store, spec, req, env, stop);
  const auto line = [&](const MeasurementRecord& m) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.3f ms", m.result.median_ms);
    return buf + rates(m.result);
  };
  if (t.json) {
    nlohmann::json j = {{"session", s.session_id},
                        {"outcome", to_string(s.outcome)},
                        {"kernel", s.kernel},
                        {"device", device.info.name},
                        {"sizes", req.sizes},
                        {"configurations", s.space},
                        {"evaluations", s.evaluations},
                        {"reused", s.reused},
                        {"worker_restarts", s.worker_restarts},
                        {"confirm_rounds", s.confirm_rounds}};
    nlohmann::json statuses = nlohmann::json::object();
    for (const auto& [status, n] : s.by_status) statuses[to_string(status)] = n;
    j["by_status"] = statuses;
    if (s.best)
      j["best"] = {{"config", s.best->config}, {"measurement", to_output_json(s.best->result)}};
    if (s.default_config) {
      j["default"] = {{"config", s.default_config->config},
                      {"measurement", to_output_json(s.default_config->result)}};
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf(
        "%s (%s) %s on %s: %zu evaluations (%zu known before), %zu valid "
        "configurations, %s in %.1f s\n",
        spec.name.c_str(), s.kernel.c_str(), t.sizes.c_str(), device.info.name.c_str(),
        s.evaluations, s.reused, s.space, to_string(s.outcome), s.total_s);
    std::string statuses;
    for (const auto& [status, n] : s.by_status) {
      statuses +=
          (statuses.empty() ? "" : ", ") + std::string(to_string(status)) + " " + std::to_string(n);
    }
    std::printf("statuses: %s\n", statuses.empty() ? "none" : statuses.c_str());
    if (s.best) {
      std::printf("best: %s: %s", s.best->config.c_str(), line(*s.best).c_str());
      if (s.confirm_rounds > 0 && s.best->session_id == s.session_id) {
        std::printf(" (confirmed in %zu side-by-side round%s)", s.confirm_rounds,
                    s.confirm_rounds == 1 ? "" : "s");
      }
      std::printf("\n");
    } else {
      std::printf("no configuration ran Ok\n");
    }
    if (s.default_config && s.best) {
      std::printf("default: %s: %s; the best is %.2fx as fast (side by side, median rounds)\n",
                  s.default_config->config.c_str(), line(*s.default_config).c_str(),
                  s.default_config->result.median_ms / s.best->result.median_ms);
    }
    std::printf("Stored in %s\n", sql::redact_url(db).c_str());
  }
  if (s.outcome == TuneOutcome::kInterrupted) return kExitInterrupted;
  return s.best ? kExitOk : kExitFailure;
}

}  // namespace mmtune::cli
