#include "cmd_device.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "cmd_spec.hpp"
#include "core/cpu_load.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "opencl/calibration.hpp"
#include "opencl/kernel_source.hpp"
#include "opencl/runner.hpp"

namespace mmtune::cli {
namespace {

std::string human_bytes(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

// ---- commands -------------------------------------------------------------------------------

int cmd_devices(bool json) {
  const auto devices = list_devices();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    const std::size_t chosen = select_device(devices, "", "").info.index;
    for (const auto& d : devices) {
      auto j = to_json(d.info);
      j["capability"] = d.info.capability();
      j["default"] = d.info.index == chosen;
      // As the text: how kernels are timed and the fp32 peak, once calibrated (else null).
      Calibration c;
      const bool known =
          cached_calibration(ProgramCache::default_disk_dir(), d.info, Precision::kSingle, c);
      j["events_usable"] = known ? nlohmann::json(c.events.usable) : nlohmann::json();
      j["events_reason"] =
          known && !c.events.usable ? nlohmann::json(c.events.reason) : nlohmann::json();
      j["peak_gflops"] = known ? nlohmann::json(c.peak_gflops) : nlohmann::json();
      out.push_back(std::move(j));
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  const std::size_t chosen = select_device(devices, "", "").info.index;
  for (const auto& dev : devices) {
    const DeviceInfo& d = dev.info;
    std::string items;
    for (auto s : d.max_work_item_sizes) items += (items.empty() ? "" : "x") + std::to_string(s);
    const auto& p = d.preferred;
    const auto& n = d.native;
    // The implementation first: one CPU can be several devices, one per OpenCL implementation.
    std::printf("[%zu] %s  on %s  (key %s)\n", d.index, d.name.c_str(), d.platform_name.c_str(),
                d.key.c_str());
    std::printf("    implementation  %s, %s\n", d.platform_name.c_str(),
                d.platform_version.c_str());
    std::printf("    vendor          %s, type %s, driver %s\n", d.vendor.c_str(), d.type.c_str(),
                d.driver_version.c_str());
    std::printf("    OpenCL C        %s\n", d.opencl_c_version.c_str());
    std::printf(
        "    compute units   %u at %u MHz; capability %.0f (units x MHz x fp32 vector "
        "width)%s\n",
        d.compute_units, d.max_clock_mhz, d.capability(),
        d.index == chosen ? ": the default device" : "");
    std::printf("    memory          global %s (max alloc %s), local %s%s\n",
                human_bytes(d.global_mem_bytes).c_str(), human_bytes(d.max_alloc_bytes).c_str(),
                human_bytes(d.local_mem_bytes).c_str(),
                d.local_mem_dedicated ? "" : " (emulated in global)");
    std::printf("    work-group      max %zu, item sizes %s\n", d.max_work_group_size,
                items.c_str());
    std::printf(
        "    vector widths   preferred/native: char %u/%u short %u/%u int %u/%u long %u/%u "
        "float %u/%u double %u/%u half %u/%u\n",
        p.char_, n.char_, p.short_, n.short_, p.int_, n.int_, p.long_, n.long_, p.float_, n.float_,
        p.double_, n.double_, p.half, n.half);
    std::printf("    fp64 %s, fp16 %s\n", d.fp64 ? "yes" : "no", d.fp16 ? "yes" : "no");
    Calibration c;
    if (!cached_calibration(ProgramCache::default_disk_dir(), d, Precision::kSingle, c)) {
      std::printf(
          "    timing          not calibrated yet (the first tune, bench or roofline does)\n");
    } else {
      std::printf("    timing          %s; fp32 peak %.1f GFLOPS (wall clock)\n",
                  c.events.usable ? "event timestamps usable"
                                  : ("event timestamps unusable, kernels timed by wall clock: " +
                                     c.events.reason)
                                        .c_str(),
                  c.peak_gflops);
    }
  }
  return kExitOk;
}

int cmd_space(const std::string& kernel, const std::string& space, const std::string& device,
              const std::string& platform, std::optional<int> given_precision, bool json) {
  const int precision = given_precision.value_or(32);
  const auto kind = parse_kernel_kind(kernel);
  if (!kind) throw UsageError("unknown kernel '" + kernel + "' (tiled, direct, naive, classic)");
  std::optional<DeviceInfo> info;
  // --platform alone names that platform's default device (and an unknown one is refused).
  if (!device.empty() || !platform.empty()) {
    info = select_device(list_devices(), device, platform).info;
  }
  const auto prec = static_cast<Precision>(precision);
  // The precision only sets the device's limits (local memory per element).
  if (!info && given_precision) {
    throw UsageError(
        "--precision counts configurations within a device's limits: it needs --device");
  }
  if (info && !info->supports(prec)) {
    throw NoDeviceError("device '" + info->name + "' has no fp" + std::to_string(precision) +
                        " support");
  }
  const SpaceSummary s = summarize(*kind, space == "quick" ? SpaceSize::kQuick : SpaceSize::kFull,
                                   info ? &*info : nullptr, prec);
  if (json) {
    auto j = to_json(s);
    if (info) j["device"] = info->name, j["precision"] = precision;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%s kernel, %s space\n", kernel_name(s.kernel).c_str(), space.c_str());
  for (const auto& p : s.params) {
    std::string vals;
    for (int v : p.values) vals += (vals.empty() ? "" : " ") + std::to_string(v);
    std::printf("  %-7s %-24s %s\n", p.name.c_str(), ("{" + vals + "}").c_str(), p.help.c_str());
  }
  for (const auto& c : s.constraints) std::printf("  constraint: %s\n", c.c_str());
  std::printf("configurations: %llu before constraints, %llu after constraints",
              static_cast<unsigned long long>(s.product), static_cast<unsigned long long>(s.valid));
  if (s.device) {
    std::printf(", %llu within the limits of '%s' (fp%d)",
                static_cast<unsigned long long>(*s.device), info->name.c_str(), precision);
  }
  std::printf("\n");
  return kExitOk;
}

int cmd_run(const GlobalOptions& g, const DeviceOptions& dopt, const ProblemOptions& popt,
            const std::string& kernel, const std::string& config_text, std::uint64_t seed,
            bool json) {
  const auto kind = parse_kernel_kind(kernel);
  if (!kind) throw UsageError("unknown kernel '" + kernel + "' (tiled, direct, naive, classic)");
  GemmProblem problem = make_problem(popt);
  const KernelConfig config =
      config_text.empty() ? default_config(*kind) : parse_config(*kind, config_text);
  const auto sources = load_sources(g);
  const auto devices = list_devices();
  const Device& device = select_device(devices, dopt.device, dopt.platform);
  // From the calibration on (a run of a small problem is over in under /proc's resolution).
  CpuLoad load(0.2);
  load.sample(-1);
  Runner runner(device, sources);
  runner.set_problem(problem, seed);  // refuses what the device cannot run, before any output
  spdlog::info("device [{}] {}", device.info.index, device.info.name);
  Measurement m = runner.evaluate(config);
  if (const auto share = load.sample(-1)) m.other_load = *share;
  if (m.status == Status::kOk && m.other_load > kBusyShare) {
    spdlog::warn(
        "busy machine: other processes used {:.0f}% of the CPUs during the run; its times are "
        "likely long",
        100 * m.other_load);
  }
  if (json) {
    nlohmann::json j = {{"device", to_json(device.info)},
                        {"problem", to_json(problem)},
                        {"kernel", kernel_name(*kind)},
                        {"config", to_string(config)},
                        {"measurement", to_output_json(m)}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("%s %s [%s] on %s\n", kernel_name(*kind).c_str(), describe(problem).c_str(),
                to_string(config).c_str(), device.info.name.c_str());
    if (m.status == Status::kOk) {
      // A batch run one launch per item has no single kernel to time alone, a call that only
      // scales C (alpha = 0 or k = 0) none at all.
      const std::string kernel_part =
          m.kernel_median_ms <= 0
              ? std::string(
                    "kernel not timed alone (a batch run one launch per item, or no "
                    "GEMM kernel in the call)")
              : fmt::format("kernel{} {:.3f} ms = {} GFLOPS",
                            m.kernel_wall_clock
                                ? " (wall clock, run alone: event timestamps unusable)"
                                : "",
                            m.kernel_median_ms, rate_text(m.kernel_gflops));
      std::printf(
          "Ok: routine %.3f ms median (%.3f-%.3f, %zu runs) = %s GFLOPS; %s; build %.2f s; max "
          "error %.3g\n",
          m.median_ms, m.min_ms, m.max_ms, m.routine_ms.size(), rate_text(m.gflops).c_str(),
          kernel_part.c_str(), m.build_seconds, m.max_error);
    } else {
      std::printf("%s: %s\n", to_string(m.status), m.message.c_str());
    }
  }
  return m.status == Status::kOk ? kExitOk : kExitFailure;
}

}  // namespace

void DeviceCommands::add(CLI::App& app) {
  devices = app.add_subcommand("devices", "list OpenCL platforms and devices");
  devices->add_flag("--json", devices_json, "print JSON");

  space = app.add_subcommand("space",
                             "describe a kernel's parameter space and count its configurations");
  space->add_option("--kernel", space_kernel, "tiled, direct, naive or classic")
      ->capture_default_str();
  space->add_option("--space", space_size, "full or quick")
      ->check(CLI::IsMember({"full", "quick"}))
      ->capture_default_str();
  space->add_option("-d,--device", space_device, "also apply this device's limits")
      ->check(cli::one_device());
  space->add_option("--platform", space_platform, "narrow the device choice to one platform");
  space
      ->add_option("--precision", space_precision,
                   "bits: 16, 32 or 64, for the limits of --device (its local memory per element)")
      ->check(CLI::IsMember({16, 32, 64}));
  space->add_flag("--json", space_json, "print JSON");
  space->add_option("--spec", space_spec, "a user's kernel: its spec file (docs/spec.md)");
  space->add_option("--size", space_sizes, "with --spec: the spec's sizes, e.g. 4096,4096,15");

  run_cmd = app.add_subcommand("run", "build, verify and time one configuration");
  add_device_options(run_cmd, run_dev);
  add_problem_options(run_cmd, run_prob);
  add_batch_option(run_cmd, run_prob);
  run_cmd->add_option("--kernel", run_kernel, "tiled, direct, naive or classic")
      ->capture_default_str();
  run_cmd->add_option("--config", run_config,
                      "parameters, e.g. \"MWG=64 NWG=64 ...\" (default: the kernel's defaults)");
  run_cmd->add_option("--seed", run_seed, "seed of the random operands")
      ->check(cli::non_negative_integer());
  run_cmd->add_flag("--json", run_json, "print JSON");
  run_cmd->add_option("--spec", run_spec, "a user's kernel: its spec file (docs/spec.md)");
  run_cmd->add_option("--size", run_sizes, "with --spec: the spec's sizes, e.g. 4096,4096,15");
}

int DeviceCommands::run(const GlobalOptions& g) const {
  if (devices->parsed()) return cmd_devices(devices_json);
  if (space->parsed() && !space_spec.empty()) {
    refuse_with_spec(*space, {"--kernel", "--space", "--precision"});
    return cmd_space_spec(space_spec, space_sizes, space_device, space_platform, space_json);
  }
  if (space->parsed()) {
    if (!space_sizes.empty()) throw UsageError("--size needs --spec");
    return cmd_space(
        space_kernel, space_size, space_device, space_platform,
        space->count("--precision") > 0 ? std::optional(space_precision) : std::nullopt,
        space_json);
  }
  if (run_cmd->parsed() && !run_spec.empty()) {
    if (!g.kernels_dir.empty()) throw UsageError("--kernels-dir and --spec exclude each other");
    refuse_problem_with_spec(*run_cmd, run_prob);
    refuse_with_spec(*run_cmd, {"--kernel", "--seed"});
    return cmd_run_spec(run_spec, run_sizes, run_config, run_dev.device, run_dev.platform,
                        run_json);
  }
  if (run_cmd->parsed()) {
    if (!run_sizes.empty()) throw UsageError("--size needs --spec");
    return cmd_run(g, run_dev, run_prob, run_kernel, run_config, run_seed, run_json);
  }
  return -1;
}

}  // namespace mmtune::cli
