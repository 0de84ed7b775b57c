// A spec tune in steps that read straight through: the valid configurations become a search
// space (SpecSpace), the store's rows of this landscape are read once for the search
// (KnownResults), the strategy searches, and the fastest few are confirmed.
#include "tune/spec_session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <span>

#include "family/spec_space.hpp"
#include "mmtune/error.hpp"
#include "search/strategy.hpp"
#include "tune/evaluator.hpp"
#include "tune/open_session.hpp"

namespace mmtune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A configuration as the strategies see it, and back: numbers as themselves (their order and
// distances mean something), strings as their position in the spec's list, and the numbers of
// a parameter with a value beyond int by their rank among its values (run takes such values, so
// tune must too).
class SearchValues {
 public:
  explicit SearchValues(const KernelSpec& spec) {
    for (const auto& param : spec.parameters) {
      const auto& v = param.values;
      const bool by_order =
          param.numeric() && std::any_of(v.begin(), v.end(), [](long long x) {
            return x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max();
          });
      auto& out = of_.emplace_back();
      for (std::size_t j = 0; j < param.size(); ++j) {
        if (!param.numeric()) {
          out.push_back(int(j));
        } else if (!by_order) {
          out.push_back(int(v[j]));
        } else {  // at most kMaxValues of them
          out.push_back(
              int(std::count_if(v.begin(), v.end(), [&](long long w) { return w < v[j]; })));
        }
      }
    }
  }
  void append(const SpecPoint& p, std::vector<int>& out) const {
    for (std::size_t d = 0; d < p.size(); ++d) out.push_back(of_[d][p[d]]);
  }
  SpecPoint point(std::span<const int> q) const {
    SpecPoint p;
    for (std::size_t d = 0; d < q.size(); ++d) {
      p.push_back(std::size_t(std::find(of_[d].begin(), of_[d].end(), q[d]) - of_[d].begin()));
    }
    return p;
  }

 private:
  std::vector<std::vector<int>> of_;  // per parameter, per value: the strategies' number
};

std::vector<std::string> parameter_names(const KernelSpec& spec) {
  std::vector<std::string> names;
  for (const auto& p : spec.parameters) names.push_back(p.name);
  return names;
}

// The valid configurations of a spec on a device, held only as the strategies' points: a space
// of 10^7 takes 4 x parameters + 8 to 16 bytes per configuration. Texts are made on demand.
class SpecSpace {
 public:
  SpecSpace(const KernelSpec& spec, const std::vector<long long>& sizes, const DeviceInfo& device)
      : instance_(spec, sizes, &device), values_(spec), space_(build(spec, device)) {}
  // The instance keeps a reference to the spec: a temporary would dangle.
  SpecSpace(KernelSpec&&, const std::vector<long long>&, const DeviceInfo&) = delete;

  SpecInstance& instance() { return instance_; }
  const SearchSpace& space() const { return space_; }
  std::string text(std::size_t i) const {
    return instance_.to_text(values_.point(space_.point(i)));
  }
  // A stored configuration's index, if it is one of the valid configurations: by value, so
  // that a text written otherwise (an import) is still the same configuration.
  std::optional<std::size_t> index(const std::string& text) const {
    std::vector<int> q;
    try {
      values_.append(instance_.parse(text), q);
    } catch (const UsageError&) {  // a value the spec no longer lists
      return std::nullopt;
    }
    return space_.find(q);
  }

 private:
  SearchSpace build(const KernelSpec& spec, const DeviceInfo& device) {
    std::vector<int> values;
    std::string why_none;
    const std::size_t count = instance_.for_each_valid(
        [&](const SpecPoint& p) {
          values_.append(p, values);
          return true;
        },
        &why_none);
    if (count == 0) {
      throw UsageError("no configuration of " + spec.path.string() + " can run on " + device.name +
                       " for these sizes: " + why_none);
    }
    values.shrink_to_fit();  // growth left up to half of it unused, for the whole tune
    return SearchSpace::end_to_end(parameter_names(spec), std::move(values));
  }

  SpecInstance instance_;
  SearchValues values_;
  SearchSpace space_;
};

// The store's rows of this landscape, each with the index of its configuration in the space
// (none: not a valid one now): read and parsed once for the search, and again for the
// confirmation, which also ranks what the search and other tuners stored meanwhile.
class KnownResults {
 public:
  KnownResults(std::vector<MeasurementRecord> rows, const SpecSpace& space)
      : rows_(std::move(rows)) {
    for (auto& m : rows_) {
      index_.push_back(space.index(m.config));
      // Rows stored before configurations were ranked by their kernel's time held the wall
      // time around each launch (5-10x a small kernel's): their kernel's time ranks them with
      // today's.
      auto& t = m.result;
      if (t.kernel_median_ms > 0 && t.kernel_median_ms < t.median_ms) {
        t.median_ms = t.kernel_median_ms;
      }
    }
  }
  // Per configuration its fastest observed time (nothing only when none was timed), in the
  // order they were first stored: what a replay would know.
  std::vector<Observation> observations() const {
    std::vector<Observation> seen;
    std::map<std::size_t, std::size_t> position;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      if (!index_[r]) continue;
      const auto t = observed_time(rows_[r].result);
      const auto [it, first] = position.emplace(*index_[r], seen.size());
      if (first) {
        seen.push_back({*index_[r], t});
      } else if (auto& known = seen[it->second].time; t && (!known || *t < *known)) {
        known = t;
      }
    }
    return seen;
  }
  // The fastest successful time of a configuration of the space: a row the spec cannot run (an
  // import, a hand-written best) says nothing of what the space reaches, and its time would stop
  // every run early.
  double best_ms() const {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      if (const auto t = ok_time(rows_[r].result); index_[r] && t) {
        best = std::min(best, *t);
      }
    }
    return best;
  }
  // The indices of the n configurations with the fastest successful runs, fastest first.
  std::vector<std::size_t> fastest(std::size_t n) const {
    std::map<std::size_t, double> ms;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      if (!index_[r] || !ok_time(rows_[r].result)) continue;
      const auto [it, first] = ms.emplace(*index_[r], rows_[r].result.median_ms);
      if (!first) it->second = std::min(it->second, rows_[r].result.median_ms);
    }
    std::vector<std::pair<double, std::size_t>> ranked;
    for (const auto& [i, t] : ms) ranked.emplace_back(t, i);
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < ranked.size() && k < n; ++k) out.push_back(ranked[k].second);
    return out;
  }

 private:
  std::vector<MeasurementRecord> rows_;
  std::vector<std::optional<std::size_t>> index_;
};

EvaluatorOptions evaluator_options(const Device& device, const KernelSpec& spec,
                                   const SpecTuneRequest& r, const TuneEnvironment& env) {
  EvaluatorOptions eo;
  eo.worker_argv = env.worker_argv;
  eo.device_index = device.info.index;
  eo.device_key = device.info.key;
  eo.program_dir = env.program_dir;
  eo.problem = spec_problem(r.sizes);
  eo.spec_path = std::filesystem::absolute(spec.path).string();
  eo.spec_sizes = r.sizes;
  eo.parallel_builds = env.parallel_builds;
  eo.build_limit_s = env.build_limit_s;
  eo.first_run_extra_s = env.first_run_extra_s;
  return eo;
}

// One session's measuring: each result is stored and counted.
class SpecMeasurer {
 public:
  SpecMeasurer(const Device& device, Store& store, const KernelSpec& spec, const SpecTuneRequest& r,
               const TuneEnvironment& env, SpecTuneSummary& out)
      : device_(device),
        store_(store),
        problem_(spec_problem(r.sizes)),
        evaluator_(evaluator_options(device, spec, r, env)),
        out_(out) {}

  // Nothing when interrupted mid-variant.
  std::optional<MeasurementRecord> measure(const std::string& text, const TimingOptions& timing,
                                           double run_s, const std::atomic<bool>& stop,
                                           double slow_first_run_s = 0) {
    const auto res = evaluator_.evaluate(std::vector<Evaluator::Item>{{out_.kernel, text}}, timing,
                                         run_s, &stop, slow_first_run_s);
    if (!res[0]) return std::nullopt;
    MeasurementRecord rec;
    rec.session_id = out_.session_id;
    rec.device_key = device_.info.key;
    rec.kernel = out_.kernel;
    rec.config = text;
    rec.problem = problem_;
    rec.result = *res[0];
    rec.id = store_.add_measurement(rec);
    ++out_.evaluations;
    ++out_.by_status[rec.result.status];
    return rec;
  }
  std::size_t restarts() const { return evaluator_.restarts(); }
  void start() { evaluator_.start_worker(); }

 private:
  const Device& device_;
  Store& store_;
  GemmProblem problem_;
  Evaluator evaluator_;
  SpecTuneSummary& out_;
};

// The search: one configuration at a time, each told to the strategy as it is stored.
// best_ms: the fastest time known before it (infinity: none).
TuneOutcome search(Strategy& strategy, const SpecSpace& space, SpecMeasurer& measurer,
                   const SpecTuneRequest& r, std::size_t done, double best_ms,
                   Clock::time_point start, const std::atomic<bool>& stop) {
  // The confirmation gets the last tenth of a time limit.
  const Interrupted interrupted(stop);
  const TimeLimit time_limit(r.time_limit_s > 0 ? 0.9 * r.time_limit_s : 0.0);
  const Budget budget(r.budget);
  const StopCondition* const conditions[] = {&interrupted, &time_limit, &budget};
  while (true) {
    const SearchState state{seconds_since(start), done};
    const auto hit = std::find_if(std::begin(conditions), std::end(conditions),
                                  [&](const StopCondition* c) { return c->reached(state); });
    if (hit != std::end(conditions)) return (*hit)->outcome();
    const std::vector<std::size_t> ask = strategy.ask(1);
    if (ask.empty()) return TuneOutcome::kCompleted;  // the space is exhausted
    TimingOptions timing;
    if (std::isfinite(best_ms)) timing.early_stop_ms = 3.0 * best_ms;
    const RunLimits limits = run_limits(best_ms);
    const auto rec =
        measurer.measure(space.text(ask[0]), timing, limits.run_s, stop, limits.slow_first_run_s);
    if (!rec) return TuneOutcome::kInterrupted;  // mid-variant
    const auto t = observed_time(rec->result);
    if (const auto ok = ok_time(rec->result)) best_ms = std::min(best_ms, *ok);
    strategy.tell({Observation{ask[0], t}});
    ++done;
  }
}

// The confirmation: the fastest few, the stored best and the default, side by side in rounds;
// the fastest median round becomes the best. By index: a configuration stored under another
// text (an import) is still one finalist, measured under its canonical text.
void confirm(SpecSpace& space, const KnownResults& known, SpecMeasurer& measurer, Store& store,
             const Device& device, const KernelSpec& spec, const SpecTuneRequest& r,
             Clock::time_point start, const std::atomic<bool>& stop, SpecTuneSummary& out) {
  // One finalist is none, as in a GEMM tune (--finalists "0 or 1: none").
  if (r.finalists <= 1 || r.confirm_rounds == 0) return;
  const GemmProblem problem = spec_problem(r.sizes);
  std::vector<std::string> finalists;
  for (const std::size_t i : known.fastest(r.finalists)) finalists.push_back(space.text(i));
  if (const auto b = store.best(device.info.key, problem, out.kernel)) {
    // A best outside the spec's space (an import, an older spec) is no configuration to run.
    if (const auto i = space.index(b->config)) finalists.push_back(space.text(*i));
  }
  SpecInstance& instance = space.instance();
  std::string default_text;
  if (!spec.default_config.empty()) {
    default_text = instance.to_text(instance.parse(spec.default_config));
    if (instance.violation(instance.parse(default_text)).empty()) {
      finalists.push_back(default_text);
    }
  }
  std::sort(finalists.begin(), finalists.end());
  finalists.erase(std::unique(finalists.begin(), finalists.end()), finalists.end());
  if (finalists.empty()) return;

  std::map<std::string, std::vector<MeasurementRecord>> rounds;
  std::size_t rounds_run = 0;
  double round_s = 0;  // the last round's duration: the next one's estimate
  for (std::size_t round = 0; round < r.confirm_rounds && !stop; ++round) {
    // As in the GEMM session: one round even past the time limit (an unconfirmed best is what
    // the confirmation prevents), a further one only when it ends within the limit.
    if (round > 0 && r.time_limit_s > 0 && seconds_since(start) + round_s > r.time_limit_s) break;
    const double round_start = seconds_since(start);
    // Each round starts one finalist later: none is always measured first (or last).
    bool whole = true;
    std::map<std::string, MeasurementRecord> this_round;
    for (std::size_t i = 0; i < finalists.size() && whole; ++i) {
      const std::string& text = finalists[(i + round) % finalists.size()];
      const auto rec = measurer.measure(text, TimingOptions{}, 60.0, stop);
      whole = rec.has_value();  // nothing: interrupted
      if (rec && rec->result.status == Status::kOk) this_round.emplace(text, *rec);
    }
    round_s = seconds_since(start) - round_start;
    if (!whole) break;  // an interrupted round decides nothing (its rows are stored)
    for (auto& [text, rec] : this_round) rounds[text].push_back(std::move(rec));
    ++rounds_run;
  }
  out.confirm_rounds = rounds_run;
  // Each finalist's median round; a finalist that failed a round is out.
  std::optional<MeasurementRecord> winner;
  for (const auto& [text, recs] : rounds) {
    if (rounds_run == 0 || recs.size() < rounds_run) continue;
    std::vector<double> ms;
    for (const auto& rec : recs) ms.push_back(rec.result.median_ms);
    const double med = median(ms);
    const auto it = std::min_element(recs.begin(), recs.end(), [&](const auto& a, const auto& b) {
      return std::fabs(a.result.median_ms - med) < std::fabs(b.result.median_ms - med);
    });
    if (text == default_text) out.default_config = *it;
    if (!winner || it->result.median_ms < winner->result.median_ms) winner = *it;
  }
  if (winner) store.set_best(*winner);
}

}  // namespace

GemmProblem spec_problem(const std::vector<long long>& sizes) {
  GemmProblem p;
  p.m = sizes.size() > 0 ? std::size_t(sizes[0]) : 1;
  p.n = sizes.size() > 1 ? std::size_t(sizes[1]) : 1;
  p.k = sizes.size() > 2 ? std::size_t(sizes[2]) : 1;
  return p;
}

SpecTuneSummary tune_spec(const Device& device, Store& store, const KernelSpec& spec,
                          const SpecTuneRequest& r, const TuneEnvironment& env,
                          const std::atomic<bool>& stop) {
  const auto start = Clock::now();
  SpecTuneSummary out;
  out.kernel = spec_kernel_name(spec);
  SpecSpace space(spec, r.sizes, device.info);
  out.space = space.space().size();
  const std::string strategy_name = r.strategy.empty() ? default_strategy() : r.strategy;
  StrategyOptions so;
  so.seed = r.seed;
  so.budget = r.budget;
  so.settings = r.strategy_settings;
  const auto strategy = make_strategy(strategy_name, space.space(), so);

  const GemmProblem problem = spec_problem(r.sizes);
  // The worker checks what needs the device (metrics, data files, the reference) before
  // anything is stored: a spec it refuses leaves the store as it was.
  SpecMeasurer measurer(device, store, spec, r, env, out);
  measurer.start();
  store.upsert_device(device.info);
  store.close_abandoned_sessions();
  SessionRecord session;
  session.device_key = device.info.key;
  session.command_line = r.command_line;
  session.strategy = strategy_name;
  session.kernels = out.kernel;
  session.space = "spec";
  session.seed = r.seed;
  session.budget = r.budget;
  session.time_limit_s = r.time_limit_s;
  session.problem = problem;
  out.session_id = store.begin_session(session);
  OpenSession session_end(store, out.session_id);

  // What the store already knows of this landscape is told to the strategy, not measured again.
  KnownResults known(store.measurements(device.info.key, problem, out.kernel), space);
  if (!r.fresh) {
    const auto seen = known.observations();
    strategy->seed(seen);
    out.reused = seen.size();
  }
  // As in the GEMM session, known results count against the budget.
  const TuneOutcome outcome =
      search(*strategy, space, measurer, r, out.reused, known.best_ms(), start, stop);
  if (!stop) {
    const KnownResults now(store.measurements(device.info.key, problem, out.kernel), space);
    confirm(space, now, measurer, store, device, spec, r, start, stop, out);
  }

  if (const auto b = store.best(device.info.key, problem, out.kernel)) {
    // As stored (the store keeps fewer fields than a measurement has).
    for (const auto& m : store.measurements(device.info.key, problem, out.kernel)) {
      if (m.id == b->measurement_id) out.best = m;
    }
  }
  out.outcome = stop ? TuneOutcome::kInterrupted : outcome;
  out.worker_restarts = measurer.restarts();
  session_end.end(to_string(out.outcome));
  out.total_s = seconds_since(start);
  return out;
}

}  // namespace mmtune
