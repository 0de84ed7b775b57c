#include "family/expression.hpp"

#include <muParser.h>

#include <cmath>
#include <cstdio>
#include <limits>

namespace mmtune {
namespace {

double mod(double a, double b) {
  return std::fmod(a, b);
}
double floor_of(double a) {
  return std::floor(a);
}
double ceil_of(double a) {
  return std::ceil(a);
}
// ceil(a / b): the number of b-sized pieces that cover a (grid sizes).
double ceil_div(double a, double b) {
  return std::ceil(a / b);
}

// muParser would let `x = 3` assign to a variable; a spec only reads its names.
bool has_assignment(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '=') continue;
    const char before = i ? text[i - 1] : ' ';
    const char after = i + 1 < text.size() ? text[i + 1] : ' ';
    if (after == '=') {
      ++i;  // "==": skip both
      continue;
    }
    if (before != '<' && before != '>' && before != '!' && before != '=') return true;
  }
  return false;
}

// Our functions and operator beside muParser's built-ins.
void define_functions(mu::Parser& p) {
  p.DefineFun("mod", mod);
  p.DefineFun("floor", floor_of);
  p.DefineFun("ceil", ceil_of);
  p.DefineFun("ceil_div", ceil_div);
  p.DefineOprt("%", mod, mu::prMUL_DIV, mu::oaLEFT, true);
}

}  // namespace

bool is_expression_builtin(const std::string& name) {
  mu::Parser p;
  define_functions(p);
  return p.GetFunDef().count(name) > 0 || p.GetConst().count(name) > 0;
}

Scope::Scope(std::vector<std::string> names)
    : names_(std::move(names)), values_(new double[names_.size() + 1]()) {}

std::size_t Scope::index(const std::string& name) const {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return i;
  }
  return npos;
}

Expression::Expression(const std::string& text, Scope& scope)
    : text_(text), parser_(std::make_unique<mu::Parser>()) {
  if (text.find_first_not_of(" \t") == std::string::npos) throw ExpressionError("empty expression");
  if (has_assignment(text)) {
    throw ExpressionError("'" + text + "': '=' assigns; compare with '=='");
  }
  try {
    define_functions(*parser_);
    for (std::size_t i = 0; i < scope.names().size(); ++i) {
      parser_->DefineVar(scope.names()[i], scope.value(i));
    }
    parser_->SetExpr(text);
    for (const auto& used : parser_->GetUsedVar()) uses_.push_back(scope.index(used.first));
    parser_->Eval();  // finds what parsing alone does not (e.g. a misplaced comma)
    if (parser_->GetNumResults() != 1) {
      throw ExpressionError("'" + text + "': one expression expected, not a list");
    }
  } catch (const mu::Parser::exception_type& e) {
    if (e.GetCode() == mu::ecUNASSIGNABLE_TOKEN) {
      throw ExpressionError("'" + text + "': unknown name '" + e.GetToken() + "'");
    }
    throw ExpressionError("'" + text + "': " + e.GetMsg());
  }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::evaluate() const {
  double v;
  try {
    v = parser_->Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw EvaluationError("'" + text_ + "': " + e.GetMsg());
  }
  if (!std::isfinite(v)) throw EvaluationError("'" + text_ + "' is not a finite number");
  return v;
}

long long Expression::evaluate_integer(long long minimum) const {
  const double v = evaluate();
  if (v != std::floor(v)) {
    throw EvaluationError("'" + text_ + "' = " + std::to_string(v) + " is not a whole number");
  }
  // Below 2^53 every integer is a double; 2^53 itself may be 2^53 + 1 rounded.
  if (std::fabs(v) >= 9007199254740992.0) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    throw EvaluationError("'" + text_ + "' = " + buf +
                          " is not below 2^53, where doubles skip integers");
  }
  const auto i = static_cast<long long>(v);
  if (i < minimum) {
    throw EvaluationError("'" + text_ + "' = " + std::to_string(i) + " is below " +
                          std::to_string(minimum));
  }
  return i;
}

}  // namespace mmtune
