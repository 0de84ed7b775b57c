// mmtune: maps the command line onto the library. No tuning logic lives here.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "mmtune/bench.hpp"
#include "mmtune/calibration.hpp"
#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "mmtune/exchange.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/json.hpp"
#include "mmtune/kernel_source.hpp"
#include "mmtune/lookup.hpp"
#include "mmtune/problem.hpp"
#include "mmtune/replay.hpp"
#include "mmtune/roofline.hpp"
#include "mmtune/runner.hpp"
#include "mmtune/simulate.hpp"
#include "mmtune/store.hpp"
#include "mmtune/strategy.hpp"
#include "mmtune/tuner.hpp"
#include "mmtune/worker.hpp"

#include "cli_options.hpp"
#include "cmd_exchange.hpp"
#include "cmd_report.hpp"

namespace {

using namespace mmtune;
using cli::add_device_options;
using cli::add_problem_options;
using cli::database_path;
using cli::DeviceOptions;
using cli::existing_database_path;
using cli::make_problem;
using cli::ProblemOptions;

struct GlobalOptions {
  int verbose = 0;
  bool quiet = false;
  std::string kernels_dir;
};

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
    // The implementation first: one CPU can be several devices, one per OpenCL implementation.
    std::printf("[%zu] %s  on %s  (key %s)\n", d.index, d.name.c_str(), d.platform_name.c_str(),
                d.key.c_str());
    std::printf("    implementation  %s, %s\n", d.platform_name.c_str(),
                d.platform_version.c_str());
    std::printf("    vendor          %s, type %s, driver %s\n", d.vendor.c_str(), d.type.c_str(),
                d.driver_version.c_str());
    std::printf("    OpenCL C        %s\n", d.opencl_c_version.c_str());
    std::printf("    compute units   %u at %u MHz\n", d.compute_units, d.max_clock_mhz);
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
      std::printf(
          "Ok: routine %.3f ms median (%.3f-%.3f, %zu runs) = %.1f GFLOPS; kernel%s %.3f ms = "
          "%.1f GFLOPS; build %.2f s; max error %.3g\n",
          m.median_ms, m.min_ms, m.max_ms, m.routine_ms.size(), m.gflops,
          m.kernel_wall_clock ? " (wall clock, run alone: event timestamps unusable)" : "",
          m.kernel_median_ms, m.kernel_gflops, m.build_seconds, m.max_error);
    } else {
      std::printf("%s: %s\n", to_string(m.status), m.message.c_str());
    }
  }
  return m.status == Status::kOk ? kExitOk : kExitFailure;
}

struct TuneOptions {
  std::string kernel = "all", space = "full", strategy, time_limit = "8m", db;
  std::size_t budget = 160, finalists = 4, confirm_rounds = 3;
  std::uint64_t seed = 1;
  bool json = false, fresh = false, no_baselines = false;
};

// "90s", "10m", "1h", "1h30m" or plain seconds.
double parse_duration(const std::string& text) {
  double total = 0.0;
  std::size_t i = 0;
  const std::string bad = "--time-limit '" + text + "' is not a duration like 90s, 10m or 1h";
  if (text.empty()) throw UsageError(bad);
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.'))
      ++j;
    double v = 0.0;
    // from_chars, not stod: "." or "1.2.3" are input errors, not exceptions from the library.
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + j, v);
    if (j == i || j - i > 12 || ec != std::errc() || end != text.data() + j) throw UsageError(bad);
    double unit = 1.0;
    if (j < text.size()) {
      const char u = text[j++];
      unit = u == 's' ? 1.0 : u == 'm' ? 60.0 : u == 'h' ? 3600.0 : -1.0;
      if (unit < 0) throw UsageError(bad);
    }
    total += v * unit;
    i = j;
  }
  if (!(total > 0.0)) throw UsageError("--time-limit must be positive");
  return total;
}

std::atomic<bool> g_stop{false};

extern "C" void on_sigint(int) {
  g_stop = true;
  signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

std::string self_exe() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the mmtune executable for the worker: " + ec.message());
  return p.string();
}

// A private scratch directory (mkdtemp: mode 0700, unpredictable name), removed on exit.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/mmtune-XXXXXX";
    if (!mkdtemp(templ.data())) throw Error("cannot create a temporary directory in " + templ);
    path = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

nlohmann::json record_json(const std::optional<MeasurementRecord>& r) {
  if (!r) return nullptr;
  nlohmann::json j = to_json(r->result);
  j["kernel"] = r->kernel;
  j["config"] = r->config;
  j["measurement_id"] = r->id;
  j["session_id"] = r->session_id;
  return j;
}

nlohmann::json summary_json(const TuneSummary& s, const DeviceInfo& d) {
  nlohmann::json by_status = nlohmann::json::object();
  for (const auto& [st, n] : s.by_status) by_status[to_string(st)] = n;
  nlohmann::json j = {{"session_id", s.session_id},
                      {"outcome", s.outcome},
                      {"device", {{"index", d.index}, {"name", d.name}, {"key", d.key}}},
                      {"problem", to_json(s.problem)},
                      {"best", record_json(s.best)},
                      {"default_tiled", record_json(s.default_tiled)},
                      {"default_direct", record_json(s.default_direct)},
                      {"naive", record_json(s.naive)},
                      {"classic", record_json(s.classic)},
                      {"evaluations", s.evaluations},
                      {"reused", s.reused},
                      {"by_status", by_status},
                      {"worker_restarts", s.worker_restarts},
                      {"confirmed",
                       {{"finalists", s.confirmed},
                        {"rounds", s.confirm_rounds},
                        {"evaluations", s.confirm_evaluations}}},
                      {"seconds",
                       {{"total", s.total_s},
                        {"startup", s.startup_s},
                        {"build", s.build_s},
                        {"run", s.run_s},
                        {"verify", s.verify_s},
                        {"search", s.search_s},
                        {"store", s.store_s}}},
                      {"best_gflops_by_evaluation", s.best_gflops_by_evaluation}};
  if (s.best) {
    const auto ratio = [&](const std::optional<MeasurementRecord>& r) -> nlohmann::json {
      const bool timed =
          r && (r->result.status == Status::kOk || r->result.status == Status::kSlowerEarlyStop);
      if (!timed || r->result.median_ms <= 0) return nullptr;
      return r->result.median_ms / s.best->result.median_ms;
    };
    j["speedup"] = {{"default_tiled", ratio(s.default_tiled)},
                    {"default_direct", ratio(s.default_direct)},
                    {"library_default", ratio(s.library_default)},
                    {"naive", ratio(s.naive)},
                    {"classic", ratio(s.classic)}};
  }
  return j;
}

void print_summary(const TuneSummary& s, const std::string& db) {
  std::printf("Tuned %s: %s (session %lld)\n", describe(s.problem).c_str(), s.outcome.c_str(),
              static_cast<long long>(s.session_id));
  if (!s.best) {
    std::printf("No configuration completed correctly.\n");
  } else {
    const Measurement& b = s.best->result;
    std::printf("Best: %s [%s]\n", s.best->kernel.c_str(), s.best->config.c_str());
    std::printf("  whole routine %.3f ms = %.1f GFLOPS; kernel alone %.3f ms = %.1f GFLOPS%s\n",
                b.median_ms, b.gflops, b.kernel_median_ms, b.kernel_gflops,
                b.kernel_wall_clock
                    ? " (by wall clock around a lone run: this device's event timestamps are "
                      "unusable)"
                    : "");
    const auto line = [&](const char* what, const std::optional<MeasurementRecord>& r) {
      if (!r) return;
      // A reference stopped early was still timed (at least once).
      if ((r->result.status == Status::kOk || r->result.status == Status::kSlowerEarlyStop) &&
          r->result.median_ms > 0) {
        std::printf("  %5.2fx faster than %s (%.1f GFLOPS)\n", r->result.median_ms / b.median_ms,
                    what, r->result.gflops);
      } else {
        std::printf("  %s: %s\n", what, to_string(r->result.status));
      }
    };
    line("the default tiled configuration", s.default_tiled);
    line("the default direct configuration", s.default_direct);
    line("the library's default for this device", s.library_default);
    line("the naive kernel", s.naive);
    line("the classic 16x16 kernel", s.classic);
  }
  std::string statuses;
  for (const auto& [st, n] : s.by_status) {
    statuses += (statuses.empty() ? "" : ", ") + std::to_string(n) + " " + to_string(st);
  }
  std::printf("Evaluations: %zu measured, %zu reused from the database%s%s; worker restarts: %zu\n",
              s.evaluations, s.reused, statuses.empty() ? "" : ": ", statuses.c_str(),
              s.worker_restarts);
  if (s.confirm_rounds > 0) {
    std::printf(
        "Confirmed: %zu finalists measured again side by side in %zu rounds; the best is "
        "the one with the fastest median round\n",
        s.confirmed, s.confirm_rounds);
  }
  std::printf(
      "Time: %.1f s total; building %.1f s, running %.1f s, verifying %.1f s, searching %.2f s, "
      "storing %.2f s (defaults, baselines and start-up %.1f s)\n",
      s.total_s, s.build_s, s.run_s, s.verify_s, s.search_s, s.store_s, s.startup_s);
  std::printf("Stored in %s\n", sql::redact_url(db).c_str());
}

// Progress: a bar on a terminal, log lines otherwise, nothing with -q.
struct ProgressPrinter {
  bool tty = isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
  bool quiet = false;
  bool drawn = false;
  std::string label;  // "[index] " when several devices print at once (log lines, no bar)
  void operator()(const TuneProgress& p) {
    if (quiet) return;
    if (!tty) {
      spdlog::info("{}{}/{} {:.0f}s best {:.1f} GFLOPS, {} failed: {}", label, p.done, p.budget,
                   p.elapsed_s, p.best_gflops, p.failed, p.last);
      return;
    }
    const double frac_budget = p.budget ? double(p.done) / double(p.budget) : 0.0;
    const double frac_time = p.time_limit_s > 0 ? p.elapsed_s / p.time_limit_s : 0.0;
    const double frac = std::min(1.0, std::max(frac_budget, frac_time));
    const int width = 30;
    const int fill = int(frac * width);
    const double eta = frac > 0 ? p.elapsed_s * (1.0 - frac) / frac : 0.0;
    std::fprintf(stderr,
                 "\r[%s%s] %zu/%zu  %.0fs elapsed, ETA %.0fs  best %.1f GFLOPS  %zu failed ",
                 std::string(fill, '#').c_str(), std::string(width - fill, '.').c_str(), p.done,
                 p.budget, p.elapsed_s, eta, p.best_gflops, p.failed);
    std::fflush(stderr);
    drawn = true;
  }
  void finish() {
    if (drawn) std::fprintf(stderr, "\n");
  }
};

// One tuning session on one device with its own worker process and scratch directory.
TuneSummary tune_device(const GlobalOptions& g, const Device& device, Store& store,
                        const TuneRequest& req, ProgressPrinter& printer,
                        std::size_t parallel_builds) {
  ScratchDir scratch;
  TuneEnvironment env;
  env.worker_argv = {self_exe(), "worker"};
  if (g.quiet) env.worker_argv.insert(env.worker_argv.begin() + 1, "-q");
  env.kernels_dir = g.kernels_dir;
  env.program_dir = ProgramCache::default_disk_dir();
  env.scratch_dir = scratch.path;
  env.parallel_builds = parallel_builds;
  return tune(
      device, store, req, env, [&](const TuneProgress& p) { printer(p); }, g_stop);
}

// `--device all`: every device that can run the problem, each with its own worker and its own
// connection to the one store. Devices of one hardware group (hardware_group(): all CPU devices
// share the host's cores) are tuned one after another, so that they never disturb each other's
// timings; the groups run at the same time.
int cmd_tune_all(const GlobalOptions& g, const std::vector<Device>& devices,
                 const std::string& platform, const TuneRequest& req, const TuneOptions& t,
                 const std::string& db) {
  validate(req.problem);
  std::map<std::string, std::vector<const Device*>> groups;
  for (const Device* d : select_all_devices(devices, platform)) {
    if (!d->info.supports(req.problem.precision)) {
      spdlog::warn("skipping [{}] {}: no fp{} support", d->info.index, d->info.name,
                   to_string(req.problem.precision));
      continue;
    }
    try {
      check_fits(req.problem, d->info);
    } catch (const Error& e) {
      spdlog::warn("skipping [{}] {}: {}", d->info.index, d->info.name, e.what());
      continue;
    }
    groups[hardware_group(*d)].push_back(d);
  }
  if (groups.empty()) throw NoDeviceError("no OpenCL device can run " + describe(req.problem));
  // Fails early for a bad --db, and creates or migrates the schema before the threads start.
  Store(db).upsert_device(groups.begin()->second.front()->info);
  for (const auto& [group, members] : groups) {
    std::string names;
    for (const Device* d : members) names += " [" + std::to_string(d->info.index) + "]";
    spdlog::info("tuning {} on group {} ({}):{}", describe(req.problem), group,
                 members.size() > 1 ? "one after another" : "alone", names);
  }
  const std::size_t builds =
      std::max<std::size_t>(1, std::max(1u, std::thread::hardware_concurrency()) / groups.size());
  struct Outcome {
    const Device* device;
    std::optional<TuneSummary> summary;
    std::string error;
  };
  std::vector<std::vector<Outcome>> outcomes(groups.size());
  std::vector<std::thread> threads;
  signal(SIGINT, on_sigint);
  std::size_t gi = 0;
  for (const auto& entry : groups) {
    threads.emplace_back([&, members = entry.second, slot = &outcomes[gi++]] {
      for (const Device* d : members) {
        Outcome o{d, std::nullopt, ""};
        if (!g_stop) {
          try {
            Store store(db);  // a connection per thread
            ProgressPrinter printer;
            printer.quiet = g.quiet;
            printer.tty = false;  // one bar cannot show several devices
            printer.label = "[" + std::to_string(d->info.index) + "] ";
            o.summary = tune_device(g, *d, store, req, printer, builds);
          } catch (const std::exception& e) {
            o.error = e.what();
          }
        } else {
          o.error = "not started: interrupted";
        }
        slot->push_back(std::move(o));
      }
    });
  }
  for (auto& th : threads) th.join();
  signal(SIGINT, SIG_DFL);
  int rc = kExitOk;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& group : outcomes) {
    for (const auto& o : group) {
      const DeviceInfo& d = o.device->info;
      if (!o.summary) {
        spdlog::error("[{}] {}: {}", d.index, d.name, o.error);
        if (rc == kExitOk) rc = kExitFailure;
        if (t.json)
          out.push_back({{"device", {{"index", d.index}, {"name", d.name}, {"key", d.key}}},
                         {"error", o.error}});
        continue;
      }
      if (o.summary->outcome == "interrupted") rc = kExitInterrupted;
      if (t.json) {
        out.push_back(summary_json(*o.summary, d));
      } else {
        std::printf("== [%zu] %s ==\n", d.index, d.name.c_str());
        print_summary(*o.summary, db);
      }
    }
  }
  if (t.json) std::cout << out.dump(2) << "\n";
  return g_stop ? kExitInterrupted : rc;
}

int cmd_tune(const GlobalOptions& g, const DeviceOptions& dopt, const ProblemOptions& popt,
             const TuneOptions& t, const std::string& command_line) {
  TuneRequest req;
  req.problem = make_problem(popt);
  if (t.kernel == "all") {
    req.kernels = {KernelKind::kTiled, KernelKind::kDirect};
  } else if (t.kernel == "tiled" || t.kernel == "direct") {
    req.kernels = {*parse_kernel_kind(t.kernel)};
  } else {
    throw UsageError("unknown kernel '" + t.kernel + "' (tiled, direct or all)");
  }
  req.strategy = t.strategy.empty() ? default_strategy() : t.strategy;
  const auto& names = strategy_names();
  if (std::find(names.begin(), names.end(), req.strategy) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw UsageError("unknown strategy '" + req.strategy + "' (" + known + ")");
  }
  req.space = t.space == "quick" ? SpaceSize::kQuick : SpaceSize::kFull;
  req.budget = t.budget;
  req.time_limit_s = t.time_limit == "none" ? 0.0 : parse_duration(t.time_limit);
  req.seed = t.seed;
  req.fresh = t.fresh;
  req.baselines = !t.no_baselines;
  req.finalists = t.finalists;
  req.confirm_rounds = t.confirm_rounds;
  req.command_line = command_line;
  const auto sources = load_sources(g);  // checks --kernels-dir before any work
  const auto devices = list_devices();
  const std::string db = database_path(t.db);
  if (dopt.device == "all") return cmd_tune_all(g, devices, dopt.platform, req, t, db);
  const Device& device = select_device(devices, dopt.device, dopt.platform);
  check_fits(req.problem, device.info);
  validate(req.problem);
  if (!device.info.supports(req.problem.precision)) {
    throw NoDeviceError("device '" + device.info.name + "' has no fp" +
                        to_string(req.problem.precision) + " support");
  }
  Store store(db);
  spdlog::info("tuning {} on [{}] {} with '{}', budget {} evaluations, time limit {}",
               describe(req.problem), device.info.index, device.info.name, req.strategy, req.budget,
               t.time_limit);
  ProgressPrinter printer;
  printer.quiet = g.quiet;
  signal(SIGINT, on_sigint);
  const TuneSummary summary = tune_device(g, device, store, req, printer,
                                          std::max(1u, std::thread::hardware_concurrency()));
  signal(SIGINT, SIG_DFL);
  printer.finish();
  if (t.json) {
    std::cout << summary_json(summary, device.info).dump(2) << "\n";
  } else {
    print_summary(summary, db);
  }
  return summary.outcome == "interrupted" ? kExitInterrupted : kExitOk;
}

struct SimulateOptions {
  std::string strategy = "all", db, device, kernel = "tiled";
  std::size_t budget = 100, seeds = 20;
  ProblemOptions problem;
  bool json = false;
};

int cmd_simulate(const SimulateOptions& o) {
  const auto kind = parse_kernel_kind(o.kernel);
  if (!kind || (*kind != KernelKind::kTiled && *kind != KernelKind::kDirect)) {
    throw UsageError("--kernel must be tiled or direct");
  }
  std::vector<std::string> strategies;
  if (o.strategy == "all") {
    strategies = strategy_names();
  } else {
    strategies = {o.strategy};
  }
  Store store(existing_database_path(o.db), Store::Access::kReadOnly);
  const DeviceInfo device = find_stored_device(store, o.device);
  GemmProblem problem;
  if (o.problem.given()) {
    problem = make_problem(o.problem);
  } else {  // the problem with the most measurements of this kernel
    auto q = store.db().prepare(
        "SELECT m.m, m.n, m.k, m.precision, m.layout, m.trans_a, m.trans_b FROM measurements m "
        "JOIN devices d ON d.id = m.device_id WHERE d.key = ? AND m.kernel = ? "
        "GROUP BY m.m, m.n, m.k, m.precision, m.layout, m.trans_a, m.trans_b "
        "ORDER BY COUNT(*) DESC LIMIT 1");
    q.bind(1, device.key).bind(2, o.kernel);
    if (!q.step()) throw UsageError("no " + o.kernel + " measurements stored for " + device.name);
    problem.m = std::size_t(q.integer(0)), problem.n = std::size_t(q.integer(1)),
    problem.k = std::size_t(q.integer(2));
    problem.precision = static_cast<Precision>(q.integer(3));
    problem.layout = q.text(4) == "col" ? Layout::kColMajor : Layout::kRowMajor;
    problem.trans_a = q.integer(5) != 0, problem.trans_b = q.integer(6) != 0;
  }
  // The replayed space is what was recorded: one point per distinct configuration.
  const auto [space, times] =
      replay_table(*kind, store.measurements(device.key, problem, o.kernel));
  if (space.size() < 2)
    throw UsageError("too few recorded configurations to replay for " + describe(problem));
  SimulationOptions so;
  so.budget = o.budget;
  so.seeds = o.seeds;
  nlohmann::json out = nlohmann::json::array();
  if (!o.json) {
    std::printf("Replaying %zu recorded %s configurations of %s on %s, budget %zu, %zu seeds\n",
                space.size(), o.kernel.c_str(), describe(problem).c_str(), device.name.c_str(),
                o.budget, o.seeds);
    std::printf("%-12s %28s %10s\n", "strategy", "median evals to within 5 %", "reached");
  }
  for (const auto& name : strategies) {
    const SimulationResult r = simulate(space, times, name, so);
    if (o.json) {
      out.push_back({{"strategy", name},
                     {"median_evaluations", r.median},
                     {"reached", r.reached},
                     {"seeds", r.runs.size()},
                     {"budget", r.budget},
                     {"best_ms", r.best_time}});
    } else {
      std::printf("%-12s %28.1f %7zu/%zu\n", name.c_str(), r.median, r.reached, r.runs.size());
    }
  }
  if (o.json) std::cout << out.dump(2) << "\n";
  return kExitOk;
}

struct BestOptions {
  std::string kernel, db;
  bool json = false;
};

int cmd_best(const BestOptions& o, const DeviceOptions& dopt, const ProblemOptions& popt) {
  const GemmProblem problem = make_problem(popt);
  Store store(existing_database_path(o.db), Store::Access::kReadOnly);
  // The device may be absent from this machine: resolve it among the stored ones first.
  DeviceInfo device;
  try {
    device = select_device(list_devices(), dopt.device, dopt.platform).info;
  } catch (const NoDeviceError&) {
    device = find_stored_device(store, dopt.device);
  }
  const auto b = store.best(device.key, problem, o.kernel);
  if (!b) {
    throw UsageError("no stored result for " + describe(problem) + " on " + device.name +
                     (o.kernel.empty() ? "" : " with the " + o.kernel + " kernel"));
  }
  std::string command_line, started;
  for (const auto& s : store.sessions()) {
    if (s.id == b->session_id) command_line = s.command_line, started = s.started_at;
  }
  if (o.json) {
    std::cout << nlohmann::json{{"device", device.name},
                                {"device_key", device.key},
                                {"problem", to_json(problem)},
                                {"kernel", b->kernel},
                                {"config", b->config},
                                {"median_ms", b->median_ms},
                                {"gflops", b->gflops},
                                {"kernel_gflops", b->kernel_gflops},
                                {"measurement_id", b->measurement_id},
                                {"session_id", b->session_id},
                                {"session_command_line", command_line},
                                {"updated_at", b->updated_at}}
                     .dump(2)
              << "\n";
    return kExitOk;
  }
  std::printf("%s on %s: %s [%s]\n", describe(problem).c_str(), device.name.c_str(),
              b->kernel.c_str(), b->config.c_str());
  std::printf("  %.3f ms = %.1f GFLOPS (kernel alone %.1f GFLOPS)\n", b->median_ms, b->gflops,
              b->kernel_gflops);
  std::printf("  measurement %lld of session %lld (%s, started %s), recorded %s\n",
              static_cast<long long>(b->measurement_id), static_cast<long long>(b->session_id),
              command_line.c_str(), started.c_str(), b->updated_at.c_str());
  return kExitOk;
}

int cmd_history(const std::string& db, bool json) {
  Store store(existing_database_path(db), Store::Access::kReadOnly);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : store.sessions()) {
    auto q = store.db().prepare("SELECT COUNT(*) FROM measurements WHERE session_id = ?");
    q.bind(1, s.id);
    q.step();
    const auto count = q.integer(0);
    if (json) {
      out.push_back({{"id", s.id},
                     {"device_key", s.device_key},
                     {"problem", to_json(s.problem)},
                     {"strategy", s.strategy},
                     {"kernels", s.kernels},
                     {"seed", s.seed},
                     {"budget", s.budget},
                     {"started_at", s.started_at},
                     {"ended_at", s.ended_at},
                     {"outcome", s.outcome},
                     {"measurements", count},
                     {"command_line", s.command_line}});
    } else {
      std::printf("%4lld  %s  %-11s  %-24s  %-9s %4lld measurements  %s\n",
                  static_cast<long long>(s.id), s.started_at.c_str(), s.outcome.c_str(),
                  describe(s.problem).c_str(), s.strategy.c_str(), static_cast<long long>(count),
                  s.command_line.c_str());
    }
  }
  if (json) std::cout << out.dump(2) << "\n";
  return kExitOk;
}

struct BenchCliOptions {
  std::string sizes = "256,512,1024,2048", db;
  std::vector<std::string> clblast_tuned;
  int precision = 32;
  bool json = false;
};

int cmd_bench(const DeviceOptions& dopt, const BenchCliOptions& o) {
  BenchOptions bo;
  bo.precision = static_cast<Precision>(o.precision);
  std::size_t start = 0;
  while (start <= o.sizes.size()) {
    const std::size_t comma = std::min(o.sizes.find(',', start), o.sizes.size());
    bo.sizes.push_back(cli::parse_size("--n", o.sizes.substr(start, comma - start)));
    start = comma + 1;
  }
  // The given CLBlast tuner results for this precision, fastest first.
  std::vector<std::pair<double, BenchOptions::ClblastParameters>> clb;
  for (const auto& file : o.clblast_tuned) {
    ClblastTunerBest t;
    try {
      t = read_clblast_tuner_best(read_exchange_file(file), file);
    } catch (const UsageError& e) {
      throw UsageError("--clblast-tuned '" + file + "': " + e.what());
    }
    if (t.precision != o.precision) continue;
    clb.push_back({t.time_ms, {std::filesystem::path(file).filename().string(), t.parameters}});
  }
  if (!o.clblast_tuned.empty() && clb.empty()) {
    throw UsageError("--clblast-tuned: no file holds fp" + std::to_string(o.precision) +
                     " results");
  }
  std::stable_sort(clb.begin(), clb.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& t : clb) bo.clblast_tuned.push_back(std::move(t.second));
  // The device, its precision and every size are checked before the database is opened: a
  // refused command creates nothing.
  const auto devices = list_devices();
  const Device& device = select_device(devices, dopt.device, dopt.platform);
  check_bench_options(device, bo);
  const std::string db = database_path(o.db);
  Store store(db);
  const ParameterLookup lookup(db);
  spdlog::info("bench on [{}] {}: fp{}, CLBlast {}, host BLAS {}", device.info.index,
               device.info.name, o.precision, have_clblast() ? "yes" : "no",
               have_host_blas() ? "yes" : "no");
  if (const std::string w = host_blas_warning(); !w.empty() && device.info.is_cpu()) {
    spdlog::warn("host BLAS: {}", w);
  }
  const auto rows = run_bench(device, store, lookup, bo, [&](const BenchRow& r) {
    spdlog::info("{} {}: {} {:.1f} GFLOPS", r.problem.n, r.subject, r.status, r.gflops);
  });
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows) {
      out.push_back({{"n", r.problem.n},
                     {"precision", o.precision},
                     {"subject", r.subject},
                     {"kernel", r.kernel},
                     {"config", r.config},
                     {"status", r.status},
                     {"note", r.note},
                     {"median_ms", r.median_ms},
                     {"min_ms", r.min_ms},
                     {"max_ms", r.max_ms},
                     {"gflops", r.gflops},
                     {"kernel_median_ms", r.kernel_median_ms},
                     {"kernel_gflops", r.kernel_gflops},
                     {"samples_ms", r.samples_ms}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf(
      "Side by side on %s, fp%d (whole routine: wall clock per call; kernel: its event, or wall "
      "clock around a lone run where events are unusable)\n",
      device.info.name.c_str(), o.precision);
  std::printf("%6s  %-13s %9s  %-19s %8s %12s  %s\n", "n", "subject", "GFLOPS", "min-max",
              "vs tuned", "kernel only", "note");
  double tuned = 0;
  for (const auto& r : rows) {
    if (r.subject == "tuned") tuned = r.status == "Ok" ? r.gflops : 0;
    if (r.status != "Ok") {
      std::printf("%6zu  %-13s %9s  %-19s %8s %12s  %s\n", r.problem.n, r.subject.c_str(),
                  r.status.c_str(), "", "", "", r.note.c_str());
      continue;
    }
    char range[40], ratio[16] = "", kernel[24] = "";
    std::snprintf(range, sizeof range, "%.1f-%.1f", r.problem.flops() / (r.max_ms * 1e6),
                  r.problem.flops() / (r.min_ms * 1e6));
    if (tuned > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", r.gflops / tuned);
    if (r.kernel_gflops > 0) std::snprintf(kernel, sizeof kernel, "%.1f", r.kernel_gflops);
    std::printf("%6zu  %-13s %9.1f  %-19s %8s %12s  %s\n", r.problem.n, r.subject.c_str(), r.gflops,
                range, ratio, kernel, r.note.c_str());
  }
  std::printf("Stored in %s\n", sql::redact_url(db).c_str());
  return kExitOk;
}

int cmd_roofline(const DeviceOptions& dopt, int precision, const std::string& db_opt, bool json) {
  const std::string db = database_path(db_opt);
  Store store(db);
  const auto devices = list_devices();
  const Device& device = select_device(devices, dopt.device, dopt.platform);
  const Roofline r = measure_roofline(device, store, static_cast<Precision>(precision));
  if (json) {
    std::cout << nlohmann::json{{"device", device.info.name},
                                {"precision", precision},
                                {"peak_gflops", r.peak_gflops},
                                {"bandwidth_gbs", r.bandwidth_gbs},
                                {"timing", r.timing}}
                     .dump(2)
              << "\n";
  } else {
    std::printf(
        "%s, fp%d: peak %.1f GFLOPS, memory bandwidth %.1f GB/s (ridge at %.1f FLOP/byte); "
        "timed by %s\n",
        device.info.name.c_str(), precision, r.peak_gflops, r.bandwidth_gbs,
        r.peak_gflops / r.bandwidth_gbs, r.timing.c_str());
  }
  return kExitOk;
}

void setup_logging(const GlobalOptions& g) {
  auto logger = spdlog::stderr_color_mt("mmtune");
  logger->set_pattern("%^%l%$: %v");
  logger->set_level(g.quiet          ? spdlog::level::err
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
      "Exit codes: 0 success, 1 failure, 2 bad usage or input (including a damaged database),\n"
      "3 no usable OpenCL device, 4 the database cannot be written (disk full, I/O error),\n"
      "130 interrupted.");
  app.require_subcommand(0, 1);
  app.fallthrough();
  GlobalOptions g;
  app.add_flag("-v,--verbose", g.verbose, "more log output (repeat for more)");
  app.add_flag("-q,--quiet", g.quiet, "only errors on stderr");
  app.add_option("--kernels-dir", g.kernels_dir,
                 "read kernels/*.cl from this directory instead of the embedded copies");

  bool devices_json = false;
  auto* devices = app.add_subcommand("devices", "list OpenCL platforms and devices");
  devices->add_flag("--json", devices_json, "print JSON");

  std::string space_kernel = "tiled", space_size = "full", space_device, space_platform;
  int space_precision = 32;
  bool space_json = false;
  auto* space = app.add_subcommand(
      "space", "describe a kernel's parameter space and count its configurations");
  space->add_option("--kernel", space_kernel, "tiled, direct, naive or classic")
      ->capture_default_str();
  space->add_option("--space", space_size, "full or quick")
      ->check(CLI::IsMember({"full", "quick"}))
      ->capture_default_str();
  space->add_option("-d,--device", space_device, "also apply this device's limits");
  space->add_option("--platform", space_platform, "narrow the device choice to one platform");
  space->add_option("--precision", space_precision, "bits: 16, 32 or 64")
      ->check(CLI::IsMember({16, 32, 64}));
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
  run->add_option("--config", run_config,
                  "parameters, e.g. \"MWG=64 NWG=64 ...\" (default: the kernel's defaults)");
  run->add_option("--seed", run_seed, "seed of the random operands")
      ->check(cli::non_negative_integer());
  run->add_flag("--json", run_json, "print JSON");

  DeviceOptions tune_dev;
  ProblemOptions tune_prob;
  TuneOptions tune_opt;
  auto* tune = app.add_subcommand("tune", "tune a GEMM problem on a device (the default command)");
  add_device_options(tune, tune_dev);
  add_problem_options(tune, tune_prob);
  tune->add_option("--kernel", tune_opt.kernel, "tiled, direct or all")->capture_default_str();
  tune->add_option("--space", tune_opt.space, "full or quick")
      ->check(CLI::IsMember({"full", "quick"}))
      ->capture_default_str();
  tune->add_option("--strategy", tune_opt.strategy,
                   "search strategy: exhaustive, random, annealing, genetic or model (default)");
  tune->add_option("--budget", tune_opt.budget, "maximum evaluations")
      ->check(cli::positive_integer())
      ->capture_default_str();
  tune->add_option("--time-limit", tune_opt.time_limit,
                   "maximum tuning time, e.g. 90s, 10m, or none")
      ->capture_default_str();
  tune->add_option("--seed", tune_opt.seed, "seed of the search and the operands")
      ->check(cli::non_negative_integer());
  tune->add_option("--db", tune_opt.db,
                   "tuning database (default $MMTUNE_DB or $XDG_DATA_HOME/mmtune/tuning.db)");
  tune->add_option("--finalists", tune_opt.finalists,
                   "fastest configurations measured again side by side after the search, the "
                   "best chosen by their median round (0 or 1: none)")
      ->check(cli::non_negative_integer())
      ->capture_default_str();
  tune->add_option("--confirm-rounds", tune_opt.confirm_rounds,
                   "rounds of that confirmation (0: none)")
      ->check(cli::non_negative_integer())
      ->capture_default_str();
  tune->add_flag("--fresh", tune_opt.fresh, "measure again what the database already holds");
  tune->add_flag("--no-baselines", tune_opt.no_baselines,
                 "skip the naive and classic reference kernels (`mmtune bench` measures them)");
  tune->add_flag("--json", tune_opt.json, "print the summary as JSON");

  auto* worker = app.add_subcommand("worker", "internal: the supervised evaluation process");
  worker->group("");  // hidden from --help

  SimulateOptions sim;
  auto* simulate = app.add_subcommand(
      "simulate", "replay recorded measurements to compare search strategies (no device needed)");
  simulate->add_option("--strategy", sim.strategy, "a strategy, or all")->capture_default_str();
  simulate->add_option("--budget", sim.budget, "evaluations per run")
      ->check(cli::positive_integer())
      ->capture_default_str();
  simulate->add_option("--seeds", sim.seeds, "runs per strategy")
      ->check(cli::positive_integer())
      ->capture_default_str();
  simulate->add_option("--db", sim.db, "tuning database");
  simulate->add_option("-d,--device", sim.device, "stored device: key or part of its name");
  simulate->add_option("--kernel", sim.kernel, "tiled or direct")->capture_default_str();
  add_problem_options(simulate, sim.problem);
  simulate->add_flag("--json", sim.json, "print JSON");

  BestOptions best_opt;
  DeviceOptions best_dev;
  ProblemOptions best_prob;
  auto* best = app.add_subcommand("best", "print the stored best configuration for a problem");
  add_device_options(best, best_dev);
  add_problem_options(best, best_prob);
  best->add_option("--kernel", best_opt.kernel,
                   "tiled, direct, naive, classic (default: the routine's pick)");
  best->add_option("--db", best_opt.db, "tuning database");
  best->add_flag("--json", best_opt.json, "print JSON");

  DeviceOptions bench_dev;
  BenchCliOptions bench_opt;
  auto* bench = app.add_subcommand(
      "bench",
      "benchmark the tuned routine against defaults, baselines, CLBlast and the host BLAS");
  add_device_options(bench, bench_dev);
  bench->add_option("--n", bench_opt.sizes, "square sizes, comma-separated")->capture_default_str();
  bench->add_option("--precision", bench_opt.precision, "bits: 16, 32 or 64")
      ->check(CLI::IsMember({16, 32, 64}))
      ->capture_default_str();
  bench->add_option("--db", bench_opt.db, "tuning database (tuned parameters; rows are stored)");
  bench->add_flag("--json", bench_opt.json, "print JSON");
  bench->add_option("--clblast-tuned", bench_opt.clblast_tuned,
                    "clblast_tuner_xgemm JSON files: also run CLBlast with the fastest of their "
                    "best parameters (clblast::OverrideParameters)");

  DeviceOptions roof_dev;
  int roof_precision = 32;
  std::string roof_db;
  bool roof_json = false;
  auto* roofline =
      app.add_subcommand("roofline", "measure the device's peak GFLOPS and memory bandwidth");
  add_device_options(roofline, roof_dev);
  roofline->add_option("--precision", roof_precision, "bits: 16, 32 or 64")
      ->check(CLI::IsMember({16, 32, 64}))
      ->capture_default_str();
  roofline->add_option("--db", roof_db, "tuning database (the roofs are stored)");
  roofline->add_flag("--json", roof_json, "print JSON");

  std::string history_db;
  bool history_json = false;
  auto* history = app.add_subcommand("history", "list tuning sessions");
  history->add_option("--db", history_db, "tuning database");
  history->add_flag("--json", history_json, "print JSON");

  mmtune::cli::ExchangeCommands exchange;
  exchange.add(app);
  mmtune::cli::ReportCommand report;
  report.add(app);

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
      return cmd_space(space_kernel, space_size, space_device, space_platform, space_precision,
                       space_json);
    }
    if (run->parsed())
      return cmd_run(g, run_dev, run_prob, run_kernel, run_config, run_seed, run_json);
    if (worker->parsed()) {
      // -q: the OpenCL compiler's own diagnostics ("2 errors generated.") would reach the
      // terminal past mmtune's logging; build logs and faults come back through the protocol.
      if (g.quiet) {
        if (const int null_fd = open("/dev/null", O_WRONLY); null_fd >= 0) {
          dup2(null_fd, STDERR_FILENO);
          close(null_fd);
        }
      }
      return run_worker(std::cin, std::cout);
    }
    if (simulate->parsed()) return cmd_simulate(sim);
    if (best->parsed()) return cmd_best(best_opt, best_dev, best_prob);
    if (history->parsed()) return cmd_history(history_db, history_json);
    if (bench->parsed()) return cmd_bench(bench_dev, bench_opt);
    if (roofline->parsed()) return cmd_roofline(roof_dev, roof_precision, roof_db, roof_json);
    if (const int rc = exchange.run(); rc >= 0) return rc;
    if (const int rc = report.run(); rc >= 0) return rc;
    std::string command_line = "mmtune";
    // Recorded with the session: a password in a connection URI stays out of the database.
    for (int i = 1; i < argc; ++i) command_line += " " + sql::redact_url(argv[i]);
    return cmd_tune(g, tune_dev, tune_prob, tune_opt, command_line);
  } catch (const Error& e) {
    spdlog::error("{}", e.what());
    return e.exit_code();
  } catch (const sql::Error& e) {  // a database failure no command translated itself
    try {
      throw_database_error("", e);
    } catch (const Error& x) {
      spdlog::error("{}", x.what());
      return x.exit_code();
    }
  } catch (const cl::Error& e) {
    spdlog::error("OpenCL call {} failed with error {}", e.what(), e.err());
    return kExitFailure;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitFailure;
  }
}
