#include "cmd_store.hpp"

#include "cmd_spec.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>

#include "core/cpu_load.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "exchange/exchange.hpp"
#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/lookup.hpp"
#include "mmtune/problem.hpp"
#include "report/replay_chart.hpp"
#include "report/report_format.hpp"
#include "search/landscape_shape.hpp"
#include "search/simulate.hpp"
#include "search/strategy.hpp"
#include "store/export_rows.hpp"
#include "store/queries.hpp"
#include "store/store.hpp"
#include "tune/replay.hpp"

namespace mmtune::cli {
namespace {

const std::vector<std::size_t> kCurveCheckpoints = {25, 50, 100, 200, 400};

// The shape's target is the replays' (SimulationOptions::tolerance).
void print_landscape_shape(const LandscapeShape& s, double tolerance, const std::string& kernel,
                           const std::string& problem, const std::string& device, bool json) {
  const std::size_t timed = s.points - s.failed;
  const double percent = 100 * tolerance;
  if (json) {
    const nlohmann::json j = {{"kernel", kernel},
                              {"device", device},
                              {"configurations", s.points},
                              {"failed", s.failed},
                              {"best_ms", s.best_time},
                              {"tolerance", tolerance},
                              {"within_target", s.within_target},
                              {"local_minima", s.local_minima},
                              {"minima_in_target", s.minima_in_target},
                              {"descent_to_target", s.descent_to_target}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::printf("Landscape of %zu recorded %s configurations of %s on %s (%zu failed)\n", s.points,
              kernel.c_str(), problem.c_str(), device.c_str(), s.failed);
  std::printf("  within %g %% of the best (%.4g ms): %zu (%.2f %% of the timed)\n", percent,
              s.best_time, s.within_target, 100.0 * double(s.within_target) / double(timed));
  std::printf("  local minima (no neighbour faster): %zu, %zu of them within %g %%\n",
              s.local_minima, s.minima_in_target, percent);
  std::printf(
      "  steepest descent ends within %g %% from %zu of %zu timed configurations (%.1f %%)\n",
      percent, s.descent_to_target, timed, 100.0 * double(s.descent_to_target) / double(timed));
}

int cmd_simulate(const SimulateOptions& o) {
  std::vector<std::string> strategies;
  if (o.strategy == "all") {
    if (!o.strategy_options.empty()) throw UsageError("--strategy-option needs one --strategy");
    strategies = strategy_names();
  } else {
    strategies = {o.strategy};
  }
  if (o.save && !o.curve) throw UsageError("--save needs --curve");
  // The report's replays are searches from nothing; a warm start is another experiment.
  if (o.save && o.told > 0) throw UsageError("--save stores replays without --told");
  if (o.save && o.batch > 1) throw UsageError("--save stores replays asked one at a time");
  if (!(o.told >= 0 && o.told <= 1)) throw UsageError("--told must be within 0 and 1");
  Store store(existing_database_path(o.db),
              o.save ? Store::Access::kReadWrite : Store::Access::kReadOnly);
  const DeviceInfo device = find_stored_device(store, o.device);
  GemmProblem problem;
  if (o.problem.given()) {
    problem = make_problem(o.problem);
  } else {  // the problem with the most measurements of this kernel
    const auto most = rows::most_measured_problem(store, device.key, o.kernel);
    if (!most) {
      throw UsageError("no " + o.kernel + " measurements stored for " + device.name +
                       rows::measured_hint(store, device.key, o.kernel));
    }
    problem = *most;
  }
  // A user's kernel (spec) has sizes, not a GEMM's precision, layout and transpositions.
  const std::string described = report_detail::describe_for(o.kernel, problem);
  // Refused before anything is replayed or written (the report's replays are single GEMMs).
  if (o.save && problem.batch != 1) {
    throw UsageError("replays of a batched problem are not stored: drop --save");
  }
  // The replayed space is what was recorded: one point per distinct configuration.
  const auto records = store.measurements(device.key, problem, o.kernel);
  if (records.empty()) {
    throw UsageError("no " + o.kernel + " measurements stored for " + described + " on " +
                     device.name + rows::measured_hint(store, device.key, o.kernel));
  }
  const Landscape landscape = load_landscape(o.kernel, records);
  const SearchSpace& space = landscape.table.space;
  const auto& times = landscape.table.times;
  SimulationOptions so;
  if (o.landscape) {
    print_landscape_shape(landscape_shape(space, times, so.tolerance), so.tolerance, o.kernel,
                          described, device.name, o.json);
    return kExitOk;
  }
  if (space.size() < 2)
    throw UsageError("too few recorded configurations to replay for " + described);
  for (const auto& pair : o.strategy_options) parse_strategy_setting(pair, so.settings);
  so.budget = o.budget;
  so.seeds = o.seeds;
  so.told = o.told;
  so.batch = o.batch;
  if (o.curve) so.checkpoints = kCurveCheckpoints;
  if (!o.svg.empty() && !o.curve) throw UsageError("--svg needs --curve");
  check_output_writable(o.svg, o.db);
  // Everything that can refuse the replay is checked before the table starts: a refusal prints
  // one line, never half a table.
  if (std::none_of(times.begin(), times.end(), [](const auto& t) { return t.has_value(); })) {
    throw UsageError("no recorded " + o.kernel + " configuration of " + described +
                     " ran successfully: there is no best to search for");
  }
  const std::size_t told_results = told_count(times, so);
  if (o.told > 0 && told_results == 0) {
    char share[32];
    std::snprintf(share, sizeof share, "%.3g", o.told);
    throw UsageError(std::string("--told ") + share +
                     " tells none of the recorded results outside 5 % of the best");
  }
  for (const auto& name : strategies) make_strategy(name, space, {1, o.budget, so.settings});
  // In insertion order: the curve's checkpoints as numbers run (25, 50, ...), not as text.
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  if (!o.json) {
    std::printf("Replaying %zu recorded %s configurations of %s on %s, budget %zu, %zu seeds\n",
                space.size(), o.kernel.c_str(), described.c_str(), device.name.c_str(), o.budget,
                o.seeds);
    if (told_results > 0) {
      std::printf(
          "Each run is first told %zu random recorded results (%.3g %% of those outside 5 %% of "
          "the best); only its own proposals count\n",
          told_results, 100 * o.told);
    }
    if (o.curve) std::printf("%-12s fraction of the optimum after N evaluations\n", "");
    std::printf("%-12s", "strategy");
    for (const auto c : so.checkpoints) std::printf(" %6s", ("N=" + std::to_string(c)).c_str());
    std::printf(" %28s %10s\n", "median evals to within 5 %", "reached");
  }
  std::optional<double> random_expected;
  std::vector<SimulationResult> results;
  for (const auto& name : strategies) {
    const SimulationResult& r = results.emplace_back(simulate(space, times, name, so));
    random_expected = r.random_expected_evaluations;
    if (o.json) {
      nlohmann::ordered_json row = {
          {"strategy", name},
          {"median_evaluations",
           r.median_within_budget() ? nlohmann::json(r.median) : nlohmann::json(nullptr)},
          {"reached", r.reached},
          {"seeds", r.runs.size()},
          {"budget", r.budget},
          {"best_ms", r.best_time},
          {"configurations", space.size()},
          {"random_expected_evaluations", r.random_expected_evaluations},
          {"told", r.told}};
      if (o.curve) {
        nlohmann::ordered_json curve = nlohmann::ordered_json::object();
        for (std::size_t c = 0; c < so.checkpoints.size(); ++c) {
          curve[std::to_string(so.checkpoints[c])] = r.mean_fraction[c];
        }
        row["mean_fraction"] = curve;
      }
      out.push_back(row);
    } else {
      std::printf("%-12s", name.c_str());
      for (const double f : r.mean_fraction) std::printf(" %6.3f", f);
      if (r.median_within_budget()) {
        std::printf(" %28.1f %7zu/%zu\n", r.median, r.reached, r.runs.size());
      } else {
        std::printf(" %28s %7zu/%zu\n", (">" + std::to_string(r.budget)).c_str(), r.reached,
                    r.runs.size());
      }
    }
  }
  // The chart before the replays are stored: a chart that cannot be written (exit 2) leaves
  // the database as it was.
  if (!o.svg.empty()) {
    std::ostringstream told;
    if (o.told > 0) told << ", told " << o.told;
    write_output(o.svg,
                 replay_curve_svg(o.kernel + " on " + device.name + " (" + std::to_string(o.seeds) +
                                      " seeds" + told.str() + ")",
                                  so.checkpoints, results),
                 o.db);
  }
  if (o.save) {
    for (const auto& r : results) {
      // Only what differs from the defaults: "trees=24" (its default) is the same replay.
      std::string settings;
      for (const auto& [name, value] : non_default_settings(r.strategy, so.settings)) {
        // The shortest text that reads back as the value: six digits made 0.1234567 and
        // 0.1234568 one key, and the second replay replaced the first.
        char v[32];
        const auto end = std::to_chars(v, v + sizeof v, value).ptr;
        settings += (settings.empty() ? "" : " ") + name + "=" + std::string(v, end);
      }
      rows::Replay row;
      row.key = device.key, row.kernel = o.kernel, row.p = problem;
      row.strategy = r.strategy, row.settings = settings;
      row.configurations = std::int64_t(space.size()), row.seeds = std::int64_t(r.runs.size());
      row.budget = std::int64_t(r.budget), row.reached = std::int64_t(r.reached);
      row.tolerance = so.tolerance, row.median_evaluations = r.median;
      row.random_expected = r.random_expected_evaluations;
      for (std::size_t c = 0; c < so.checkpoints.size(); ++c) {
        row.curve.emplace_back(std::int64_t(so.checkpoints[c]), r.mean_fraction[c]);
      }
      rows::put_replay(store, row);
    }
    if (!o.json) std::printf("Stored %zu replay(s) for mmtune report\n", results.size());
  }
  if (!o.json && random_expected) {
    std::printf("random sampling needs (N+1)/(k+1) = %.1f evaluations on average%s\n",
                *random_expected, o.told > 0 ? " (N: the configurations not told)" : "");
  }
  if (o.json) std::cout << out.dump(2) << "\n";
  return kExitOk;
}

namespace {

// One device's best for a problem, as JSON.
// `session`: the session that measured it (the store's sessions, read once per command).
// `problem`: the problem as JSON (a spec's is its sizes, not a GEMM's fields).
nlohmann::json best_json(const BestRecord& b, const SessionRecord* session,
                         const DeviceInfo& device, const nlohmann::json& problem) {
  const std::string command_line = session ? session->command_line : "";
  const auto or_null = [](double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(); };
  return {{"device", device.name},
          {"device_key", device.key},
          {"problem", problem},
          {"kernel", b.kernel},
          {"config", b.config},
          {"median_ms", b.median_ms},
          {"gflops", figure_or_null(b.gflops)},
          {"kernel_gflops", figure_or_null(b.kernel_gflops)},
          {"gbps", figure_or_null(b.gbps)},
          {"spread", or_null(b.spread)},
          {"other_load", or_null(b.other_load)},
          {"measurement_id", b.measurement_id},
          {"session_id", b.session_id},
          {"session_command_line", command_line},
          {"updated_at", b.updated_at}};
}

// `what`: the problem as the user named it (a GEMM's shape, or a spec kernel and its sizes).
void print_best(const BestRecord& b, const SessionRecord* session, const DeviceInfo& device,
                const std::string& what) {
  const std::string command_line = session ? session->command_line : "";
  const std::string started = session ? session->started_at : "";
  std::printf("%s on %s: %s [%s]\n", what.c_str(), device.name.c_str(), b.kernel.c_str(),
              b.config.c_str());
  // 0 stands for unknown: a recorded kernel's flops, a batch run item by item's kernel time.
  std::printf("  %.3f ms", b.median_ms);
  if (b.gflops > 0) std::printf(" = %s GFLOPS", rate_text(b.gflops).c_str());
  if (b.kernel_gflops > 0)
    std::printf(" (kernel alone %s GFLOPS)", rate_text(b.kernel_gflops).c_str());
  if (b.gbps > 0) std::printf(", %s GB/s", rate_text(b.gbps).c_str());
  std::printf("\n");
  // How far the figure can be trusted: its runs' spread and the machine's other load then.
  if (b.spread >= 0 || b.other_load >= 0) {
    std::printf("  noise:");
    if (b.spread >= 0) std::printf(" runs spread %.0f%% ((max - min) / median)", 100 * b.spread);
    if (b.other_load >= 0) {
      std::printf(
          "%s other processes used %.0f%% of the CPUs%s", b.spread >= 0 ? ";" : "",
          100 * b.other_load,
          b.other_load > kBusyShare ? ": measured on a busy machine, slower than idle" : "");
    }
    std::printf("\n");
  }
  std::printf("  measurement %lld of session %lld (%s, started %s), recorded %s\n",
              static_cast<long long>(b.measurement_id), static_cast<long long>(b.session_id),
              command_line.c_str(), started.c_str(), b.updated_at.c_str());
}

}  // namespace

int cmd_best(BestOptions o, const DeviceOptions& dopt, const ProblemOptions& popt) {
  GemmProblem problem;
  if (!o.spec.empty()) {
    std::tie(problem, o.kernel) = cli::spec_store_key(o.spec, o.sizes);
  } else {
    if (!o.sizes.empty()) throw UsageError("--size needs --spec");
    problem = make_problem(popt);
  }
  const std::string what =
      o.spec.empty() ? describe(problem)
                     : std::filesystem::path(o.spec).stem().string() + " at sizes " + o.sizes;
  // A spec has no precision, layout or transpositions: its sizes as the user gave them (the
  // store pads them to three with 1).
  const nlohmann::json problem_json =
      o.spec.empty() ? to_json(problem)
                     : nlohmann::json{{"spec", std::filesystem::path(o.spec).stem().string()},
                                      {"sizes", cli::parse_spec_sizes(o.sizes)}};
  Store store(existing_database_path(o.db), Store::Access::kReadOnly);
  std::vector<DeviceInfo> devices;
  if (dopt.device.empty() && dopt.platform.empty()) {
    // No --device: the best of every stored device that has one.
    for (const auto& key : rows::device_keys(store)) devices.push_back(*store.device(key));
  } else {
    // The device may be absent from this machine: resolve it among the stored ones first.
    try {
      devices.push_back(select_device(list_devices(), dopt.device, dopt.platform).info);
    } catch (const NoDeviceError&) {
      // An unknown --platform names no stored device; with one, the device is this host's.
      if (dopt.device.empty() || !dopt.platform.empty()) throw;
      devices.push_back(find_stored_device(store, dopt.device));
    }
  }
  std::map<std::int64_t, SessionRecord> sessions;
  for (auto& s : store.sessions()) sessions.emplace(s.id, std::move(s));
  nlohmann::json all = nlohmann::json::array();
  std::size_t found = 0;
  for (const DeviceInfo& device : devices) {
    const auto b = store.best(device.key, problem, o.kernel);
    if (!b) continue;
    ++found;
    const auto it = sessions.find(b->session_id);
    const SessionRecord* session = it == sessions.end() ? nullptr : &it->second;
    if (o.json) {
      all.push_back(best_json(*b, session, device, problem_json));
    } else {
      print_best(*b, session, device, what);
    }
  }
  if (found == 0) {
    throw UsageError("no stored result for " + what + " on " +
                     (devices.size() == 1 ? devices.front().name : std::string("any device")) +
                     (o.kernel.empty() ? "" : " with the " + o.kernel + " kernel") +
                     // A spec's sizes are not GEMM problems: no hint in those terms.
                     (devices.size() == 1 && o.spec.empty()
                          ? rows::measured_hint(store, devices.front().key, o.kernel, &problem)
                          : ""));
  }
  // One device asked for: one object; all devices: an array, however many are stored.
  const bool one_asked = !dopt.device.empty() || !dopt.platform.empty();
  if (o.json) std::cout << (one_asked ? all.front() : all).dump(2) << "\n";
  return kExitOk;
}

int cmd_history(const std::string& db, bool json) {
  Store store(existing_database_path(db), Store::Access::kReadOnly);
  nlohmann::json out = nlohmann::json::array();
  // A fleet's sessions differ only by their device: each names it.
  std::map<std::string, std::string> device_names;
  for (const auto& key : rows::device_keys(store)) device_names[key] = store.device(key)->name;
  for (const auto& s : store.sessions()) {
    const auto count = rows::session_measurements(store, s.id);
    const std::string& device = device_names[s.device_key];
    if (json) {
      out.push_back(
          {{"id", s.id},
           {"device_key", s.device_key},
           {"device", device},
           {"problem", report_detail::has_sizes_only(s.kernels)
                           ? nlohmann::json{{"sizes", {s.problem.m, s.problem.n, s.problem.k}}}
                           : to_json(s.problem)},
           {"strategy", s.strategy},
           {"kernels", s.kernels},
           {"seed", s.seed},
           {"budget", s.budget},
           {"started_at", s.started_at},
           // null while it runs, as the export writes it
           {"ended_at", s.ended_at.empty() ? nlohmann::json() : nlohmann::json(s.ended_at)},
           {"outcome", s.outcome},
           {"measurements", count},
           {"command_line", s.command_line}});
    } else {
      std::printf("%4lld  %s  %-11s  %-24s  %-9s %4lld measurements  %s  (%s)\n",
                  static_cast<long long>(s.id), s.started_at.c_str(), s.outcome.c_str(),
                  report_detail::describe_for(s.kernels, s.problem).c_str(), s.strategy.c_str(),
                  static_cast<long long>(count), s.command_line.c_str(), device.c_str());
    }
  }
  if (json) std::cout << out.dump(2) << "\n";
  return kExitOk;
}

}  // namespace

void StoreCommands::add(CLI::App& app) {
  simulate = app.add_subcommand(
      "simulate", "replay recorded measurements to compare search strategies (no device needed)");
  simulate->add_option("--strategy", sim.strategy, "a strategy, or all")->capture_default_str();
  simulate->add_option("--strategy-option", sim.strategy_options,
                       "NAME=VALUE, repeatable: an option of the strategy (see tune --help)");
  simulate->add_option("--budget", sim.budget, "evaluations per run")
      ->check(cli::positive_integer())
      ->capture_default_str();
  simulate->add_option("--seeds", sim.seeds, "runs per strategy")
      ->check(cli::positive_integer())
      ->capture_default_str();
  simulate->add_option("--db", sim.db, "tuning database");
  simulate->add_option("-d,--device", sim.device, "stored device: key or part of its name");
  simulate
      ->add_option("--kernel", sim.kernel,
                   "a searched kernel (tiled, direct), a recorded one (kt:NAME) or a user's "
                   "kernel (spec:NAME:HASH, as stored)")
      ->capture_default_str();
  add_problem_options(simulate, sim.problem);
  simulate
      ->add_option("--told", sim.told,
                   "SHARE within 0 and 1: first tell each run that share of the recorded results "
                   "outside 5 % of the best, drawn at random (a warm start); only its own "
                   "proposals count")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  simulate
      ->add_option("--batch", sim.batch,
                   "proposals asked for at once and told together, as a tune asks for twice its "
                   "parallel builds")
      ->check(cli::positive_integer())
      ->capture_default_str();
  simulate->add_flag("--json", sim.json, "print JSON");
  simulate->add_option("--svg", sim.svg, "with --curve: write the curves as an SVG chart to FILE");
  simulate->add_flag("--curve", sim.curve,
                     "also the mean fraction of the optimum after 25, 50, 100, 200 and 400 "
                     "evaluations (every run then spends the larger of 400 and --budget; the "
                     "strategies still plan for --budget and the median evaluations count only "
                     "those within it)");
  simulate->add_flag("--landscape", sim.landscape,
                     "describe the recorded landscape instead of replaying: its points within 5 % "
                     "of the best, its local minima, and from how many points steepest descent "
                     "over neighbouring values ends within 5 %");
  simulate->add_flag("--save", sim.save,
                     "with --curve: store the curves in the database, for mmtune report");

  best = app.add_subcommand("best", "print the stored best configuration for a problem");
  add_device_options(best, best_dev,
                     "device: index or part of its name on this host, or a stored device's key "
                     "or name (it need not be present); default: every stored device");
  add_problem_options(best, best_prob);
  add_batch_option(best, best_prob);
  best->add_option("--kernel", best_opt.kernel,
                   "tiled, direct, naive, classic (default: the routine's pick)");
  best->add_option("--db", best_opt.db, "tuning database");
  best->add_flag("--json", best_opt.json, "print JSON");
  best->add_option("--spec", best_opt.spec, "a user's kernel: its spec file (docs/spec.md)");
  best->add_option("--size", best_opt.sizes, "with --spec: the spec's sizes, e.g. 4096,4096,15");

  history = app.add_subcommand("history", "list tuning sessions");
  history->add_option("--db", history_db, "tuning database");
  history->add_flag("--json", history_json, "print JSON");
}

int StoreCommands::run() const {
  if (simulate->parsed()) {
    refuse_shape_without_size(*simulate, sim.problem);  // without a size: the most measured
    if (sim.landscape) {
      refuse_given(*simulate,
                   {"--strategy", "--strategy-option", "--budget", "--seeds", "--told", "--batch",
                    "--curve", "--svg", "--save"},
                   " is an option of a replay, not of --landscape");
    }
    return cmd_simulate(sim);
  }
  if (best->parsed()) {
    if (!best_opt.spec.empty()) {
      refuse_problem_with_spec(*best, best_prob);
      refuse_with_spec(*best, {"--kernel"});
    }
    return cmd_best(best_opt, best_dev, best_prob);
  }
  if (history->parsed()) return cmd_history(history_db, history_json);
  return -1;
}

}  // namespace mmtune::cli
