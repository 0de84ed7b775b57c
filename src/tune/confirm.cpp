// The confirmation: the finalists measured again side by side in rounds, and a close call
// between a kernel's two fastest measured again head to head.
#include <algorithm>
#include <limits>
#include <utility>

#include "tune/session.hpp"
#include "tune/session_detail.hpp"

namespace mmtune {

using namespace session_detail;

bool TuneSession::round_fits(double round_s) const {
  return !TimeLimit(confirmation_end_s()).reached({elapsed_s() + round_s, 0});
}

std::vector<std::optional<Measurement>> TuneSession::confirmation_round(
    const std::vector<KernelConfig>& configs) {
  // No early stop: every finalist runs its full repetitions in every round; one whose first
  // run alone takes over 3 s (a default far behind) is timed by that run.
  TimingOptions timing = search_timing(std::numeric_limits<double>::infinity());
  timing.slow_first_run_suffices = true;
  return measure(configs, timing);
}

// The search ranks each configuration by one measurement, taken while the machine's speed
// drifts (by up to a third within minutes on a shared CPU), so the fastest stored measurement is
// partly the luckiest one. A tune that measured nothing new (a repeat) has nothing to confirm.
void TuneSession::confirm() {
  const bool confirming = request_.finalists > 1 && request_.confirm_rounds > 0;
  if (confirming && !stop_ && summary_.evaluations > measured_before_search_) {
    std::vector<std::optional<BestRecord>> bests;
    for (auto k : request_.kernels) {
      bests.push_back(store_.best(device_.info.key, request_.problem, kernel_name(k)));
    }
    finalists_ = pick_finalists(known_, request_.kernels, bests, always_finalists(),
                                request_.finalists, *request_.families);
    // The search's fastest single measurement, for the summary to set beside the confirmed best.
    for (const auto& [k, m] : known_) {
      if (!is_searched(m.config) || m.record.result.status != Status::kOk ||
          m.record.session_id != summary_.session_id) {
        continue;
      }
      if (!summary_.search_fastest ||
          m.record.result.median_ms < summary_.search_fastest->result.median_ms) {
        summary_.search_fastest = m.record;
      }
    }
    std::vector<std::vector<MeasurementRecord>> rounds(finalists_.size());
    double round_s = 0;  // the last round's duration: the next one's estimate
    for (std::size_t round = 0; finalists_.size() > 1 && round < request_.confirm_rounds; ++round) {
      // One round even past the time limit (a batch of timeouts can overrun the search's
      // share): an unconfirmed best is the one outcome the confirmation exists to prevent. A
      // further round only when it ends within the limit.
      if (stop_ || (round > 0 && !round_fits(round_s))) break;
      const double round_start = elapsed_s();
      const auto results = confirmation_round(finalists_);
      round_s = elapsed_s() - round_start;
      for (std::size_t j = 0; j < finalists_.size(); ++j) {
        if (results[j]) keep_round(rounds[j], finalists_[j], *results[j], "confirming");
      }
      ++summary_.confirm_rounds;
    }
    confirmed_ = median_rounds(rounds);
    const double pair_s = finalists_.empty() ? 0 : 2 * round_s / double(finalists_.size());
    std::vector<CloseCall> decided;
    for (const CloseCall& call : close_calls(confirmed_, request_.close_call)) {
      if (request_.head_to_head_rounds == 0 || stop_) break;
      if (head_to_head(call, rounds, pair_s)) decided.push_back(call);
    }
    summary_.confirmed = std::size_t(std::count_if(confirmed_.begin(), confirmed_.end(),
                                                   [](const auto& r) { return r.has_value(); }));
    for (const auto& [kernel, r] : confirmed_bests(confirmed_, decided)) store_.set_best(r);
  }
  search_build_s_ = evaluator_.build_seconds();
  search_run_s_ = summary_.run_s;
  search_verify_s_ = summary_.verify_s;
  search_first_run_s_ = summary_.first_run_s;
}

void TuneSession::keep_round(std::vector<MeasurementRecord>& rounds, const KernelConfig& config,
                             const Measurement& m, const char* how) {
  rounds.push_back(record(config, m));
  ++summary_.confirm_evaluations;
  report(describe_result(rounds.back()) + " (" + how + ")");
}

// The two alone, in turn (the runner-up first: the rounds before measured the finalists in one
// order), each round only when it ends within the limit. Their median rounds then count all
// their rounds, and the faster is the best as in the confirmation: a default that wins stays it.
bool TuneSession::head_to_head(const CloseCall& call,
                               std::vector<std::vector<MeasurementRecord>>& rounds, double pair_s) {
  const std::size_t a = call.leader, b = call.runner_up;
  const std::string pair = kernel_name(kind_of(finalists_[a])) + " [" + to_string(finalists_[a]) +
                           "] and [" + to_string(finalists_[b]) + "]: a close call";
  if (stop_ || !round_fits(pair_s)) {
    report(pair + (stop_ ? "; the tune was stopped"
                         : "; another round would not end within the time limit"));
    return false;
  }
  report(pair + ", measured again head to head");
  ++summary_.close_calls;
  for (std::size_t round = 0; round < request_.head_to_head_rounds; ++round) {
    if (stop_ || (round > 0 && !round_fits(pair_s))) break;
    const std::size_t first = round % 2 == 0 ? b : a, second = round % 2 == 0 ? a : b;
    const double start = elapsed_s();
    const auto results = confirmation_round({finalists_[first], finalists_[second]});
    for (const auto& [j, r] : {std::pair{first, &results[0]}, std::pair{second, &results[1]}}) {
      if (*r) keep_round(rounds[j], finalists_[j], **r, "head to head");  // else stopped before it
    }
    if (!results[0] || !results[1]) break;
    pair_s = elapsed_s() - start;
    ++summary_.head_to_head_rounds;
  }
  confirmed_[a] = median_rounds({rounds[a]})[0];
  confirmed_[b] = median_rounds({rounds[b]})[0];
  return true;
}

}  // namespace mmtune
