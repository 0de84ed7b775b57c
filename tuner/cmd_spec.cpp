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
  if (!device.empty()) info = select_device(list_devices(), device, platform).info;
  SpecInstance instance(spec, parse_spec_sizes(sizes), info ? &*info : nullptr);

  // Counted by the first reason a configuration fails, like a tune's ExceedsLimits statuses.
  std::size_t valid = 0, total = 0;
  std::map<std::string, std::size_t> reasons;
  SpecPoint point(spec.parameters.size(), 0);
  for (bool more = true; more; ++total) {
    const std::string why = instance.violation(point);
    if (why.empty()) {
      ++valid;
    } else {
      ++reasons[why.rfind("constraint ", 0) == 0 ? why : without_numbers(why)];
    }
    more = false;
    for (std::size_t d = spec.parameters.size(); d-- > 0;) {
      if (++point[d] < spec.parameters[d].size()) {
        more = true;
        break;
      }
      point[d] = 0;
    }
  }
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
                        {"excluded", reasons}};
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
  for (const auto& [why, n] : reasons) std::printf("  excluded: %zu by %s\n", n, why.c_str());
  return kExitOk;
}

int cmd_run_spec(const std::string& spec_path, const std::string& sizes, const std::string& config,
                 const std::string& device, const std::string& platform, bool json) {
  const KernelSpec spec = parse_spec_file(spec_path);
  if (sizes.empty()) throw UsageError(spec_path + " needs --size");
  const auto devices = list_devices();
  const Device& dev = select_device(devices, device, platform);
  SpecRunner runner(dev, spec, parse_spec_sizes(sizes));
  SpecPoint point;
  if (config.empty()) {
    const auto valid = runner.instance().enumerate();
    if (valid.empty()) throw UsageError("no configuration of " + spec_path + " can run here");
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
                              {"measurement", to_json(m)}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("%s %s [%s] on %s\n", spec.name.c_str(), sizes.c_str(), text.c_str(),
                dev.info.name.c_str());
    if (m.status == Status::kOk) {
      std::printf("Ok: %.3f ms median (%.3f-%.3f, %zu runs%s)", m.median_ms, m.min_ms, m.max_ms,
                  m.routine_ms.size(),
                  m.kernel_wall_clock ? ", wall clock: event timestamps unusable" : "");
      if (m.gflops > 0) std::printf(" = %.1f GFLOPS", m.gflops);
      std::printf("; build %.2f s; max error %.3g\n", m.build_seconds, m.max_error);
    } else {
      std::printf("%s: %s\n", to_string(m.status), m.message.c_str());
    }
  }
  return m.status == Status::kOk ? kExitOk : kExitFailure;
}

}  // namespace mmtune::cli
