// The spec parser's pieces (spec_parse.cpp, spec_sections.cpp): a reader of TOML nodes that
// turns every mistake into one line "FILE:LINE: KEY: what is wrong", and the section readers.
#pragma once

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "family/spec.hpp"
#include "mmtune/error.hpp"

namespace mmtune::spec_detail {

namespace fs = std::filesystem;

constexpr std::size_t kMaxValues = 4096;                // per parameter
constexpr std::size_t kMaxConfigurations = 10'000'000;  // the product of the value lists
// Each expression is compiled with every name in scope, so parameters x expressions is the
// parse's cost: a hostile 281 KB spec of 20,000 parameters and 4,000 constraints ran for
// minutes in gigabytes. Real spaces have tens of parameters (Xgemm: 14).
constexpr std::size_t kMaxParameters = 64;
constexpr std::size_t kMaxExpressions = 256;  // constraints; defines; arguments

inline bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 64 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Text that may follow -DNAME= on a compiler command line: a token, no spaces or quotes.
inline bool is_define_text(const std::string& s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
}

class Reader {
 public:
  explicit Reader(const fs::path& path) : path_(path), dir_(path.parent_path()) {}

  [[noreturn]] void fail(const toml::source_region& at, const std::string& key,
                         const std::string& what) const {
    std::string where = path_.string();
    if (at.begin.line) where += ":" + std::to_string(at.begin.line);
    throw UsageError(where + ": " + (key.empty() ? "" : key + ": ") + what);
  }
  std::string where(const toml::node& n, const std::string& key) const {
    return path_.string() + ":" + std::to_string(n.source().begin.line) + ": " + key;
  }

  // Every key of `t` must be one of `allowed`.
  void only(const toml::table& t, const std::string& context,
            std::initializer_list<const char*> allowed) const {
    for (auto&& entry : t) {
      const toml::key& k = entry.first;
      const bool known =
          std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return k.str() == a; });
      if (!known) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(k.source(), join(context, std::string(k.str())),
             "unknown key (known here: " + list + ")");
      }
    }
  }

  static std::string join(const std::string& context, const std::string& key) {
    return context.empty() ? key : context + "." + key;
  }

  std::string string(const toml::node& n, const std::string& key) const {
    if (const auto s = n.value<std::string>()) {
      if (s->size() > 4096) fail(n.source(), key, "longer than 4096 characters");
      return *s;
    }
    fail(n.source(), key, "expected a string");
  }

  const toml::array& array(const toml::node& n, const std::string& key) const {
    if (const auto* a = n.as_array()) return *a;
    fail(n.source(), key, "expected an array");
  }

  const toml::table& table(const toml::node& n, const std::string& key) const {
    if (const auto* t = n.as_table()) return *t;
    fail(n.source(), key, "expected a table");
  }

  long long integer(const toml::node& n, const std::string& key, long long lo, long long hi) const {
    const auto v = n.value_exact<std::int64_t>();
    if (!v) fail(n.source(), key, "expected an integer");
    if (*v < lo || *v > hi) {
      fail(n.source(), key,
           std::to_string(*v) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    return *v;
  }

  double number(const toml::node& n, const std::string& key) const {
    const auto v = n.value<double>();  // integers convert where a double holds them exactly
    if (!v && n.is_integer()) {
      fail(n.source(), key,
           "an integer beyond 2^53 is read as a double only where exact: write it as a float "
           "literal (e.g. 1.0e16) to have it rounded");
    }
    if (!v || !std::isfinite(*v)) fail(n.source(), key, "expected a finite number");
    return *v;
  }

  // An expression: a string, or an integer written as a number.
  SpecExpr expr(const toml::node& n, const std::string& key) const {
    if (n.is_integer()) {
      return {std::to_string(integer(n, key, -(1LL << 53), 1LL << 53)), where(n, key)};
    }
    if (!n.is_string()) fail(n.source(), key, "expected an expression (a string or an integer)");
    return {string(n, key), where(n, key)};
  }

  std::vector<SpecExpr> exprs(const toml::node& n, const std::string& key, std::size_t lo,
                              std::size_t hi) const {
    const auto& a = array(n, key);
    if (a.size() < lo || a.size() > hi) {
      fail(n.source(), key,
           "expected " + std::to_string(lo) + " to " + std::to_string(hi) + " expressions");
    }
    std::vector<SpecExpr> out;
    for (std::size_t i = 0; i < a.size(); ++i) {
      out.push_back(expr(*a.get(i), key + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  // A file named relative to the spec; it must exist.
  fs::path file(const toml::node& n, const std::string& key) const {
    const std::string name = string(n, key);
    if (name.empty()) fail(n.source(), key, "empty file name");
    fs::path p = fs::path(name).is_absolute() ? fs::path(name) : dir_ / name;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) fail(n.source(), key, "no such file: " + p.string());
    return p;
  }

  std::string identifier(const toml::node& n, const std::string& key) const {
    const std::string s = string(n, key);
    if (!is_identifier(s)) {
      fail(n.source(), key, "'" + s + "' is not an identifier (letters, digits, _; 1-64)");
    }
    return s;
  }

 private:
  fs::path path_, dir_;
};

SpecType parse_type(const Reader& r, const toml::node& n, const std::string& key);
void read_parameters(const Reader& r, const toml::table& t, KernelSpec& spec);
SpecLaunch read_launch(const Reader& r, const toml::table& t);
SpecArgument read_argument(const Reader& r, const toml::table& t, const std::string& key);
SpecVerification read_verification(const Reader& r, const toml::table& t);

}  // namespace mmtune::spec_detail
