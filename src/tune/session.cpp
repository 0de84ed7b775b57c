#include "tune/session.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "core/text.hpp"
#include "mmtune/error.hpp"
#include "mmtune/lookup.hpp"
#include "tune/session_detail.hpp"
#include "tune/warm_start.hpp"

namespace mmtune {
namespace session_detail {

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

bool is_searched(const std::optional<KernelConfig>& c) {
  return c && c->kind()->role() == FamilyRole::kSearched;
}

std::string describe_result(const MeasurementRecord& r) {
  const Measurement& m = r.result;
  char buf[96];
  if (m.status == Status::kOk || m.status == Status::kSlowerEarlyStop) {
    std::snprintf(buf, sizeof buf, "%s %s GFLOPS", to_string(m.status),
                  rate_text(m.gflops).c_str());
  } else {
    std::snprintf(buf, sizeof buf, "%s", to_string(m.status));
  }
  return r.kernel + " [" + r.config + "] " + buf;
}

}  // namespace session_detail

namespace {

using namespace session_detail;

// One finalist in a confirmation round: its verified first run, a warm-up and its repetitions
// (3 to 10 within about 3 s, or the first run alone when that takes longer).
double finalist_cost_ms(double ms) {
  return ms > 3000 ? ms : 2 * ms + std::max(3 * ms, std::min(10 * ms, 3000.0));
}

// Baselines can be very slow: a few runs, within their share of the tune, show what tuning gains.
TimingOptions baseline_timing(double limit_s) {
  TimingOptions t;
  t.warmup = 0;
  t.min_reps = 2;
  t.max_reps = 5;
  t.max_seconds = limit_s / 3;  // the first run is stopped at limit_s: about limit_s in all
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

EvaluatorOptions evaluator_options(const Device& device, const TuneRequest& request,
                                   const TuneEnvironment& env) {
  EvaluatorOptions eo;
  eo.worker_argv = env.worker_argv;
  eo.device_index = device.info.index;
  eo.device_key = device.info.key;
  eo.kernels_dir = env.kernels_dir;
  eo.program_dir = env.program_dir;
  if (!env.scratch_dir.empty()) eo.reference_file = env.scratch_dir + "/reference.bin";
  eo.problem = request.problem;
  eo.seed = request.seed;
  eo.parallel_builds = std::max<std::size_t>(1, env.parallel_builds);
  eo.build_limit_s = env.build_limit_s;
  eo.first_run_extra_s = env.first_run_extra_s;
  return eo;
}

}  // namespace

TuneSession::TuneSession(const Device& device, Store& store, const TuneRequest& request,
                         const TuneEnvironment& env,
                         const std::function<void(const TuneProgress&)>& progress,
                         const std::atomic<bool>& stop)
    : device_(device),
      store_(store),
      request_(request),
      env_(env),
      progress_(progress),
      stop_(stop),
      t0_(Clock::now()),
      options_(evaluator_options(device, request, env)),
      evaluator_(options_),
      best_ms_(std::numeric_limits<double>::infinity()) {
  summary_.problem = request.problem;
}

bool TuneSession::tunes(KernelKind kind) const {
  return std::find(request_.kernels.begin(), request_.kernels.end(), kind) !=
         request_.kernels.end();
}

double TuneSession::baseline_share() const {
  return request_.baselines ? kBaselinesShare : 0.0;
}

double TuneSession::confirmation_end_s() const {
  return request_.time_limit_s * (1.0 - baseline_share());
}

double TuneSession::confirmation_round_s() const {
  const double best = best_now_ms();
  if (request_.finalists <= 1 || request_.confirm_rounds == 0 || !std::isfinite(best)) return 0;
  // The finalists as they stand, each once (a seed or the drift reference is often among the
  // fastest: counted twice, a 4096^3 tune reserved 54 s for two rounds that took 42), and as
  // many more at the best time as the search has yet to find.
  const auto finalists = pick_finalists(known_, request_.kernels, {}, always_finalists(),
                                        request_.finalists, *request_.families);
  double ms = 0;
  for (const KernelConfig& c : finalists) {
    const auto it = known_.find({kernel_name(kind_of(c)), to_string(c)});
    if (it == known_.end()) {
      ms += finalist_cost_ms(best);
      continue;
    }
    // A first run stopped short of far behind is timed in full: at least its bound.
    const Measurement& r = it->second.record.result;
    const auto t = observed_time(r) ? observed_time(r) : lower_bound_ms(r);
    ms += finalist_cost_ms(t ? *t : best);
  }
  // Searched configurations that ran Ok (known_ holds only the tuned kernels' searched rows):
  // the fastest are finalists.
  std::size_t found = 0;
  for (const auto& [k, m] : known_) {
    found += is_searched(m.config) && ok_time(m.record.result);
  }
  // Finalists not found yet cost about the best's time (any count: a library caller's too).
  ms += double(request_.finalists - std::min(found, request_.finalists)) * finalist_cost_ms(best);
  return ms / 1000;
}

double TuneSession::confirmation_reserve_s() const {
  if (request_.time_limit_s <= 0) return 0;
  // Its rounds as estimated and a close call's head to head (two finalists at about the best
  // time), at least a tenth of the limit, at most three tenths (rounds past the first stop at
  // the limit).
  const double round_s = confirmation_round_s();
  const double close_call_s = round_s > 0 ? double(2 * request_.head_to_head_rounds) *
                                                finalist_cost_ms(best_now_ms()) / 1000
                                          : 0.0;
  const double rounds = double(request_.confirm_rounds) * round_s + close_call_s;
  return std::clamp(rounds, 0.1 * request_.time_limit_s, 0.3 * request_.time_limit_s);
}

double TuneSession::elapsed_s() const {
  return std::chrono::duration<double>(Clock::now() - t0_).count();
}

namespace {
constexpr int kInvalidKernelName = -46;  // CL_INVALID_KERNEL_NAME: the worker's launch reports it
}  // namespace

void TuneSession::start() {
  // Kernels from --kernels-dir must compile before anything is stored: each tuned kernel's
  // default configuration is built, run once and verified, and a build failure is an input error.
  if (!env_.kernels_dir.empty()) {
    std::vector<KernelConfig> defaults;
    for (auto k : request_.kernels) defaults.push_back(default_config(k));
    const auto results = evaluator_.evaluate(defaults, TimingOptions::verify_only(), 600.0, &stop_);
    for (std::size_t i = 0; i < defaults.size(); ++i) {
      if (!results[i]) continue;
      const KernelFamily& f = defaults[i].kind().family();
      const std::string which = "--kernels-dir '" + env_.kernels_dir + "': the " +
                                std::string(f.name()) + " kernel (" + f.source_file() + ")";
      if (results[i]->status == Status::kBuildFailed) {
        throw UsageError(which + " does not compile: " + first_error_line(results[i]->message));
      }
      // A file that compiles without the kernel function: every configuration would fail to
      // launch, each stored as a failed variant.
      if (results[i]->status == Status::kLaunchFailed &&
          results[i]->opencl_error == kInvalidKernelName) {
        throw UsageError(which + " has no kernel function of the name the routine launches: " +
                         first_error_line(results[i]->message));
      }
    }
  }
  store_.set_routine_kernels(request_.families->searched_names());
  store_.upsert_device(device_.info);
  strategy_ = request_.strategy.empty() ? default_strategy() : request_.strategy;
  SessionRecord session;
  session.device_key = device_.info.key;
  session.command_line = request_.command_line;
  session.strategy = strategy_;
  for (auto k : request_.kernels) {
    session.kernels += (session.kernels.empty() ? "" : ",") + std::string(kernel_name(k));
  }
  session.space = request_.space == SpaceSize::kFull ? "full" : "quick";
  session.seed = request_.seed;
  session.budget = request_.budget;
  session.time_limit_s = request_.time_limit_s;
  session.problem = request_.problem;
  store_.close_abandoned_sessions();  // earlier tunes of this host whose process is gone
  summary_.session_id = store_.begin_session(session);
  open_.emplace(store_, summary_.session_id);
  // What the store already holds for this device and problem is not measured again. Another
  // searched kernel's rows are not this tune's: they would be its drift reference, its finalists
  // (their best set again) and the fastest its own kernels are far behind.
  if (!request_.fresh) {
    for (auto& m : store_.measurements(device_.info.key, request_.problem)) {
      KnownMeasurement k;
      try {  // the configuration text of a stored row is parsed here, once
        if (const auto kind = parse_kernel_kind(m.kernel, *request_.families))
          k.config = parse_config(*kind, m.config);
      } catch (const UsageError&) {  // a damaged row: known, never a finalist
      }
      if (is_searched(k.config) && !tunes(kind_of(*k.config))) continue;
      k.record = std::move(m);
      known_[{k.record.kernel, k.record.config}] = std::move(k);
    }
  }
}

void TuneSession::report(const std::string& last) const {
  if (!progress_) return;
  TuneProgress p;
  p.done = budget_done_;
  p.measured = summary_.evaluations;
  p.budget = request_.budget;
  p.failed = 0;
  for (const auto& [s, n] : summary_.by_status) {
    if (s != Status::kOk && s != Status::kSlowerEarlyStop) p.failed += n;
  }
  p.elapsed_s = elapsed_s();
  p.time_limit_s = request_.time_limit_s;
  p.best_gflops = std::isfinite(best_ms_) ? request_.problem.flops() / (best_ms_ * 1e6) : 0.0;
  p.last = last;
  p.warning = std::exchange(warning_, {});
  progress_(p);
}

MeasurementRecord TuneSession::record(const KernelConfig& config, const Measurement& m) {
  MeasurementRecord r;
  r.session_id = summary_.session_id;
  r.device_key = device_.info.key;
  r.kernel = kernel_name(kind_of(config));
  r.config = to_string(config);
  r.problem = request_.problem;
  r.result = m;
  const auto ts = Clock::now();
  r.id = store_.add_measurement(r);
  summary_.store_s += std::chrono::duration<double>(Clock::now() - ts).count();
  summary_.verify_s += m.verify_seconds;
  summary_.first_run_s += m.first_run_extra_seconds;
  ++summary_.evaluations;
  ++summary_.by_status[m.status];
  summary_.max_other_load = std::max(summary_.max_other_load, m.other_load);
  if (m.other_load > kBusyShare && ++summary_.busy_measurements == 1) {
    char why[256];
    std::snprintf(why, sizeof why,
                  "the machine is busy: other processes used %.0f%% of its CPUs during a "
                  "measurement; timings are slower and noisier than on an idle machine",
                  100 * m.other_load);
    warning_ = why;
  }
  if (const auto t = ok_time(m); t && is_searched(config)) best_ms_ = std::min(best_ms_, *t);
  summary_.best_gflops_by_evaluation.push_back(
      std::isfinite(best_ms_) ? request_.problem.flops() / (best_ms_ * 1e6) : 0.0);
  known_[{r.kernel, r.config}] = {r, config, drift_.factor()};
  return r;
}

std::vector<std::optional<Measurement>> TuneSession::measure(
    const std::vector<KernelConfig>& configs, const TimingOptions& timing,
    std::optional<RunLimits> limits) {
  const auto ts = Clock::now();
  if (!limits) limits = run_limits(best_now_ms());
  auto results =
      evaluator_.evaluate(configs, timing, limits->run_s, &stop_, limits->slow_first_run_s);
  summary_.run_s += std::chrono::duration<double>(Clock::now() - ts).count();
  return results;
}

void TuneSession::measure_references(const std::vector<KernelConfig>& list,
                                     double baseline_limit_s) {
  for (const auto& c : list) {
    // A stored reference that was timed is kept; one that failed is retried, except a default
    // whose first run was stopped far behind the fastest (below).
    const auto it = known_.find({kernel_name(kind_of(c)), to_string(c)});
    if (stop_ || !limit_violations(c, device_.info, request_.problem.precision).empty() ||
        (it != known_.end() && observed_time(it->second.record.result))) {
      continue;
    }
    if (baseline_limit_s <= 0) {
      // A first run past the search's 3 s of timing is the only sample, and once a kernel's
      // default ran, another's first run is stopped like a search variant's (4x that plus
      // 5 s): at 4096^3 on a CPU the direct kernel's default took 21 s a run, the tiled 2.4 s.
      const RunLimits limits = std::isfinite(best_ms_) ? run_limits(best_ms_) : RunLimits{600.0};
      if (it != known_.end() && runs_far_behind(it->second, fastest_normalized_ms(known_))) {
        char why[160];
        std::snprintf(why, sizeof why,
                      " not measured again: its first run was stopped at %.1f s, far behind the "
                      "fastest (--fresh measures it)",
                      it->second.record.result.median_ms / 1e3);
        report(it->second.record.kernel + " [" + it->second.record.config + "]" + why);
        continue;
      }
      TimingOptions timing = search_timing(best_ms_);
      timing.slow_first_run_suffices = true;
      const auto started = Clock::now();
      const auto results = measure({c}, timing, limits);
      if (!results[0]) continue;
      report(describe_result(record(c, *results[0])));                     // record() sets best_ms_
      if (KernelSearch* s = search_of(kind_of(c))) s->charge(started, 1);  // what its variants cost
      continue;
    }
    auto results = measure({c}, baseline_timing(baseline_limit_s),
                           RunLimits{baseline_limit_s, baseline_limit_s});
    if (!results[0]) continue;
    Measurement& m = *results[0];
    if (lower_bound_ms(m)) {
      char why[160];
      std::snprintf(why, sizeof why,
                    "first run stopped at %.1f s, this tune's limit for a baseline: its time is "
                    "a lower bound",
                    baseline_limit_s);
      m.message = why;
    }
    report(describe_result(record(c, m)));
  }
}

void TuneSession::measure_defaults() {
  const auto ts = Clock::now();
  std::vector<KernelConfig> defaults;
  for (auto k : request_.kernels) defaults.push_back(default_config(k));
  for (const auto& [k, m] : known_) {  // what the store holds; measure_references adds to it
    if (const auto t = ok_time(m.record.result); t && is_searched(m.config)) {
      best_ms_ = std::min(best_ms_, *t);
    }
  }
  measure_references(defaults);
  summary_.startup_s = std::chrono::duration<double>(Clock::now() - ts).count();
  // The phases after this account for the search alone.
  startup_build_s_ = evaluator_.build_seconds();
  startup_run_s_ = summary_.run_s;
  startup_verify_s_ = summary_.verify_s;
  startup_first_run_s_ = summary_.first_run_s;
}

std::vector<KernelConfig> TuneSession::always_finalists() const {
  std::vector<KernelConfig> out;
  for (auto k : request_.kernels) out.push_back(default_config(k));
  const KernelConfig library = default_parameters(device_.info, request_.problem).config;
  if (tunes(kind_of(library))) out.push_back(library);
  out.insert(out.end(), seeds_.begin(), seeds_.end());
  if (drift_.has_reference()) out.push_back(drift_.reference());
  return out;
}

// They are the summary's reference points and teach the search nothing, so they come last and
// do not take its time. Together they get at most kBaselinesShare of the tune so far: each half
// of it, less one restart of the worker (the one after the first baseline's stopped run, as
// long as the last start took: 2 s at 4096^3, where 2 % each made 5.8 %); a first run past
// that is stopped, and its time stored as a lower bound (Timeout). The faster (classic) goes first.
void TuneSession::measure_baselines() {
  if (!request_.baselines) return;
  const auto tb = Clock::now();
  summary_.baseline_limit_s =
      request_.baseline_limit_s > 0
          ? request_.baseline_limit_s
          : std::max(1.0, (kBaselinesShare * elapsed_s() - evaluator_.start_seconds()) / 2);
  measure_references({ClassicConfig{}, NaiveConfig{}}, summary_.baseline_limit_s);
  summary_.baselines_s = std::chrono::duration<double>(Clock::now() - tb).count();
}

TuneSummary TuneSession::finish() {
  if (stop_) summary_.outcome = TuneOutcome::kInterrupted;
  open_->end(to_string(summary_.outcome));
  summary_.worker_restarts = evaluator_.restarts();
  summary_.build_s = search_build_s_ - startup_build_s_;
  summary_.verify_s = search_verify_s_ - startup_verify_s_;
  summary_.first_run_s = search_first_run_s_ - startup_first_run_s_;
  summary_.run_s = search_run_s_ - startup_run_s_;

  // The summary reads back what is stored, so its figures are the database's. Its best is the
  // fastest of the tuned kernels' bests (another kernel's, tuned before, is not this tune's).
  const std::string& key = device_.info.key;
  std::optional<BestRecord> best;
  for (const KernelKind k : request_.kernels) {
    const auto b = store_.best(key, request_.problem, kernel_name(k));
    if (b && (!best || b->median_ms < best->median_ms)) best = b;
  }
  const KernelConfig library = default_parameters(device_.info, request_.problem).config;
  const auto tuned = [&](KernelKind k) {
    return std::find(request_.kernels.begin(), request_.kernels.end(), k) != request_.kernels.end();
  };
  // Each compared configuration's stored rows: the one of median time among its Ok ones (a
  // resume that measured nothing again compares the same figure whatever run came first; its
  // first alone may be a start-up's, on a busy machine), else its first.
  const auto rows = store_.measurements(key, request_.problem);
  const auto stored = [&](const KernelConfig& c) -> std::optional<MeasurementRecord> {
    std::vector<const MeasurementRecord*> ok;
    const MeasurementRecord* first = nullptr;
    const std::string kernel = kernel_name(kind_of(c)), config = to_string(c);
    for (const auto& r : rows) {
      if (r.kernel != kernel || r.config != config) continue;
      if (!first) first = &r;
      if (r.result.status == Status::kOk) ok.push_back(&r);
    }
    if (ok.empty()) return first ? std::optional(*first) : std::nullopt;
    std::sort(ok.begin(), ok.end(), [](const auto* a, const auto* b) {
      return a->result.median_ms < b->result.median_ms;
    });
    return *ok[(ok.size() - 1) / 2];
  };
  for (const auto& r : rows) {
    if (best && r.id == best->measurement_id) summary_.best = r;
  }
  // A default is compared where its kernel is tuned: another kernel's was no finalist.
  if (tuned(KernelKind::kTiled)) {
    summary_.default_tiled = stored(default_config(KernelKind::kTiled));
  }
  if (tuned(KernelKind::kDirect)) {
    summary_.default_direct = stored(default_config(KernelKind::kDirect));
  }
  if (tuned(kind_of(library))) summary_.library_default = stored(library);
  summary_.naive = stored(default_config(KernelKind::kNaive));
  summary_.classic = stored(default_config(KernelKind::kClassic));
  // The defaults as measured side by side with the best in the confirmation, when they were:
  // the speed-ups then compare like with like, and the best never loses to a default.
  const auto confirmed_as = [&](const KernelConfig& c) -> std::optional<MeasurementRecord> {
    for (std::size_t i = 0; i < finalists_.size() && i < confirmed_.size(); ++i) {
      if (to_string(finalists_[i]) == to_string(c) && kind_of(finalists_[i]) == kind_of(c)) {
        return confirmed_[i];
      }
    }
    return std::nullopt;
  };
  if (auto r = confirmed_as(default_config(KernelKind::kTiled))) summary_.default_tiled = r;
  if (auto r = confirmed_as(default_config(KernelKind::kDirect))) summary_.default_direct = r;
  if (auto r = confirmed_as(library)) summary_.library_default = r;
  // A default that is the best is its own figure (1.00x): without a confirmation in this
  // session (a resume that measured nothing) its first stored run compared with its confirmed
  // median could say it was slower than itself.
  for (auto* slot :
       {&summary_.default_tiled, &summary_.default_direct, &summary_.library_default}) {
    if (*slot && summary_.best && (*slot)->kernel == summary_.best->kernel &&
        (*slot)->config == summary_.best->config) {
      *slot = summary_.best;
    }
  }
  // Evaluation wall time is building (parallel builds, as wall time), then running and
  // verifying; start-up (worker, reference, defaults and baselines) is reported on its own.
  summary_.run_s = std::max(0.0, summary_.run_s - summary_.build_s - summary_.verify_s);
  summary_.total_s = elapsed_s();
  return summary_;
}

}  // namespace mmtune
