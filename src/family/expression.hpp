// Arithmetic and boolean expressions over named numbers (a spec's parameters, problem sizes and
// device limits), parsed once and evaluated per configuration. muParser underneath: it only
// parses and evaluates, so a spec file cannot run code; names outside the scope are refused.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mu {
class Parser;
}

namespace mmtune {

// A malformed expression or a name it uses that is not in scope.
struct ExpressionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// An expression that evaluated to something that is not a number (a division by zero, a size
// that is not a whole number): that configuration cannot run, the spec is not wrong.
struct EvaluationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A function or constant of expressions (muParser's and ours): not a name for a variable.
bool is_expression_builtin(const std::string& name);

// The names an expression may use and their current values; expressions read the values when
// evaluated, so a caller sets one configuration and evaluates every expression on it.
class Scope {
 public:
  explicit Scope(std::vector<std::string> names);
  Scope(const Scope&) = delete;  // expressions point into the values
  Scope& operator=(const Scope&) = delete;

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::size_t index(const std::string& name) const;  // npos when not in scope
  const std::vector<std::string>& names() const { return names_; }
  void set(std::size_t i, double value) { values_[i] = value; }
  double* value(std::size_t i) { return &values_[i]; }

 private:
  std::vector<std::string> names_;
  std::unique_ptr<double[]> values_;
};

class Expression {
 public:
  // Throws ExpressionError naming the problem (syntax, an unknown name, an assignment).
  Expression(const std::string& text, Scope& scope);
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  const std::string& text() const { return text_; }
  // The names the expression uses, as indices into its scope.
  const std::vector<std::size_t>& uses() const { return uses_; }

  // The value on the scope's current values; throws EvaluationError when it is not finite.
  double evaluate() const;
  // A whole number >= minimum (sizes, counts); throws EvaluationError otherwise.
  long long evaluate_integer(long long minimum) const;
  // Non-zero is true (comparisons give 1 or 0).
  bool evaluate_condition() const { return evaluate() != 0.0; }

 private:
  std::string text_;
  std::unique_ptr<mu::Parser> parser_;
  std::vector<std::size_t> uses_;
};

}  // namespace mmtune
