#include "tune/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "mmtune/error.hpp"
#include "mmtune/lookup.hpp"
#include "opencl/kernel_source.hpp"
#include "search/strategy.hpp"
#include "tune/evaluator.hpp"
#include "tune/warm_start.hpp"

namespace mmtune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct KernelSearch {
  KernelKind kind;
  std::vector<KernelConfig> configs;  // candidate i is point i of the space
  std::unique_ptr<SearchSpace> space;
  std::unique_ptr<Strategy> strategy;
  double weight = 1.0;                // share of the evaluations
  std::size_t limit = 0;              // evaluations allotted (0: unlimited)
  std::vector<std::size_t> switches;  // one configuration per code path (warm_start.hpp)
  std::size_t done = 0;
  bool exhausted = false;
};

// Timing for the search: enough repetitions for a stable median, few for clearly slow variants.
TimingOptions search_timing(double best_ms) {
  TimingOptions t;
  t.warmup = 1;
  t.min_reps = 3;
  t.max_reps = 10;
  t.stable_within = 0.03;
  t.max_seconds = 3.0;
  t.early_stop_ms = std::isfinite(best_ms) ? 1.5 * best_ms : 0.0;
  return t;
}

// Baselines can be very slow: a few runs suffice to show what tuning gains.
TimingOptions baseline_timing() {
  TimingOptions t;
  t.warmup = 0;
  t.min_reps = 2;
  t.max_reps = 5;
  t.max_seconds = 5.0;
  t.slow_first_run_suffices = true;
  return t;
}

// The first line of a build log that names an error (else its first line), shortened.
std::string first_error_line(const std::string& log) {
  std::string first;
  std::size_t start = 0;
  while (start < log.size()) {
    const std::size_t end = std::min(log.find('\n', start), log.size());
    const std::string line = log.substr(start, end - start);
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos) {
      first = line;
      break;
    }
    start = end + 1;
  }
  if (first.size() > 200) first = first.substr(0, 200) + "...";
  return first.empty() ? "no build log" : first;
}

using KnownMeasurements = std::map<std::pair<std::string, std::string>, MeasurementRecord>;

// The configurations a confirmation measures again: the `count` fastest timed Ok tiled/direct
// measurements, each kernel's stored best (which may be an older measurement, or one timed
// another way, and must face the others under the same conditions) and `always` (the defaults a
// user already has: the best must beat them side by side, or be one of them).
std::vector<KernelConfig> pick_finalists(const KnownMeasurements& known,
                                         const std::vector<std::optional<BestRecord>>& bests,
                                         const std::vector<KernelConfig>& always,
                                         std::size_t count) {
  std::vector<MeasurementRecord> ok;
  for (const auto& [k, r] : known) {
    if (r.result.status == Status::kOk && (k.first == "tiled" || k.first == "direct")) {
      ok.push_back(r);
    }
  }
  std::sort(ok.begin(), ok.end(),
            [](const auto& x, const auto& y) { return x.result.median_ms < y.result.median_ms; });
  std::vector<std::pair<std::string, std::string>> picked;
  const auto pick = [&](const std::string& kernel, const std::string& config) {
    if (std::find(picked.begin(), picked.end(), std::pair(kernel, config)) == picked.end()) {
      picked.emplace_back(kernel, config);
    }
  };
  for (const auto& r : ok) {
    if (picked.size() == count) break;
    pick(r.kernel, r.config);
  }
  for (const auto& b : bests) {
    if (b) pick(b->kernel, b->config);
  }
  for (const auto& c : always) pick(kernel_name(kind_of(c)), to_string(c));
  std::vector<KernelConfig> out;
  for (const auto& [kernel, config] : picked) {
    try {
      out.push_back(parse_config(*parse_kernel_kind(kernel), config));
    } catch (const UsageError&) {  // a damaged stored row is not a finalist
    }
  }
  return out;
}

// Each finalist's median round, from its rounds (nullopt for a finalist that failed a round).
std::vector<std::optional<MeasurementRecord>> median_rounds(
    std::vector<std::vector<MeasurementRecord>> rounds) {
  std::vector<std::optional<MeasurementRecord>> out;
  for (auto& rs : rounds) {
    if (rs.empty() || std::any_of(rs.begin(), rs.end(),
                                  [](const auto& r) { return r.result.status != Status::kOk; })) {
      out.emplace_back();
      continue;
    }
    std::sort(rs.begin(), rs.end(),
              [](const auto& x, const auto& y) { return x.result.median_ms < y.result.median_ms; });
    out.push_back(rs[(rs.size() - 1) / 2]);
  }
  return out;
}

// Each kernel's finalist with the fastest median round.
std::map<std::string, MeasurementRecord> confirmed_bests(
    const std::vector<std::optional<MeasurementRecord>>& medians) {
  std::map<std::string, MeasurementRecord> winners;
  for (const auto& mid : medians) {
    if (!mid) continue;
    const auto it = winners.find(mid->kernel);
    if (it == winners.end() || mid->result.median_ms < it->second.result.median_ms) {
      winners[mid->kernel] = *mid;
    }
  }
  return winners;
}

}  // namespace

TuneSummary tune(const Device& device, Store& store, const TuneRequest& request,
                 const TuneEnvironment& env,
                 const std::function<void(const TuneProgress&)>& progress,
                 const std::atomic<bool>& stop) {
  const auto t0 = Clock::now();
  const GemmProblem& problem = request.problem;
  const std::string& key = device.info.key;
  TuneSummary summary;
  summary.problem = problem;

  EvaluatorOptions eo;
  eo.worker_argv = env.worker_argv;
  eo.device_index = device.info.index;
  eo.device_key = key;
  eo.kernels_dir = env.kernels_dir;
  eo.program_dir = env.program_dir;
  if (!env.scratch_dir.empty()) eo.reference_file = env.scratch_dir + "/reference.bin";
  eo.problem = problem;
  eo.seed = request.seed;
  eo.parallel_builds = std::max<std::size_t>(1, env.parallel_builds);
  eo.build_limit_s = env.build_limit_s;
  eo.first_run_extra_s = env.first_run_extra_s;
  Evaluator evaluator(eo);

  // Kernels from --kernels-dir must compile before anything is stored: each tuned kernel's
  // default configuration is built, run once and verified, and a build failure is an input error.
  if (!env.kernels_dir.empty()) {
    std::vector<KernelConfig> defaults;
    for (auto k : request.kernels) defaults.push_back(default_config(k));
    const auto results = evaluator.evaluate(defaults, TimingOptions::verify_only(), 600.0, &stop);
    for (std::size_t i = 0; i < defaults.size(); ++i) {
      if (results[i] && results[i]->status == Status::kBuildFailed) {
        const char* kernel = kernel_name(kind_of(defaults[i]));
        throw UsageError("--kernels-dir '" + env.kernels_dir + "': the " + kernel +
                         " kernel (gemm_" + kernel +
                         ".cl) does not compile: " + first_error_line(results[i]->message));
      }
    }
  }

  store.upsert_device(device.info);
  SessionRecord session;
  session.device_key = key;
  session.command_line = request.command_line;
  session.strategy = request.strategy.empty() ? default_strategy() : request.strategy;
  for (auto k : request.kernels)
    session.kernels += (session.kernels.empty() ? "" : ",") + std::string(kernel_name(k));
  session.space = request.space == SpaceSize::kFull ? "full" : "quick";
  session.seed = request.seed;
  session.budget = request.budget;
  session.time_limit_s = request.time_limit_s;
  session.problem = problem;
  store.close_abandoned_sessions();  // earlier tunes of this host whose process is gone
  summary.session_id = store.begin_session(session);
  // A tune stopped by an error (a full disk, a lost device) records `failed`. When even that
  // cannot be written, the session reads as abandoned once this process is gone (shown_outcome).
  struct FailOnError {
    Store& store;
    std::int64_t id;
    bool armed = true;
    ~FailOnError() {
      if (!armed) return;
      try {
        store.end_session(id, "failed");
      } catch (const std::exception&) {  // the error on its way out says what went wrong
      }
    }
  } fail_on_error{store, summary.session_id};

  // What the store already holds for this device and problem is not measured again.
  KnownMeasurements known;
  if (!request.fresh) {
    for (auto& m : store.measurements(key, problem)) known[{m.kernel, m.config}] = std::move(m);
  }

  double best_ms = std::numeric_limits<double>::infinity();
  std::size_t budget_done = 0;  // evaluations counted against the budget (measured or reused)
  const auto report = [&](const std::string& last) {
    if (!progress) return;
    TuneProgress p;
    p.done = budget_done;
    p.budget = request.budget;
    p.failed = 0;
    for (const auto& [s, n] : summary.by_status) {
      if (s != Status::kOk && s != Status::kSlowerEarlyStop) p.failed += n;
    }
    p.elapsed_s = seconds_since(t0);
    p.time_limit_s = request.time_limit_s;
    p.best_gflops = std::isfinite(best_ms) ? problem.flops() / (best_ms * 1e6) : 0.0;
    p.last = last;
    progress(p);
  };
  // Stores one new measurement (committed at once) and accounts for it.
  const auto record = [&](const KernelConfig& config, const Measurement& m) {
    MeasurementRecord r;
    r.session_id = summary.session_id;
    r.device_key = key;
    r.kernel = kernel_name(kind_of(config));
    r.config = to_string(config);
    r.problem = problem;
    r.result = m;
    const auto ts = Clock::now();
    r.id = store.add_measurement(r);
    summary.store_s += seconds_since(ts);
    summary.verify_s += m.verify_seconds;
    ++summary.evaluations;
    ++summary.by_status[m.status];
    if (m.status == Status::kOk && (r.kernel == "tiled" || r.kernel == "direct")) {
      best_ms = std::min(best_ms, m.median_ms);
    }
    summary.best_gflops_by_evaluation.push_back(
        std::isfinite(best_ms) ? problem.flops() / (best_ms * 1e6) : 0.0);
    known[{r.kernel, r.config}] = r;
    return r;
  };
  const auto run_limit = [&] {
    return std::isfinite(best_ms) ? std::clamp(50.0 * best_ms / 1e3, 5.0, 120.0) : 120.0;
  };
  // `reference`: a default or baseline, measured to the end (the limit only catches hangs).
  const auto measure = [&](const std::vector<KernelConfig>& configs, const TimingOptions& timing,
                           bool reference = false) {
    const auto ts = Clock::now();
    // A first run beyond 4x the best (plus time for lazy compilation) is not worth finishing.
    const double slow_s = !reference && std::isfinite(best_ms) ? 4.0 * best_ms / 1e3 + 5.0 : 0.0;
    const double limit = reference ? 600.0 : run_limit();
    auto results = evaluator.evaluate(configs, timing, limit, &stop, slow_s);
    summary.run_s += seconds_since(ts);
    return results;
  };
  const auto describe_result = [](const MeasurementRecord& r) {
    const Measurement& m = r.result;
    char buf[96];
    if (m.status == Status::kOk || m.status == Status::kSlowerEarlyStop) {
      std::snprintf(buf, sizeof buf, "%s %.1f GFLOPS", to_string(m.status), m.gflops);
    } else {
      std::snprintf(buf, sizeof buf, "%s", to_string(m.status));
    }
    return r.kernel + " [" + r.config + "] " + buf;
  };

  // Measures reference configurations one at a time (each default can stop early against the
  // ones before it), skipping what the store holds. They do not count against the budget.
  const auto measure_references = [&](const std::vector<KernelConfig>& list, bool baseline) {
    for (const auto& c : list) {
      // A stored reference that was timed is kept; one that failed (e.g. a timeout) is retried.
      const auto it = known.find({kernel_name(kind_of(c)), to_string(c)});
      if (stop || !limit_violations(c, device.info, problem.precision).empty() ||
          (it != known.end() && observed_time(it->second.result))) {
        continue;
      }
      const auto results =
          measure({c}, baseline ? baseline_timing() : search_timing(best_ms), true);
      if (results[0]) report(describe_result(record(c, *results[0])));
    }
  };

  // The defaults first: they give the search a time to beat.
  {
    const auto ts = Clock::now();
    std::vector<KernelConfig> defaults;
    for (auto k : request.kernels) defaults.push_back(default_config(k));
    measure_references(defaults, false);
    for (const auto& [k, r] : known) {
      if (r.result.status == Status::kOk && (k.first == "tiled" || k.first == "direct")) {
        best_ms = std::min(best_ms, r.result.median_ms);
      }
    }
    summary.startup_s = seconds_since(ts);
  }
  // The phases below account for the search alone.
  const double startup_build_s = evaluator.build_seconds();
  const double startup_eval_s = summary.run_s;
  const double startup_verify_s = summary.verify_s;

  // One search per kernel, interleaved by weight (the tiled kernel gets most evaluations).
  std::vector<KernelSearch> searches;
  for (auto k : request.kernels) {
    KernelSearch s;
    s.kind = k;
    if (request.candidates) {
      for (const auto& c : *request.candidates) {
        if (kind_of(c) == k) s.configs.push_back(c);
      }
    } else {
      s.configs = enumerate(k, request.space, &device.info, problem.precision);
    }
    if (s.configs.empty()) continue;
    std::vector<std::vector<int>> points;
    points.reserve(s.configs.size());
    for (const auto& c : s.configs) points.push_back(parameter_values(c));
    if (!request.candidates) {  // a given candidate list is searched as it is
      const KernelConfig library = default_parameters(device.info, problem).config;
      const KernelConfig base = kind_of(library) == k ? library : default_config(k);
      s.switches = switch_variants(points, parameter_values(base));
    }
    s.space = std::make_unique<SearchSpace>(parameter_names(k), std::move(points));
    s.weight = k == KernelKind::kTiled ? 3.0 : 1.0;
    searches.push_back(std::move(s));
  }
  double total_weight = 0;
  for (const auto& s : searches) total_weight += s.weight;
  for (auto& s : searches) {
    if (request.budget) {
      s.limit = std::max<std::size_t>(
          1, std::size_t(std::llround(double(request.budget) * s.weight / total_weight)));
    }
    s.strategy = make_strategy(session.strategy, *s.space, {request.seed, s.limit});
  }

  // Warm start: the device type's default, what ran best on this device for other shapes and
  // one variant per code path are measured first. They count against the budget, and every strategy
  // learns from them.
  {
    std::vector<KernelConfig> seeds = {default_parameters(device.info, problem).config};
    for (const auto& [kernel, config] : store.top_configs_elsewhere(key, problem, 6)) {
      try {
        seeds.push_back(parse_config(*parse_kernel_kind(kernel), config));
      } catch (const UsageError&) {  // a damaged row is not a candidate
      }
    }
    for (auto& s : searches) {
      std::vector<std::size_t> picks;
      const auto pick = [&](std::size_t i) {
        if (std::find(picks.begin(), picks.end(), i) == picks.end()) picks.push_back(i);
      };
      for (const auto& c : seeds) {
        if (kind_of(c) != s.kind) continue;
        if (const auto i = s.space->find(parameter_values(c))) pick(*i);
      }
      // Every code path once (warm_start.hpp), within a quarter of the kernel's budget.
      const std::size_t room = s.limit ? s.limit / 4 : s.switches.size();
      for (std::size_t j = 0; j < s.switches.size() && j < room; ++j) pick(s.switches[j]);
      std::vector<Observation> observations;
      std::vector<KernelConfig> todo;
      std::vector<std::size_t> todo_index;
      for (std::size_t i : picks) {
        const auto it = known.find({kernel_name(s.kind), to_string(s.configs[i])});
        if (it != known.end()) {
          observations.push_back({i, observed_time(it->second.result)});
          ++summary.reused;
        } else {
          todo.push_back(s.configs[i]);
          todo_index.push_back(i);
        }
      }
      if (!todo.empty() && !stop) {
        const auto results = measure(todo, search_timing(best_ms));
        for (std::size_t j = 0; j < todo.size(); ++j) {
          if (!results[j]) continue;
          const auto r = record(todo[j], *results[j]);
          observations.push_back({todo_index[j], observed_time(r.result)});
          report(describe_result(r));
        }
      }
      s.done += observations.size();
      budget_done += observations.size();
      s.strategy->seed(observations);
    }
  }

  const bool confirm = request.finalists > 1 && request.confirm_rounds > 0;
  const double search_limit_s = confirm ? 0.9 * request.time_limit_s : request.time_limit_s;
  const std::size_t measured_before_search = summary.evaluations;
  const std::size_t batch_size = std::max<std::size_t>(2, 2 * eo.parallel_builds);
  summary.outcome = "completed";
  while (true) {
    if (stop) {
      summary.outcome = "interrupted";
      break;
    }
    if (request.time_limit_s > 0 && seconds_since(t0) >= search_limit_s) {
      summary.outcome = "time-limit";
      break;
    }
    if (request.budget && budget_done >= request.budget) break;
    KernelSearch* next = nullptr;
    for (auto& s : searches) {
      if (s.exhausted || (s.limit && s.done >= s.limit)) continue;
      if (!next || double(s.done) / s.weight < double(next->done) / next->weight) next = &s;
    }
    if (!next) break;  // every search spent its share or ran out of candidates
    std::size_t n = batch_size;
    if (next->limit) n = std::min(n, next->limit - next->done);
    if (request.budget) n = std::min(n, request.budget - budget_done);

    const auto ts = Clock::now();
    const auto picks = next->strategy->ask(n);
    summary.search_s += seconds_since(ts);
    if (picks.empty()) {
      next->exhausted = true;
      continue;
    }
    std::vector<Observation> observations;
    std::vector<std::size_t> to_measure;
    for (std::size_t i : picks) {
      const auto it = known.find({kernel_name(next->kind), to_string(next->configs[i])});
      if (it == known.end()) {
        to_measure.push_back(i);
        continue;
      }
      observations.push_back({i, observed_time(it->second.result)});
      ++summary.reused;
      ++next->done;
      ++budget_done;
    }
    if (!to_measure.empty()) {
      std::vector<KernelConfig> configs;
      for (std::size_t i : to_measure) configs.push_back(next->configs[i]);
      const auto results = measure(configs, search_timing(best_ms));
      for (std::size_t j = 0; j < configs.size(); ++j) {
        if (!results[j]) continue;  // interrupted before this one
        const auto r = record(configs[j], *results[j]);
        observations.push_back({to_measure[j], observed_time(r.result)});
        ++next->done;
        ++budget_done;
        report(describe_result(r));
      }
    }
    const auto tt = Clock::now();
    next->strategy->tell(observations);
    summary.search_s += seconds_since(tt);
  }
  if (request.budget && budget_done >= request.budget && summary.outcome == "completed") {
    summary.outcome = "budget";
  }
  // Confirmation. The search ranks each configuration by one measurement, taken while the
  // machine's speed drifts (by up to a third within minutes on a shared CPU), so the fastest
  // stored measurement is partly the luckiest one. The finalists are measured again side by
  // side, in rounds, and each kernel's best becomes its finalist with the fastest median round.
  // A tune that measured nothing new (a repeat) has nothing to confirm.
  // The defaults a user of this device already has: each kernel's own and the consumer
  // library's built-in choice for the device (when it is one of the tuned kernels).
  std::vector<KernelConfig> users_defaults;
  for (auto k : request.kernels) users_defaults.push_back(default_config(k));
  const KernelConfig library_default = default_parameters(device.info, problem).config;
  if (std::find(request.kernels.begin(), request.kernels.end(), kind_of(library_default)) !=
      request.kernels.end()) {
    users_defaults.push_back(library_default);
  }
  std::vector<KernelConfig> finalists;
  std::vector<std::optional<MeasurementRecord>> confirmed;  // per finalist: its median round
  if (confirm && !stop && summary.evaluations > measured_before_search) {
    std::vector<std::optional<BestRecord>> bests;
    for (auto k : request.kernels) bests.push_back(store.best(key, problem, kernel_name(k)));
    finalists = pick_finalists(known, bests, users_defaults, request.finalists);
    const std::vector<KernelConfig>& configs = finalists;
    std::vector<std::vector<MeasurementRecord>> rounds(configs.size());
    for (std::size_t round = 0; configs.size() > 1 && round < request.confirm_rounds; ++round) {
      // One round even past the time limit (a batch of timeouts can overrun the search's
      // share): an unconfirmed best is the one outcome the confirmation exists to prevent.
      if (stop ||
          (round > 0 && request.time_limit_s > 0 && seconds_since(t0) >= request.time_limit_s)) {
        break;
      }
      // No early stop: every finalist runs its full repetitions in every round.
      const auto results = measure(configs, search_timing(std::numeric_limits<double>::infinity()));
      for (std::size_t j = 0; j < configs.size(); ++j) {
        if (!results[j]) continue;
        rounds[j].push_back(record(configs[j], *results[j]));
        ++summary.confirm_evaluations;
        report(describe_result(rounds[j].back()) + " (confirming)");
      }
      ++summary.confirm_rounds;
    }
    confirmed = median_rounds(std::move(rounds));
    summary.confirmed = std::size_t(std::count_if(confirmed.begin(), confirmed.end(),
                                                  [](const auto& r) { return r.has_value(); }));
    for (const auto& [kernel, r] : confirmed_bests(confirmed)) store.set_best(r);
  }

  // The slow baselines last (once per device and problem): they are the summary's reference
  // points and teach the search nothing, so they do not take its time.
  const double search_build_s = evaluator.build_seconds();
  const double search_eval_s = summary.run_s;
  const double search_verify_s = summary.verify_s;
  if (request.baselines) {
    const auto tb = Clock::now();
    measure_references({NaiveConfig{}, ClassicConfig{}}, true);
    summary.startup_s += seconds_since(tb);
  }
  if (stop) summary.outcome = "interrupted";
  store.end_session(summary.session_id, summary.outcome);
  fail_on_error.armed = false;
  summary.worker_restarts = evaluator.restarts();
  summary.build_s = search_build_s - startup_build_s;
  summary.verify_s = search_verify_s - startup_verify_s;
  summary.run_s = search_eval_s - startup_eval_s;

  // The summary reads back what is stored, so its figures are the database's.
  const auto best = store.best(key, problem);
  for (auto& r : store.measurements(key, problem)) {
    const bool ok = r.result.status == Status::kOk;
    if (best && r.id == best->measurement_id) summary.best = r;
    const auto keep = [&](std::optional<MeasurementRecord>& slot, KernelKind k) {
      if (r.kernel == kernel_name(k) && r.config == to_string(default_config(k)) &&
          (!slot || (ok && slot->result.status != Status::kOk))) {
        slot = r;
      }
    };
    keep(summary.default_tiled, KernelKind::kTiled);
    keep(summary.default_direct, KernelKind::kDirect);
    keep(summary.naive, KernelKind::kNaive);
    keep(summary.classic, KernelKind::kClassic);
  }
  // The defaults as measured side by side with the best in the confirmation, when they were:
  // the speed-ups then compare like with like, and the best never loses to a default.
  const auto confirmed_as = [&](const KernelConfig& c) -> std::optional<MeasurementRecord> {
    for (std::size_t i = 0; i < finalists.size() && i < confirmed.size(); ++i) {
      if (to_string(finalists[i]) == to_string(c) && kind_of(finalists[i]) == kind_of(c)) {
        return confirmed[i];
      }
    }
    return std::nullopt;
  };
  if (auto r = confirmed_as(default_config(KernelKind::kTiled))) summary.default_tiled = r;
  if (auto r = confirmed_as(default_config(KernelKind::kDirect))) summary.default_direct = r;
  summary.library_default = confirmed_as(library_default);
  // Evaluation wall time is building (parallel builds, as wall time), then running and
  // verifying; start-up (worker, reference, defaults and baselines) is reported on its own.
  summary.run_s = std::max(0.0, summary.run_s - summary.build_s - summary.verify_s);
  summary.total_s = seconds_since(t0);
  return summary;
}

}  // namespace mmtune
