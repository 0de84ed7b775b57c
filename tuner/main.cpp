// mmtune: maps the command line onto the library. No tuning logic lives here.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/json.hpp"
#include "mmtune/kernel_source.hpp"
#include "mmtune/problem.hpp"
#include "mmtune/runner.hpp"

namespace {

using namespace mmtune;

struct GlobalOptions {
  int verbose = 0;
  bool quiet = false;
  std::string kernels_dir;
};

struct DeviceOptions {
  std::string device = "0";
  std::string platform;
};

struct ProblemOptions {
  std::string m, n, k;
  int precision = 32;
  std::string layout = "row";
  bool trans_a = false, trans_b = false;
};

void add_device_options(CLI::App* app, DeviceOptions& o) {
  app->add_option("-d,--device", o.device, "device: index as listed by 'mmtune devices', or part of its name")
      ->capture_default_str();
  app->add_option("--platform", o.platform, "narrow the device choice to one platform (index or name)");
}

void add_problem_options(CLI::App* app, ProblemOptions& o) {
  app->add_option("--n", o.n, "columns of C (and m = k = n unless given)");
  app->add_option("--m", o.m, "rows of C");
  app->add_option("--k", o.k, "inner dimension");
  app->add_option("--precision", o.precision, "bits: 16, 32 or 64")
      ->check(CLI::IsMember({16, 32, 64}))
      ->capture_default_str();
  app->add_option("--layout", o.layout, "storage order of all matrices: row or col")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  app->add_flag("--trans-a", o.trans_a, "A is stored transposed");
  app->add_flag("--trans-b", o.trans_b, "B is stored transposed");
}

// A matrix size: a positive decimal integer.
std::size_t parse_size(const char* flag, const std::string& text) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::result_out_of_range) {
    throw UsageError(std::string(flag) + " " + text + " is too large");
  }
  if (ec != std::errc() || ptr != end || v == 0) {
    throw UsageError(std::string(flag) + " must be a positive integer, got '" + text + "'");
  }
  return static_cast<std::size_t>(v);
}

GemmProblem make_problem(const ProblemOptions& o) {
  if (o.n.empty() && o.m.empty() && o.k.empty()) {
    throw UsageError("give the problem size: --n N (square) or --m M --n N --k K");
  }
  GemmProblem p;
  const std::string& base = !o.n.empty() ? o.n : (!o.m.empty() ? o.m : o.k);
  const char* base_flag = !o.n.empty() ? "--n" : (!o.m.empty() ? "--m" : "--k");
  const std::size_t square = parse_size(base_flag, base);
  p.m = o.m.empty() ? square : parse_size("--m", o.m);
  p.n = o.n.empty() ? square : parse_size("--n", o.n);
  p.k = o.k.empty() ? square : parse_size("--k", o.k);
  p.precision = static_cast<Precision>(o.precision);
  p.layout = o.layout == "col" ? Layout::kColMajor : Layout::kRowMajor;
  p.trans_a = o.trans_a;
  p.trans_b = o.trans_b;
  return p;
}

KernelSources load_sources(const GlobalOptions& g) {
  return g.kernels_dir.empty() ? KernelSources() : KernelSources(g.kernels_dir);
}

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
    for (const auto& d : devices) out.push_back(to_json(d.info));
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& dev : devices) {
    const DeviceInfo& d = dev.info;
    std::string items;
    for (auto s : d.max_work_item_sizes) items += (items.empty() ? "" : "x") + std::to_string(s);
    const auto& p = d.preferred;
    const auto& n = d.native;
    std::printf("[%zu] %s  (key %s)\n", d.index, d.name.c_str(), d.key.c_str());
    std::printf("    platform        %s (%s)\n", d.platform_name.c_str(), d.platform_version.c_str());
    std::printf("    vendor          %s, type %s, driver %s\n", d.vendor.c_str(), d.type.c_str(),
                d.driver_version.c_str());
    std::printf("    OpenCL C        %s\n", d.opencl_c_version.c_str());
    std::printf("    compute units   %u at %u MHz\n", d.compute_units, d.max_clock_mhz);
    std::printf("    memory          global %s (max alloc %s), local %s%s\n",
                human_bytes(d.global_mem_bytes).c_str(), human_bytes(d.max_alloc_bytes).c_str(),
                human_bytes(d.local_mem_bytes).c_str(), d.local_mem_dedicated ? "" : " (emulated in global)");
    std::printf("    work-group      max %zu, item sizes %s\n", d.max_work_group_size, items.c_str());
    std::printf("    vector widths   preferred/native: char %u/%u short %u/%u int %u/%u long %u/%u "
                "float %u/%u double %u/%u half %u/%u\n",
                p.char_, n.char_, p.short_, n.short_, p.int_, n.int_, p.long_, n.long_, p.float_,
                n.float_, p.double_, n.double_, p.half, n.half);
    std::printf("    fp64 %s, fp16 %s\n", d.fp64 ? "yes" : "no", d.fp16 ? "yes" : "no");
  }
  return kExitOk;
}

int cmd_space(const std::string& kernel, const std::string& space, const std::string& device,
              const std::string& platform, int precision, bool json) {
  const auto kind = parse_kernel_kind(kernel);
  if (!kind) throw UsageError("unknown kernel '" + kernel + "' (tiled, direct, naive, classic)");
  std::optional<DeviceInfo> info;
  if (!device.empty()) info = select_device(list_devices(), device, platform).info;
  const auto prec = static_cast<Precision>(precision);
  const SpaceSummary s = summarize(*kind, space == "quick" ? SpaceSize::kQuick : SpaceSize::kFull,
                                   info ? &*info : nullptr, prec);
  if (json) {
    auto j = to_json(s);
    if (info) j["device"] = info->name;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%s kernel, %s space\n", kernel_name(s.kernel), space.c_str());
  for (const auto& p : s.params) {
    std::string vals;
    for (int v : p.values) vals += (vals.empty() ? "" : " ") + std::to_string(v);
    std::printf("  %-7s %-24s %s\n", p.name.c_str(), ("{" + vals + "}").c_str(), p.help.c_str());
  }
  for (const auto& c : s.constraints) std::printf("  constraint: %s\n", c.c_str());
  std::printf("configurations: %llu before constraints, %llu after constraints",
              static_cast<unsigned long long>(s.product), static_cast<unsigned long long>(s.valid));
  if (s.device) {
    std::printf(", %llu within the limits of '%s' (fp%d)", static_cast<unsigned long long>(*s.device),
                info->name.c_str(), precision);
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
  spdlog::info("device [{}] {}", device.info.index, device.info.name);
  Runner runner(device, sources);
  runner.set_problem(problem, seed);
  const Measurement m = runner.evaluate(config);
  if (json) {
    nlohmann::json j = {{"device", to_json(device.info)},
                        {"problem", to_json(problem)},
                        {"kernel", kernel_name(*kind)},
                        {"config", to_string(config)},
                        {"measurement", to_json(m)}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("%s %s [%s] on %s\n", kernel_name(*kind), describe(problem).c_str(),
                to_string(config).c_str(), device.info.name.c_str());
    if (m.status == Status::kOk) {
      std::printf("Ok: routine %.3f ms median (%.3f-%.3f, %zu runs) = %.1f GFLOPS; kernel %.3f ms = "
                  "%.1f GFLOPS; build %.2f s; max error %.3g\n",
                  m.median_ms, m.min_ms, m.max_ms, m.routine_ms.size(), m.gflops, m.kernel_median_ms,
                  m.kernel_gflops, m.build_seconds, m.max_error);
    } else {
      std::printf("%s: %s\n", to_string(m.status), m.message.c_str());
    }
  }
  return m.status == Status::kOk ? kExitOk : kExitFailure;
}

struct TuneOptions {
  std::string kernel = "all", space = "full", strategy = "model", time_limit, db;
  std::size_t budget = 0;
  std::uint64_t seed = 1;
  bool json = false, fresh = false;
};

// "90s", "10m", "1h", "1h30m" or plain seconds.
double parse_duration(const std::string& text) {
  double total = 0.0;
  std::size_t i = 0;
  if (text.empty()) throw UsageError("--time-limit is empty");
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    if (j == i) throw UsageError("--time-limit '" + text + "' is not a duration like 90s, 10m or 1h");
    const double v = std::stod(text.substr(i, j - i));
    double unit = 1.0;
    if (j < text.size()) {
      const char u = text[j++];
      unit = u == 's' ? 1.0 : u == 'm' ? 60.0 : u == 'h' ? 3600.0 : -1.0;
      if (unit < 0) throw UsageError("--time-limit '" + text + "' is not a duration like 90s, 10m or 1h");
    }
    total += v * unit;
    i = j;
  }
  if (total <= 0.0) throw UsageError("--time-limit must be positive");
  return total;
}

int cmd_tune(const GlobalOptions& g, const DeviceOptions& dopt, const ProblemOptions& popt,
             const TuneOptions& t) {
  const GemmProblem problem = make_problem(popt);
  if (t.kernel != "all" && !parse_kernel_kind(t.kernel)) {
    throw UsageError("unknown kernel '" + t.kernel + "' (tiled, direct or all)");
  }
  if (!t.time_limit.empty()) parse_duration(t.time_limit);
  const auto sources = load_sources(g);
  const auto devices = list_devices();
  const Device& device = select_device(devices, dopt.device, dopt.platform);
  check_fits(problem, device.info);
  validate(problem);
  if (!device.info.supports(problem.precision)) {
    throw NoDeviceError("device '" + device.info.name + "' has no fp" +
                        to_string(problem.precision) + " support");
  }
  spdlog::info("tune {} on [{}] {}", describe(problem), device.info.index, device.info.name);
  throw Error("the tuning engine is not available in this build yet; 'mmtune run' evaluates one configuration");
}

void setup_logging(const GlobalOptions& g) {
  auto logger = spdlog::stderr_color_mt("mmtune");
  logger->set_pattern("%^%l%$: %v");
  logger->set_level(g.quiet ? spdlog::level::err
                            : g.verbose >= 2 ? spdlog::level::trace
                            : g.verbose == 1 ? spdlog::level::debug
                                             : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

// The tune command is the default: "mmtune --device 0 --n 2048" means "mmtune tune ...".
std::vector<std::string> with_default_command(int argc, char** argv, const CLI::App& app) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool has_command = false, wants_global = false;
  for (const auto& a : args) {
    for (const auto* sub : app.get_subcommands({})) has_command |= sub->check_name(a);
    wants_global |= a == "-h" || a == "--help" || a == "--version";
  }
  if (!has_command && !(wants_global && args.size() == 1) && !args.empty()) {
    args.insert(args.begin(), "tune");
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mmtune: generates, verifies, times and tunes OpenCL GEMM kernels for a device"};
  app.set_version_flag("--version", std::string("mmtune ") + MMTUNE_VERSION);
  app.footer(
      "Examples:\n"
      "  mmtune devices                          list OpenCL devices\n"
      "  mmtune --device 0 --n 2048              tune a 2048^3 fp32 GEMM on device 0\n"
      "  mmtune space --kernel tiled --device 0  show a kernel's parameter space\n"
      "  mmtune run --kernel tiled --n 1024 --config \"MWG=64 NWG=64 ...\"\n"
      "Exit codes: 0 success, 1 failure, 2 bad usage or input, 3 no usable OpenCL device,\n"
      "130 interrupted.");
  app.require_subcommand(0, 1);
  app.fallthrough();
  GlobalOptions g;
  app.add_flag("-v,--verbose", g.verbose, "more log output (repeat for more)");
  app.add_flag("-q,--quiet", g.quiet, "only errors on stderr");
  app.add_option("--kernels-dir", g.kernels_dir, "read kernels/*.cl from this directory instead of the embedded copies");

  bool devices_json = false;
  auto* devices = app.add_subcommand("devices", "list OpenCL platforms and devices");
  devices->add_flag("--json", devices_json, "print JSON");

  std::string space_kernel = "tiled", space_size = "full", space_device, space_platform;
  int space_precision = 32;
  bool space_json = false;
  auto* space = app.add_subcommand("space", "describe a kernel's parameter space and count its configurations");
  space->add_option("--kernel", space_kernel, "tiled, direct, naive or classic")->capture_default_str();
  space->add_option("--space", space_size, "full or quick")->check(CLI::IsMember({"full", "quick"}))->capture_default_str();
  space->add_option("-d,--device", space_device, "also apply this device's limits");
  space->add_option("--platform", space_platform, "narrow the device choice to one platform");
  space->add_option("--precision", space_precision, "bits: 16, 32 or 64")->check(CLI::IsMember({16, 32, 64}));
  space->add_flag("--json", space_json, "print JSON");

  DeviceOptions run_dev;
  ProblemOptions run_prob;
  std::string run_kernel = "tiled", run_config;
  std::uint64_t run_seed = 1;
  bool run_json = false;
  auto* run = app.add_subcommand("run", "build, verify and time one configuration");
  add_device_options(run, run_dev);
  add_problem_options(run, run_prob);
  run->add_option("--kernel", run_kernel, "tiled, direct, naive or classic")->capture_default_str();
  run->add_option("--config", run_config, "parameters, e.g. \"MWG=64 NWG=64 ...\" (default: the kernel's defaults)");
  run->add_option("--seed", run_seed, "seed of the random operands");
  run->add_flag("--json", run_json, "print JSON");

  DeviceOptions tune_dev;
  ProblemOptions tune_prob;
  TuneOptions tune_opt;
  auto* tune = app.add_subcommand("tune", "tune a GEMM problem on a device (the default command)");
  add_device_options(tune, tune_dev);
  add_problem_options(tune, tune_prob);
  tune->add_option("--kernel", tune_opt.kernel, "tiled, direct or all")->capture_default_str();
  tune->add_option("--space", tune_opt.space, "full or quick")->check(CLI::IsMember({"full", "quick"}))->capture_default_str();
  tune->add_option("--strategy", tune_opt.strategy, "search strategy")
      ->check(CLI::IsMember({"exhaustive", "random", "annealing", "genetic", "model"}))
      ->capture_default_str();
  tune->add_option("--budget", tune_opt.budget, "maximum evaluations")->check(CLI::PositiveNumber);
  tune->add_option("--time-limit", tune_opt.time_limit, "maximum tuning time, e.g. 90s, 10m");
  tune->add_option("--seed", tune_opt.seed, "seed of the search and the operands");
  tune->add_option("--db", tune_opt.db, "tuning database (default $MMTUNE_DB or $XDG_DATA_HOME/mmtune/tuning.db)");
  tune->add_flag("--fresh", tune_opt.fresh, "measure again what the database already holds");
  tune->add_flag("--json", tune_opt.json, "print the summary as JSON");

  if (argc == 1) {
    std::cout << app.help();
    return kExitUsage;
  }
  try {
    auto args = with_default_command(argc, argv, app);
    std::reverse(args.begin(), args.end());  // CLI11 consumes a reversed vector
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "mmtune: " << e.what() << " (see mmtune --help)\n";
    return kExitUsage;
  }

  setup_logging(g);
  try {
    if (devices->parsed()) return cmd_devices(devices_json);
    if (space->parsed()) {
      return cmd_space(space_kernel, space_size, space_device, space_platform, space_precision, space_json);
    }
    if (run->parsed()) return cmd_run(g, run_dev, run_prob, run_kernel, run_config, run_seed, run_json);
    return cmd_tune(g, tune_dev, tune_prob, tune_opt);
  } catch (const Error& e) {
    spdlog::error("{}", e.what());
    return e.exit_code();
  } catch (const cl::Error& e) {
    spdlog::error("OpenCL call {} failed with error {}", e.what(), e.err());
    return kExitFailure;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitFailure;
  }
}
