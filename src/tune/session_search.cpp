// The search phases of a tuning session (session.hpp): the searches, the warm start and the
// search loop, with the drift reference that keeps times measured minutes apart comparable.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "mmtune/error.hpp"
#include "mmtune/lookup.hpp"
#include "tune/finalists.hpp"
#include "tune/session.hpp"
#include "tune/session_detail.hpp"
#include "tune/warm_start.hpp"

namespace mmtune {

using namespace session_detail;

std::vector<KernelConfig> TuneSession::known_good() const {
  std::vector<KernelConfig> out;
  // A best stored in k slices runs k whole here where one slice covers k: the space holds only
  // that form (prepare_searches).
  const auto add = [&out, this](const KernelConfig& config) {
    const KernelConfig c = whole_k_variant(config, request_.problem).value_or(config);
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  const auto parsed = [&](const std::string& kernel, const std::string& config) {
    try {
      if (const auto kind = parse_kernel_kind(kernel, *request_.families))
        return std::optional(parse_config(*kind, config));
    } catch (const UsageError&) {  // a damaged row is not a candidate
    }
    return std::optional<KernelConfig>();
  };
  // The fastest stored configurations come from the largest shapes: the nearest come first.
  std::vector<KernelConfig> firsts;
  std::vector<KernelConfig> from_larger, from_smaller;  // bests of shapes with more, less work
  const double flops = request_.problem.flops();        // a call
  const auto take = [&](const Store::ShapeBest& b, const KernelConfig& c) {
    firsts.push_back(c);
    if (b.flops > flops) from_larger.push_back(c);
    if (b.flops < flops) from_smaller.push_back(c);
  };
  for (const auto& b : store_.nearest_bests(device_.info.key, request_.problem, 2)) {
    if (const auto c = parsed(b.kernel, b.config)) take(b, *c);
  }
  // The first tune of a precision starts from the other precisions' bests, their vectors and
  // tiles kept in bytes (lookup.hpp, precision_variant).
  const Precision here = request_.problem.precision;
  for (const Precision there : {Precision::kSingle, Precision::kDouble, Precision::kHalf}) {
    if (!firsts.empty() || there == here) continue;
    for (const auto& b : store_.nearest_bests(device_.info.key, request_.problem, 2, there)) {
      const auto c = parsed(b.kernel, b.config);
      if (!c) continue;
      if (const auto v = precision_variant(*c, there, here, device_.info)) take(b, *v);
    }
  }
  firsts.push_back(default_parameters(device_.info, request_.problem).config);
  if (copies_dominate(request_.problem)) {
    // Those were tuned where packing paid; here it may cost more than the product (4096x1x4096:
    // the first 10 evaluations had reached 0.21 of the tune's best): in place first, and before
    // that with the tile shrunk along C's short side (lookup.hpp, narrower_variant).
    std::vector<KernelConfig> in_place;
    for (const auto& c : firsts) {
      if (const auto v = in_place_variant(c)) {
        in_place.push_back(*v);
      } else if (const auto t = c.as<TiledConfig>(); t && !t->PACK) {
        in_place.push_back(c);  // a best of another skinny shape: narrower still
      }
    }
    for (const auto& c : in_place) {
      if (const auto v = narrower_variant(c, request_.problem)) add(*v);
    }
    for (const auto& c : in_place) add(c);
  }
  for (const auto& c : firsts) add(c);
  // Tuned at smaller k, they ran k whole; at large k in slices they may keep their panels cached.
  for (const auto& c : firsts) {
    if (const auto v = k_sliced_variant(c, request_.problem)) add(*v);
  }
  // Packing's fixed costs (its launches) weigh more in a shorter call than where they were
  // tuned: at 1000x700x333 (1.3 ms a call) the 1024^3 best ran 234 GFLOPS, in place 364.
  for (const auto& c : from_larger) {
    if (const auto v = in_place_variant(c)) add(*v);
  }
  // And the reverse, where packing can pay: at 1024^3 the 512^3 best ran 210 GFLOPS in place,
  // 352 packed (PACK=2), the tune's best 347 (side by side).
  if (!copies_dominate(request_.problem)) {
    for (const auto& c : from_smaller) {
      if (const auto v = packed_variant(c)) add(*v);
    }
  }
  for (const auto& [kernel, config] :
       store_.top_configs_elsewhere(device_.info.key, request_.problem, 6)) {
    if (const auto c = parsed(kernel, config)) add(*c);
  }
  return out;
}

void TuneSession::prepare_searches() {
  const GemmProblem& problem = request_.problem;
  for (auto k : request_.kernels) {
    KernelSearch s;
    s.kind = k;
    if (request_.candidates) {
      for (const auto& c : *request_.candidates) {
        if (kind_of(c) == k) s.configs.push_back(c);
      }
    } else {
      s.configs = enumerate(k, request_.space, &device_.info, problem.precision);
      // A k slice that covers all of k is the launch of k whole: measure only that one.
      const ColMajorProblem cp = to_col_major(problem);
      std::erase_if(s.configs, [&](const KernelConfig& c) {
        const std::size_t slice = k->launch(c, cp).k_slice;
        return slice != 0 && slice >= cp.k;
      });
    }
    if (s.configs.empty()) continue;
    std::vector<std::vector<int>> points;
    points.reserve(s.configs.size());
    for (const auto& c : s.configs) points.push_back(parameter_values(c));
    if (!request_.candidates) {  // a given candidate list is searched as it is
      // Around the library's default, whatever is stored: a resumed tune explores what the
      // interrupted one did.
      const KernelConfig library = default_parameters(device_.info, problem).config;
      const KernelConfig base = kind_of(library) == k ? library : default_config(k);
      s.switches = switch_variants(points, parameter_values(base));
    }
    s.space = std::make_unique<SearchSpace>(parameter_names(k), std::move(points));
    s.weight = k->search_weight();
    searches_.push_back(std::move(s));
  }
  double total_weight = 0;
  for (const auto& s : searches_) total_weight += s.weight;
  for (auto& s : searches_) {
    if (request_.budget) {
      s.limit = std::max<std::size_t>(
          1, std::size_t(std::llround(double(request_.budget) * s.weight / total_weight)));
    }
    s.strategy =
        make_strategy(strategy_, *s.space, {request_.seed, s.limit, request_.strategy_settings});
  }
}

std::vector<Observation> TuneSession::observe(KernelSearch& s,
                                              const std::vector<std::size_t>& picks) {
  std::vector<Observation> observations;
  std::vector<std::size_t> to_measure;
  for (std::size_t i : picks) {
    const auto it = known_.find({kernel_name(s.kind), to_string(s.configs[i])});
    if (it == known_.end()) {
      to_measure.push_back(i);
      continue;
    }
    // In the speed of the search's start, as the new measurements below.
    const auto t = observed_time(it->second.record.result);
    observations.push_back({i, t ? std::optional(*t / it->second.slowdown) : t});
    // "Reused from the database": measured before this session (a default or a seed measured
    // here is not).
    if (it->second.record.session_id != summary_.session_id) ++summary_.reused;
  }
  const auto started = Clock::now();
  std::size_t ran = 0;
  if (!to_measure.empty() && !stop_) {
    if (request_.drift && !drift_.has_reference()) start_drift();
    std::vector<KernelConfig> configs;
    for (std::size_t i : to_measure) configs.push_back(s.configs[i]);
    const auto results = measure(configs, search_timing(best_now_ms()));
    for (std::size_t j = 0; j < configs.size(); ++j) {
      if (!results[j]) continue;  // interrupted before this one
      const auto r = record(configs[j], *results[j]);
      const auto t = observed_time(r.result);
      const bool ok = r.result.status == Status::kOk;
      if (t && ok && request_.drift && !drift_.has_reference()) {
        drift_.start(configs[j], *t);  // nothing was known: the first that runs is the origin
      }
      // The strategy compares times in the machine's speed at the search's start.
      observations.push_back({to_measure[j], t ? std::optional(drift_.normalized(*t)) : t});
      drift_.measured(t, ok);
      report(describe_result(r));
      ++ran;
    }
  }
  follow_drift();  // its re-timing is part of the batch's cost
  if (!to_measure.empty()) s.charge(started, ran);
  s.done += observations.size();
  budget_done_ += observations.size();
  return observations;
}

std::optional<double> TuneSession::time_again(const KernelConfig& c, double expected_ms) {
  const auto results = measure({c}, search_timing(std::numeric_limits<double>::infinity()),
                               run_limits(std::max(expected_ms, best_now_ms())));
  if (!results[0]) return std::nullopt;  // interrupted
  const auto r = record(c, *results[0]);
  ++summary_.drift_evaluations;
  if (r.result.status != Status::kOk || r.result.median_ms <= 0) return std::nullopt;
  return r.result.median_ms;
}

void TuneSession::start_drift() {
  const KnownMeasurement* fastest = nullptr;
  for (const auto& [k, m] : known_) {
    if (!is_searched(m.config) || !ok_time(m.record.result)) continue;
    if (!fastest || m.record.result.median_ms / m.slowdown <
                        fastest->record.result.median_ms / fastest->slowdown) {
      fastest = &m;
    }
  }
  if (!fastest) return;
  const KernelConfig c = *fastest->config;  // `record` replaces the entry
  if (const auto ms = time_again(c, fastest->record.result.median_ms)) drift_.start(c, *ms);
}

double TuneSession::best_now_ms() const {
  // Never below a time actually measured: the drift's figure carries its re-timings' errors,
  // and an early-stop bound too low stops the best itself.
  return drift_.has_reference() ? std::max(best_ms_, drift_.best_now_ms()) : best_ms_;
}

void TuneSession::follow_drift() {
  if (stop_ || !drift_.has_reference() || !drift_.retime_due()) return;
  const KernelConfig reference = drift_.reference();
  const auto ms = time_again(reference, drift_.reference_now_ms());
  if (!ms) {
    // A reference that no longer runs Ok cannot measure the drift: the next batch starts anew.
    if (!stop_) drift_.reset();
    return;
  }
  drift_.retimed(*ms);
  // It was measured at the factor now known: rank it with it.
  const auto it = known_.find({kernel_name(kind_of(reference)), to_string(reference)});
  if (it != known_.end()) it->second.slowdown = drift_.factor();
  summary_.slowest = std::max(summary_.slowest, drift_.factor());
  summary_.fastest = std::min(summary_.fastest, drift_.factor());
}

void TuneSession::warm_start() {
  // The warm start is the search's beginning: what it measures is confirmed like the rest.
  measured_before_search_ = summary_.evaluations;
  const std::vector<KernelConfig> starts = known_good();
  for (auto& s : searches_) {
    std::vector<std::size_t> picks;
    const auto pick = [&](std::size_t i) {
      if (std::find(picks.begin(), picks.end(), i) == picks.end()) picks.push_back(i);
    };
    std::vector<KernelConfig> kept;
    for (const auto& c : starts) {
      if (kind_of(c) != s.kind) continue;
      if (const auto i = s.space->find(parameter_values(c))) {
        pick(*i);
        if (kept.size() < 3) kept.push_back(c);
      }
    }
    // Every code path once (warm_start.hpp), within a quarter of the kernel's budget.
    const std::size_t room = s.limit ? s.limit / 4 : s.switches.size();
    for (std::size_t j = 0; j < s.switches.size() && j < room; ++j) pick(s.switches[j]);
    // In the search's batches, the known-good seeds first. The first kernel's first batch (the
    // tune's best bets) runs whatever the time; any other only where it is expected to end within
    // the search's share: at 4096^3 on a CPU the direct kernel's batch of three first runs, each
    // stopped at its limit and followed by a restart of the worker, took 32 s, past the end of a
    // 3-minute tune.
    // The budget is a maximum: the picks, best bets first, get the kernel's share of it.
    std::vector<Observation> seen;
    for (std::size_t from = 0; from < picks.size();) {
      if (from > 0 && (stop_reached(false) || far_behind(s))) break;
      std::size_t n = std::min(batch_size(), picks.size() - from);
      if (s.limit) n = std::min(n, s.limit > s.done ? s.limit - s.done : 0);
      if (request_.budget) n = std::min(n, request_.budget - budget_done_);
      if (n == 0) break;
      if (from > 0 || &s != &searches_.front()) n = evaluations_that_fit(s, n);
      if (n == 0) {
        if (from == 0) no_time_left(s);
        break;
      }
      const auto first = picks.begin() + std::ptrdiff_t(from);
      const auto o = observe(s, {first, first + std::ptrdiff_t(n)});
      seen.insert(seen.end(), o.begin(), o.end());
      from += n;
    }
    s.strategy->seed(seen);
    // The first three seeds of each kernel (known_good(): the nearest shapes' bests, the
    // library's default, or their in-place forms) stay in play to the end when they ran Ok here.
    for (const auto& c : kept) {
      const auto it = known_.find({kernel_name(kind_of(c)), to_string(c)});
      if (it != known_.end() && it->second.record.result.status == Status::kOk) {
        seeds_.push_back(c);
      }
    }
  }
}

std::size_t TuneSession::batch_size() const {
  return std::max<std::size_t>(2, 2 * options_.parallel_builds);
}

std::optional<TuneOutcome> TuneSession::stop_reached(bool with_budget) const {
  // With a time limit, the search leaves the confirmation its estimated rounds (from the
  // finalists' times as they stand, 10-30 % of the limit) and the baselines a twentieth, so that
  // the whole tune keeps to the limit.
  const Interrupted interrupted(stop_);
  const TimeLimit time_limit(confirmation_end_s());
  const Budget budget(with_budget ? request_.budget : 0);
  const StopCondition* const conditions[] = {&interrupted, &time_limit, &budget};
  const SearchState state{elapsed_s() + search_reserve_s(), budget_done_};
  for (const StopCondition* c : conditions) {
    if (c->reached(state)) return c->outcome();
  }
  return std::nullopt;
}

bool TuneSession::far_behind(const KernelSearch& s) const {
  return searches_.size() > 1 && all_far_behind(known_, s.kind, summary_.session_id);
}

double TuneSession::search_reserve_s() const {
  const bool confirming = request_.finalists > 1 && request_.confirm_rounds > 0;
  return confirming ? confirmation_reserve_s() : 0.0;
}

double TuneSession::evaluation_estimate_s(const KernelSearch& s) const {
  // (The worker's start is 0 s before it first started: a repeat tune's first estimates.)
  const double bound = run_limits(best_now_ms()).slow_first_run_s + evaluator_.start_seconds();
  return s.measured ? std::min(s.measured_s / double(s.measured), bound) : bound;
}

std::size_t TuneSession::evaluations_that_fit(const KernelSearch& s, std::size_t n) const {
  if (request_.time_limit_s <= 0 || !std::isfinite(best_now_ms())) return n;
  const double end = confirmation_end_s() - search_reserve_s();
  const double left = end - elapsed_s(), each = evaluation_estimate_s(s);
  if (each <= 0) return n;
  const auto fit = std::size_t(std::min(double(n), std::max(0.0, left / each)));
  // Until this tune measured anything (a resume whose first batches were all stored), one
  // evaluation runs where time is left: with no cost to learn from, the bound (about 5 s) never
  // fit a short limit, and the same command stopped at its time limit each time, measuring
  // nothing. Only then: a resume's batches stay those of the run it resumes.
  if (fit == 0 && left > 0 &&
      std::none_of(searches_.begin(), searches_.end(),
                   [](const KernelSearch& k) { return k.measured > 0; })) {
    return std::min<std::size_t>(n, 1);
  }
  return fit;
}

void TuneSession::no_time_left(KernelSearch& s) {
  s.exhausted = s.out_of_time = true;
  // The last search to end is the tune's time limit, which the summary says.
  if (std::all_of(searches_.begin(), searches_.end(),
                  [](const KernelSearch& k) { return k.exhausted; })) {
    return;
  }
  char why[160];
  std::snprintf(why, sizeof why,
                ": its search ends here, another evaluation (about %.1f s) would not end within "
                "the time limit",
                evaluation_estimate_s(s));
  report(kernel_name(s.kind) + why);
}

TuneSession::KernelSearch* TuneSession::search_of(KernelKind kind) {
  for (auto& s : searches_) {
    if (s.kind == kind) return &s;
  }
  return nullptr;
}

void TuneSession::retire(KernelSearch& s) {
  hand_over(s);
  report(kernel_name(s.kind) + ": every evaluation ran over " + std::to_string(int(kFarBehind)) +
         "x slower than the fastest; its search ends here");
}

void TuneSession::hand_over(KernelSearch& s) {
  s.exhausted = true;
  // Its evaluations left go to the searches still running, by weight.
  const std::size_t left = s.limit > s.done ? s.limit - s.done : 0;
  double weight = 0;
  for (const auto& o : searches_) {
    if (!o.exhausted && o.limit) weight += o.weight;
  }
  for (auto& o : searches_) {
    if (!o.exhausted && o.limit && weight > 0) {
      o.limit += std::size_t(std::llround(double(left) * o.weight / weight));
    }
  }
}

void TuneSession::search() {
  summary_.outcome = TuneOutcome::kCompleted;
  while (true) {
    if (const auto reached = stop_reached(true)) {
      summary_.outcome = *reached;
      break;
    }
    for (auto& s : searches_) {
      if (!s.exhausted && far_behind(s)) retire(s);
    }
    KernelSearch* next = nullptr;
    for (auto& s : searches_) {
      if (s.exhausted || (s.limit && s.done >= s.limit)) continue;
      if (!next || double(s.done) / s.weight < double(next->done) / next->weight) next = &s;
    }
    if (!next) {  // every search spent its share, ran out of candidates or of time
      if (std::any_of(searches_.begin(), searches_.end(),
                      [](const KernelSearch& k) { return k.out_of_time; })) {
        summary_.outcome = TuneOutcome::kTimeLimit;
      }
      break;
    }
    std::size_t n = batch_size();
    if (next->limit) n = std::min(n, next->limit - next->done);
    if (request_.budget) n = std::min(n, request_.budget - budget_done_);
    n = evaluations_that_fit(*next, n);
    if (n == 0) {  // another kernel's evaluations may still fit
      no_time_left(*next);
      continue;
    }

    auto ts = Clock::now();
    const auto picks = next->strategy->ask(n);
    summary_.search_s += std::chrono::duration<double>(Clock::now() - ts).count();
    if (picks.empty()) {  // its space is spent: the other kernels get its share
      hand_over(*next);
      continue;
    }
    const auto observations = observe(*next, picks);
    ts = Clock::now();
    next->strategy->tell(observations);
    summary_.search_s += std::chrono::duration<double>(Clock::now() - ts).count();
  }
  if (Budget(request_.budget).reached({elapsed_s(), budget_done_}) &&
      summary_.outcome == TuneOutcome::kCompleted) {
    summary_.outcome = TuneOutcome::kBudget;
  }
}

}  // namespace mmtune
