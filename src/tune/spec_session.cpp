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
  SpecInstance instance(spec, r.sizes, &device.info);
  // The valid configurations only as the strategies' points: a space of 10^7 is held in
  // 4 x parameters + 8 to 16 bytes per configuration.
  const SearchValues search_values(spec);
  std::vector<int> values;
  std::string why_none;
  out.space = instance.for_each_valid(
      [&](const SpecPoint& p) {
        search_values.append(p, values);
        return true;
      },
      &why_none);
  values.shrink_to_fit();  // growth left up to half of it unused, for the whole tune
  if (out.space == 0) {
    throw UsageError("no configuration of " + spec.path.string() + " can run on " +
                     device.info.name + " for these sizes: " + why_none);
  }
  std::vector<std::string> names;
  for (const auto& p : spec.parameters) names.push_back(p.name);
  const SearchSpace space = SearchSpace::end_to_end(names, std::move(values));
  const auto text_of = [&](std::size_t i) {
    return instance.to_text(search_values.point(space.point(i)));
  };
  // A stored configuration's index in the space, if it is one of its valid configurations.
  const auto index_of = [&](const std::string& text) -> std::optional<std::size_t> {
    std::vector<int> q;
    try {
      search_values.append(instance.parse(text), q);
    } catch (const UsageError&) {  // a value the spec no longer lists
      return std::nullopt;
    }
    return space.find(q);
  };
  const std::string strategy_name = r.strategy.empty() ? default_strategy() : r.strategy;
  StrategyOptions so;
  so.seed = r.seed;
  so.budget = r.budget;
  so.settings = r.strategy_settings;
  const auto strategy = make_strategy(strategy_name, space, so);

  const GemmProblem problem = spec_problem(r.sizes);
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

  // What the store already knows of this landscape is told to the strategy, not measured again:
  // per configuration its fastest time, as a replay keeps it (nothing only when none was timed).
  if (!r.fresh) {
    std::vector<Observation> seen;  // in the order they were first stored
    std::map<std::size_t, std::size_t> position;
    for (const auto& m : store.measurements(device.info.key, problem, out.kernel)) {
      const auto i = index_of(m.config);
      if (!i) continue;
      const auto t = observed_time(m.result);
      const auto [it, first] = position.emplace(*i, seen.size());
      if (first) {
        seen.push_back({*i, t});
      } else if (auto& known = seen[it->second].time; t && (!known || *t < *known)) {
        known = t;
      }
    }
    strategy->seed(seen);
    out.reused = seen.size();
  }

  EvaluatorOptions eo;
  eo.worker_argv = env.worker_argv;
  eo.device_index = device.info.index;
  eo.device_key = device.info.key;
  eo.program_dir = env.program_dir;
  eo.problem = problem;
  eo.spec_path = std::filesystem::absolute(spec.path).string();
  eo.spec_sizes = r.sizes;
  eo.parallel_builds = env.parallel_builds;
  eo.build_limit_s = env.build_limit_s;
  eo.first_run_extra_s = env.first_run_extra_s;
  Evaluator evaluator(eo);

  const auto store_result = [&](const std::string& text, const Measurement& m) {
    MeasurementRecord rec;
    rec.session_id = out.session_id;
    rec.device_key = device.info.key;
    rec.kernel = out.kernel;
    rec.config = text;
    rec.problem = problem;
    rec.result = m;
    rec.id = store.add_measurement(rec);
    ++out.evaluations;
    ++out.by_status[m.status];
    return rec;
  };

  // The search: the confirmation gets the last tenth of a time limit.
  const double search_limit = r.time_limit_s > 0 ? 0.9 * r.time_limit_s : 0.0;
  const Interrupted interrupted(stop);
  const TimeLimit time_limit(search_limit);
  const Budget budget(r.budget);
  const StopCondition* const conditions[] = {&interrupted, &time_limit, &budget};
  double best_ms = std::numeric_limits<double>::infinity();
  for (const auto& m : store.measurements(device.info.key, problem, out.kernel)) {
    if (const auto t = observed_time(m.result); t && m.result.status == Status::kOk) {
      best_ms = std::min(best_ms, *t);
    }
  }
  TuneOutcome outcome = TuneOutcome::kCompleted;
  std::size_t done = out.reused;  // as in the GEMM session: known results count against the budget
  while (true) {
    const SearchState state{seconds_since(start), done};
    const auto hit = std::find_if(std::begin(conditions), std::end(conditions),
                                  [&](const StopCondition* c) { return c->reached(state); });
    if (hit != std::end(conditions)) {
      outcome = (*hit)->outcome();
      break;
    }
    const std::vector<std::size_t> ask = strategy->ask(1);
    if (ask.empty()) break;  // the space is exhausted
    TimingOptions timing;
    if (std::isfinite(best_ms)) timing.early_stop_ms = 3.0 * best_ms;
    const RunLimits limits = run_limits(best_ms);
    const auto results =
        evaluator.evaluate(std::vector<Evaluator::Item>{{out.kernel, text_of(ask[0])}}, timing,
                           limits.run_s, &stop, limits.slow_first_run_s);
    if (!results[0]) break;  // interrupted mid-variant
    store_result(text_of(ask[0]), *results[0]);
    const auto t = observed_time(*results[0]);
    if (t && results[0]->status == Status::kOk) best_ms = std::min(best_ms, *t);
    strategy->tell({Observation{ask[0], t}});
    ++done;
  }

  // The confirmation: the fastest few, the stored best and the default, side by side in rounds.
  // By index: a configuration stored under another text (an import) is still one finalist.
  std::vector<std::pair<double, std::size_t>> ranked;
  std::map<std::size_t, double> fastest;
  for (const auto& m : store.measurements(device.info.key, problem, out.kernel)) {
    const auto i = m.result.status == Status::kOk ? index_of(m.config) : std::nullopt;
    if (!i) continue;
    auto [it, fresh_entry] = fastest.emplace(*i, m.result.median_ms);
    if (!fresh_entry) it->second = std::min(it->second, m.result.median_ms);
  }
  for (const auto& [i, ms] : fastest) ranked.emplace_back(ms, i);
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> finalists;
  for (std::size_t i = 0; i < ranked.size() && i < r.finalists; ++i) {
    finalists.push_back(text_of(ranked[i].second));
  }
  if (const auto b = store.best(device.info.key, problem, out.kernel)) {
    const auto i = index_of(b->config);
    finalists.push_back(i ? text_of(*i) : b->config);
  }
  std::string default_text;
  if (!spec.default_config.empty()) {
    default_text = instance.to_text(instance.parse(spec.default_config));
    if (instance.violation(instance.parse(default_text)).empty()) {
      finalists.push_back(default_text);
    }
  }
  std::sort(finalists.begin(), finalists.end());
  finalists.erase(std::unique(finalists.begin(), finalists.end()), finalists.end());
  std::map<std::string, std::vector<MeasurementRecord>> rounds;
  if (r.finalists > 0 && r.confirm_rounds > 0 && !finalists.empty() && !stop) {
    for (std::size_t round = 0; round < r.confirm_rounds && !stop; ++round) {
      // Each round starts one finalist later: none is always measured first (or last).
      for (std::size_t i = 0; i < finalists.size(); ++i) {
        const std::string& text = finalists[(i + round) % finalists.size()];
        const auto res = evaluator.evaluate(std::vector<Evaluator::Item>{{out.kernel, text}},
                                            TimingOptions{}, 60.0, &stop);
        if (!res[0]) break;
        const auto rec = store_result(text, *res[0]);
        if (res[0]->status == Status::kOk) rounds[text].push_back(rec);
      }
    }
  }
  // Each finalist's median round; a finalist that failed a round is out.
  std::optional<MeasurementRecord> winner;
  for (const auto& [text, recs] : rounds) {
    if (recs.size() < r.confirm_rounds) continue;
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
  if (const auto b = store.best(device.info.key, problem, out.kernel)) {
    for (const auto& m : store.measurements(device.info.key, problem, out.kernel)) {
      if (m.id == b->measurement_id) out.best = m;
    }
  }
  out.outcome = stop ? TuneOutcome::kInterrupted : outcome;
  out.worker_restarts = evaluator.restarts();
  store.end_session(out.session_id, to_string(out.outcome));
  out.total_s = seconds_since(start);
  return out;
}

}  // namespace mmtune
