#include "cmd_tune.hpp"

#include "cmd_spec.hpp"
#include "stop_signals.hpp"
#include "tune_summary.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <thread>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "core/cpu_load.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "opencl/kernel_source.hpp"
#include "opencl/program_cache.hpp"
#include "search/strategy.hpp"
#include "store/store.hpp"
#include "tune/fleet.hpp"
#include "tune/tuner.hpp"
#include "tune/worker.hpp"

namespace mmtune::cli {
namespace {

// Each finalist is measured in every round of the confirmation, which no search budget bounds:
// beyond these it is a second search, not a confirmation.
constexpr std::uint64_t kMaxFinalists = 1000, kMaxConfirmRounds = 1000;

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

// Progress: a bar on a terminal, log lines otherwise, nothing with -q.
struct ProgressPrinter {
  bool tty = isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
  bool quiet = false;
  bool drawn = false;
  std::string label;  // "[index] " when several devices print at once (log lines, no bar)
  void operator()(const TuneProgress& p) {
    if (!p.warning.empty()) {
      if (drawn) std::fprintf(stderr, "\n");  // below the bar, which is drawn again next
      spdlog::warn("{}{}", label, p.warning);
    }
    if (quiet) return;
    if (!tty) {
      spdlog::info("{}{}/{} searched ({} measured) {:.0f}s best {} GFLOPS, {} failed: {}", label,
                   p.done, p.budget, p.measured, p.elapsed_s, rate_text(p.best_gflops), p.failed,
                   p.last);
      return;
    }
    const double frac_budget = p.budget ? double(p.done) / double(p.budget) : 0.0;
    const double frac_time = p.time_limit_s > 0 ? p.elapsed_s / p.time_limit_s : 0.0;
    const double frac = std::min(1.0, std::max(frac_budget, frac_time));
    const int width = 30;
    const int fill = int(frac * width);
    const double eta = frac > 0 ? p.elapsed_s * (1.0 - frac) / frac : 0.0;
    std::fprintf(stderr,
                 "\r[%s%s] %zu/%zu searched (%zu measured)  %.0fs elapsed, ETA %.0fs  best %.1f "
                 "GFLOPS  %zu failed ",
                 std::string(fill, '#').c_str(), std::string(width - fill, '.').c_str(), p.done,
                 p.budget, p.measured, p.elapsed_s, eta, p.best_gflops, p.failed);
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
      device, store, req, env, [&](const TuneProgress& p) { printer(p); }, stop_requested());
}

// `--device all` (tune/fleet.hpp): each device with its own worker and store connection, the
// hardware groups at the same time.
int cmd_tune_all(const GlobalOptions& g, const std::vector<Device>& devices,
                 const std::string& platform, const TuneRequest& req, const TuneOptions& t,
                 const std::string& db) {
  const FleetPlan plan = plan_fleet(select_all_devices(devices, platform), req.problem);
  for (const auto& [d, why] : plan.skipped) {
    spdlog::warn("skipping [{}] {}: {}", d->info.index, d->info.name, why);
  }
  if (plan.groups.empty()) throw NoDeviceError("no OpenCL device can run " + describe(req.problem));
  for (const auto& [group, members] : plan.groups) {
    std::string names;
    for (const Device* d : members) names += " [" + std::to_string(d->info.index) + "]";
    spdlog::info("tuning {} on group {} ({}{}):{}", describe(req.problem), group,
                 members.size() > 1 ? "one after another" : "alone",
                 members.size() > 1 && req.time_limit_s > 0 ? ", sharing the time limit" : "",
                 names);
  }
  const auto start = std::chrono::steady_clock::now();
  const auto results = [&] {
    const StopSignals stop_signals(g);
    return tune_fleet(plan, db, stop_requested(), [&](const Device& d, Store& store) {
      ProgressPrinter printer;
      printer.quiet = g.quiet;
      printer.tty = false;  // one bar cannot show several devices
      printer.label = "[" + std::to_string(d.info.index) + "] ";
      TuneRequest own = req;
      own.time_limit_s = fleet_time_limit(
          plan, d, req.time_limit_s,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      return tune_device(g, d, store, own, printer, plan.parallel_builds());
    });
  }();
  int rc = kExitOk;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& o : results) {
    const DeviceInfo& d = o.device->info;
    if (!o.summary) {
      spdlog::error("[{}] {}: {}", d.index, d.name, o.error);
      // The first failure's own code (4: the database cannot be written), as a single tune's.
      if (rc == kExitOk) rc = o.exit_code > 0 ? o.exit_code : kExitFailure;
      if (t.json) {
        out.push_back({{"device", {{"index", d.index}, {"name", d.name}, {"key", d.key}}},
                       {"error", o.error}});
      }
      continue;
    }
    if (o.summary->outcome == TuneOutcome::kInterrupted) {
      rc = kExitInterrupted;
    } else if (!o.summary->best && rc == kExitOk) {
      rc = kExitFailure;
    }
    if (t.json) {
      out.push_back(summary_json(*o.summary, d));
    } else {
      std::printf("== [%zu] %s ==\n", d.index, d.name.c_str());
      print_summary(*o.summary, db);
    }
  }
  // Every device of the host has its element: one left out says why (it was in the log only).
  for (const auto& [d, why] : plan.skipped) {
    if (t.json) {
      out.push_back(
          {{"device", {{"index", d->info.index}, {"name", d->info.name}, {"key", d->info.key}}},
           {"skipped", why}});
    }
  }
  if (t.json) std::cout << out.dump(2) << "\n";
  return stop_requested() ? kExitInterrupted : rc;
}

int cmd_tune(const GlobalOptions& g, const DeviceOptions& dopt, const ProblemOptions& popt,
             const TuneOptions& t, const std::string& command_line) {
  TuneRequest req;
  req.problem = make_problem(popt);
  req.kernels = searched_kernels(t.kernel);
  if (req.problem.batch > 1 && t.kernel == "all") {
    // A family that does not batch runs the items one launch each: not a candidate.
    std::erase_if(req.kernels, [](const KernelKind& k) { return !k->batches(); });
  }
  req.strategy = t.strategy.empty() ? default_strategy() : t.strategy;
  for (const auto& pair : t.strategy_options) parse_strategy_setting(pair, req.strategy_settings);
  check_strategy_settings(req.strategy, req.strategy_settings);  // before a session is recorded
  req.space = t.space == "quick" ? SpaceSize::kQuick : SpaceSize::kFull;
  req.budget = t.budget;
  req.time_limit_s = t.time_limit == "none" ? 0.0 : parse_duration(t.time_limit);
  req.seed = t.seed;
  req.fresh = t.fresh;
  req.baselines = !t.no_baselines;
  req.drift = !t.no_drift;
  req.finalists = t.finalists;
  req.confirm_rounds = t.confirm_rounds;
  req.command_line = command_line;
  const auto sources = load_sources(g);  // checks --kernels-dir before any work
  // The store keeps results by kernel name: edited kernels' results would be read as the built-in
  // kernels' (reused by later tunes, looked up by programs) in the database everyone shares.
  const std::string db = database_path(t.db);
  const auto shared_db = [&] {
    const std::string shared = database_path("");
    std::error_code ec;
    return db == shared || (db.find("://") == std::string::npos &&
                            std::filesystem::weakly_canonical(db, ec) ==
                                std::filesystem::weakly_canonical(shared, ec));
  };
  if (sources.edited() && shared_db()) {
    throw UsageError("--kernels-dir '" + g.kernels_dir +
                     "' holds edited kernels: name a database of their own with --db, not the "
                     "default one or $MMTUNE_DB (their results are stored under the built-in "
                     "kernels' names)");
  }
  const auto devices = list_devices();
  if (dopt.device == "all") return cmd_tune_all(g, devices, dopt.platform, req, t, db);
  const Device& device = select_device(devices, dopt.device, dopt.platform);
  check_fits(req.problem, device.info);
  validate(req.problem);
  if (!device.info.supports(req.problem.precision)) {
    throw NoDeviceError("device '" + device.info.name + "' has no fp" +
                        to_string(req.problem.precision) + " support");
  }
  Store store(db);
  spdlog::info("tuning {} on [{}] {} with '{}', budget {} evaluations, {}", describe(req.problem),
               device.info.index, device.info.name, req.strategy, req.budget,
               req.time_limit_s > 0
                   ? "done within " + t.time_limit + " (search, then confirmation and baselines)"
                   : std::string("no time limit: the budget decides"));
  ProgressPrinter printer;
  printer.quiet = g.quiet;
  const TuneSummary summary = [&] {
    const StopSignals stop_signals(g);
    return tune_device(g, device, store, req, printer,
                       std::max(1u, std::thread::hardware_concurrency()));
  }();
  printer.finish();
  if (t.json) {
    std::cout << summary_json(summary, device.info).dump(2) << "\n";
  } else {
    print_summary(summary, db);
  }
  if (summary.outcome == TuneOutcome::kInterrupted) return kExitInterrupted;
  return summary.best ? kExitOk : kExitFailure;  // as a spec tune: no correct configuration
}

}  // namespace

void TuneCommands::add(CLI::App& app) {
  tune = app.add_subcommand("tune", "tune a GEMM problem on a device (the default command)");
  add_device_options(tune, tune_dev);
  add_problem_options(tune, tune_prob);
  add_batch_option(tune, tune_prob);
  tune->add_option("--kernel", tune_opt.kernel, "tiled, direct or all")->capture_default_str();
  tune->add_option("--space", tune_opt.space, "full or quick")
      ->check(CLI::IsMember({"full", "quick"}))
      ->capture_default_str();
  tune->add_option("--strategy", tune_opt.strategy, "search strategy: " + describe_strategies());
  tune->add_option(
      "--strategy-option", tune_opt.strategy_options,
      "NAME=VALUE, repeatable: an option of the strategy\n" + describe_strategy_options());
  tune->add_option("--budget", tune_opt.budget,
                   "evaluations the search may spend (the defaults, drift re-timings, the "
                   "confirmation and the baselines come on top)")
      ->check(cli::positive_integer())
      ->capture_default_str();
  tune->add_option(
          "--time-limit", tune_opt.time_limit,
          "maximum tuning time, e.g. 90s, 10m, or none (--device all: of the whole command, "
          "its devices sharing it)")
      ->capture_default_str();
  tune->add_option("--seed", tune_opt.seed,
                   "seed of the search and the operands (proposals come in batches sized by the "
                   "host's cores: a seed repeats a search on hosts with as many)")
      ->check(cli::non_negative_integer());
  tune->add_option("--db", tune_opt.db,
                   "tuning database (default $MMTUNE_DB or $XDG_DATA_HOME/mmtune/tuning.db)");
  tune->add_option("--finalists", tune_opt.finalists,
                   "fastest configurations measured again side by side after the search, the "
                   "best chosen by their median round (0 or 1: none)")
      ->check(cli::integer_at_most(kMaxFinalists))
      ->capture_default_str();
  tune->add_option("--confirm-rounds", tune_opt.confirm_rounds,
                   "rounds of that confirmation (0: none)")
      ->check(cli::integer_at_most(kMaxConfirmRounds))
      ->capture_default_str();
  tune->add_flag("--fresh", tune_opt.fresh, "measure again what the database already holds");
  tune->add_flag("--no-drift", tune_opt.no_drift,
                 "no reference configuration timed again during the search (each configuration "
                 "is measured once; times measured minutes apart are compared as they are)");
  tune->add_flag("--no-baselines", tune_opt.no_baselines,
                 "skip the naive and classic reference kernels (`mmtune bench` measures them)");
  tune->add_flag("--json", tune_opt.json, "print the summary as JSON");
  tune->add_option("--spec", tune_opt.spec,
                   "tune a user's kernel described by this spec file (docs/spec.md)");
  tune->add_option("--size", tune_opt.sizes, "with --spec: the spec's sizes, e.g. 4096,4096,15");

  worker = app.add_subcommand("worker", "internal: the supervised evaluation process");
  worker->group("");  // hidden from --help, completion and the CLI reference
}

int TuneCommands::run(const GlobalOptions& g, const std::string& command_line) const {
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
  if (!tune_opt.spec.empty()) {
    if (!g.kernels_dir.empty()) throw UsageError("--kernels-dir and --spec exclude each other");
    refuse_problem_with_spec(*tune, tune_prob);
    refuse_with_spec(*tune, {"--kernel", "--space", "--no-drift", "--no-baselines"});
    TuneEnvironment env;
    env.worker_argv = {self_exe(), "worker"};
    if (g.quiet) env.worker_argv.insert(env.worker_argv.begin() + 1, "-q");
    env.program_dir = ProgramCache::default_disk_dir();
    const StopSignals stop_signals(g);
    return cmd_tune_spec(tune_opt, tune_dev, env, stop_requested(), command_line);
  }
  if (!tune_opt.sizes.empty()) throw UsageError("--size needs --spec (a GEMM takes --n, --m, --k)");
  return cmd_tune(g, tune_dev, tune_prob, tune_opt, command_line);
}

}  // namespace mmtune::cli
