// When a search stops: small condition objects checked before each batch (KTT's StopCondition is
// the model), each naming the outcome it gives the session.
#pragma once

#include <atomic>
#include <cstddef>

namespace mmtune {

// How a tuning session ended, as stored with it (sessions.outcome) and printed.
enum class TuneOutcome { kCompleted, kBudget, kTimeLimit, kInterrupted };
const char* to_string(TuneOutcome o);

// What the conditions look at.
struct SearchState {
  double elapsed_s = 0;         // since the session started
  std::size_t budget_done = 0;  // evaluations counted against the budget (measured or reused)
};

class StopCondition {
 public:
  virtual ~StopCondition() = default;
  virtual bool reached(const SearchState& s) const = 0;
  virtual TuneOutcome outcome() const = 0;
};

// Ctrl-C (or the caller's flag).
class Interrupted final : public StopCondition {
 public:
  explicit Interrupted(const std::atomic<bool>& flag) : flag_(flag) {}
  bool reached(const SearchState&) const override { return flag_; }
  TuneOutcome outcome() const override { return TuneOutcome::kInterrupted; }

 private:
  const std::atomic<bool>& flag_;
};

// The search's share of the time limit (0: none).
class TimeLimit final : public StopCondition {
 public:
  explicit TimeLimit(double seconds) : seconds_(seconds) {}
  bool reached(const SearchState& s) const override {
    return seconds_ > 0 && s.elapsed_s >= seconds_;
  }
  TuneOutcome outcome() const override { return TuneOutcome::kTimeLimit; }

 private:
  double seconds_;
};

// The evaluation budget (0: none).
class Budget final : public StopCondition {
 public:
  explicit Budget(std::size_t evaluations) : evaluations_(evaluations) {}
  bool reached(const SearchState& s) const override {
    return evaluations_ && s.budget_done >= evaluations_;
  }
  TuneOutcome outcome() const override { return TuneOutcome::kBudget; }

 private:
  std::size_t evaluations_;
};

}  // namespace mmtune
