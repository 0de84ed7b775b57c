// One tuning session as named phases over shared state (tuner.cpp runs them in order):
// start -> defaults -> searches and warm start -> search -> confirmation -> baselines -> finish.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "search/strategy.hpp"
#include "tune/drift.hpp"
#include "tune/evaluator.hpp"
#include "tune/finalists.hpp"
#include "tune/open_session.hpp"
#include "tune/stop.hpp"
#include "tune/tuner.hpp"

namespace mmtune {

class TuneSession {
 public:
  TuneSession(const Device& device, Store& store, const TuneRequest& request,
              const TuneEnvironment& env, const std::function<void(const TuneProgress&)>& progress,
              const std::atomic<bool>& stop);

  // Checks --kernels-dir's kernels and records the running session.
  void start();
  // Each kernel's default configuration, which gives the search a time to beat.
  void measure_defaults();
  // One search per kernel over its space, with its share of the budget and its strategy, then
  // the warm start, which every strategy learns from: the known-good configurations first
  // (known_good(); the first three of each kernel stay finalists), then one variant per code
  // path near the library's default.
  void prepare_searches();
  void warm_start();
  // Batches from the strategies, interleaved by weight, until a stop condition is reached or
  // every search is spent.
  void search();
  // The finalists measured again side by side in rounds; each kernel's best becomes its
  // finalist with the fastest median round; a close call between a kernel's two fastest
  // (finalists.hpp) is measured again head to head first (confirm.cpp).
  void confirm();
  // The slow naive and classic kernels, once per device and problem.
  void measure_baselines();
  // Ends the session and reads the summary back from the store.
  TuneSummary finish();

 private:
  struct KernelSearch {
    KernelKind kind = KernelKind::kTiled;
    std::vector<KernelConfig> configs;  // candidate i is point i of the space
    std::unique_ptr<SearchSpace> space;
    std::unique_ptr<Strategy> strategy;
    double weight = 1.0;                // share of the evaluations
    std::size_t limit = 0;              // evaluations allotted (0: unlimited)
    std::vector<std::size_t> switches;  // one configuration per code path (warm_start.hpp)
    std::size_t done = 0;
    bool exhausted = false;
    bool out_of_time = false;  // its next evaluation was not expected to end within the limit
    // What measuring its variants took here (builds, runs, worker restarts, the drift re-timing
    // after a batch; its kernel's default at start-up too): the estimate of the next ones.
    double measured_s = 0;
    std::size_t measured = 0;
    // Adds `evaluations` that took from `started` until now.
    void charge(std::chrono::steady_clock::time_point started, std::size_t evaluations) {
      measured_s +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      measured += evaluations;
    }
  };
  using Clock = std::chrono::steady_clock;

  double elapsed_s() const;
  bool tunes(KernelKind kind) const;  // one of the kernels this tune searches
  // Whether a confirmation round expected to take `round_s` ends within the time limit.
  bool round_fits(double round_s) const;
  // One round of the confirmation: `configs` measured in turn, with full repetitions.
  std::vector<std::optional<Measurement>> confirmation_round(
      const std::vector<KernelConfig>& configs);
  // Stores a confirmation run of `config` (`how`: its progress note) and appends it to `rounds`.
  void keep_round(std::vector<MeasurementRecord>& rounds, const KernelConfig& config,
                  const Measurement& m, const char* how);
  // A close call measured again head to head, appending to `rounds` (per finalist), the first
  // round expected to take `pair_s`; the two's entries of confirmed_ then count all their rounds.
  // False when no round fitted (or the tune was stopped): the call stays undecided.
  bool head_to_head(const CloseCall& call, std::vector<std::vector<MeasurementRecord>>& rounds,
                    double pair_s);
  // Configurations measured together (their builds run in parallel).
  std::size_t batch_size() const;
  // The search's stop condition reached now, if any (`with_budget` false: Ctrl-C and the time
  // limit only, as for the warm start, which keeps to each kernel's share of the budget itself).
  std::optional<TuneOutcome> stop_reached(bool with_budget) const;
  // The share of a time limit left to the baselines (they come last).
  double baseline_share() const;
  // When the search and the confirmation end: the time limit less the baselines' share (0: no
  // limit). The search ends search_reserve_s() before it.
  double confirmation_end_s() const;
  // What a confirmation round of the finalists as they stand now would take (from their known
  // times; 0 without a time limit or a confirmation), and the search's time left for it.
  double confirmation_round_s() const;
  double confirmation_reserve_s() const;
  // What the search leaves the confirmation: its reserve, or nothing when there is none.
  double search_reserve_s() const;
  // What one more evaluation of `s` is expected to take: its mean here, at most (and for a
  // kernel not measured yet) a first run stopped at its limit plus the worker's restart.
  double evaluation_estimate_s(const KernelSearch& s) const;
  // How many of n evaluations of `s` are expected to end before the search's share of the time
  // limit is spent (n without a time limit or before any searched time is known).
  std::size_t evaluations_that_fit(const KernelSearch& s, std::size_t n) const;
  KernelSearch* search_of(KernelKind kind);
  // Ends `s`'s search for want of time, saying so.
  void no_time_left(KernelSearch& s);
  void report(const std::string& last) const;
  // Stores one new measurement (committed at once) and accounts for it.
  MeasurementRecord record(const KernelConfig& config, const Measurement& m);
  // Searched variants get run_limits() of the best time now (best_now_ms); `limits` override them
  // (defaults: measured to the end, the limit only catches hangs; baselines: their share of the
  // tune).
  std::vector<std::optional<Measurement>> measure(const std::vector<KernelConfig>& configs,
                                                  const TimingOptions& timing,
                                                  std::optional<RunLimits> limits = {});
  // Reference configurations one at a time (each default can stop early against the ones
  // before it), skipping what the store holds. They do not count against the budget.
  // `baseline_limit_s` > 0: naive/classic, whose first run is stopped there.
  void measure_references(const std::vector<KernelConfig>& list, double baseline_limit_s = 0);
  // The best searched time as the machine runs now: the fastest measured, or the fastest in the
  // machine's speed now where that is slower (drift.hpp).
  double best_now_ms() const;
  // The drift's origin: the fastest searched configuration known, timed now.
  void start_drift();
  // A drift measurement of `c` with full repetitions, stored; its median when it ran Ok. Its
  // limits follow `expected_ms`, its own time now (the reference can be far slower than the best).
  std::optional<double> time_again(const KernelConfig& c, double expected_ms);
  // Re-times the reference when due and follows the machine's speed.
  void follow_drift();
  // Tells a search what the store holds for `picks` and measures the rest; returns what it
  // learned, in the order of `picks` where measured.
  std::vector<Observation> observe(KernelSearch& s, const std::vector<std::size_t>& picks);
  // Whether every evaluation of `s`'s kernel in this session, at least kRetireAfter of them,
  // ran more than kFarBehind times slower than the fastest (or failed): its search then ends
  // and the others get its share.
  bool far_behind(const KernelSearch& s) const;
  void retire(KernelSearch& s);
  // Ends `s`'s search (retired, or its strategy has nothing left to propose): its evaluations
  // left go to the searches still running, by weight.
  void hand_over(KernelSearch& s);
  // Finalists whatever the search saw of them: the defaults a user of this device already has
  // (each kernel's own and the consumer library's built-in choice, when it is one of the tuned
  // kernels), the warm start's known-good seeds and the drift reference (the incumbent).
  std::vector<KernelConfig> always_finalists() const;
  // Known-good starting points, most promising first: this device's bests at the two nearest
  // other tuned shapes (the nearest is what the consumer lookup hands a program), the library's
  // built-in default, their k-sliced forms, the in-place forms of the bests of shapes with more
  // work a call and the packed forms of those with less, then this device's fastest
  // configurations at other shapes; where the copies dominate (copies_dominate()), the in-place
  // forms of the first three before them all. Distinct, and the same when a tune of this shape
  // resumes.
  std::vector<KernelConfig> known_good() const;

  const Device& device_;
  Store& store_;
  const TuneRequest& request_;
  const TuneEnvironment& env_;
  const std::function<void(const TuneProgress&)>& progress_;
  const std::atomic<bool>& stop_;
  const Clock::time_point t0_;
  EvaluatorOptions options_;
  Evaluator evaluator_;
  TuneSummary summary_;
  std::string strategy_;
  std::optional<OpenSession> open_;  // ended as `failed` if an error ends the tune
  KnownMeasurements known_;
  double best_ms_;  // the fastest searched measurement, as measured
  Drift drift_;     // the reference re-timed during the search (drift.hpp)
  // The warm start's known-good configurations: finalists, whatever the search saw of them.
  std::vector<KernelConfig> seeds_;
  mutable std::string warning_;  // for the next progress report, once
  std::size_t budget_done_ = 0;
  std::size_t measured_before_search_ = 0;
  std::vector<KernelSearch> searches_;
  std::vector<KernelConfig> finalists_;
  std::vector<std::optional<MeasurementRecord>> confirmed_;  // per finalist: its median round
  // Time split: start-up (worker, reference, defaults and baselines) apart from the search.
  double startup_build_s_ = 0, startup_run_s_ = 0, startup_verify_s_ = 0, startup_first_run_s_ = 0;
  double search_build_s_ = 0, search_run_s_ = 0, search_verify_s_ = 0, search_first_run_s_ = 0;
};

}  // namespace mmtune
