// A declarative parameter space: the values each parameter may take and named constraints over
// them. Configurations are typed structs (one int member per parameter); names are used only to
// describe, render and parse them, never while searching.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace mmtune {

template <class Config>
struct Parameter {
  std::string name;         // also the -D define of the kernel
  int Config::*field;       // where the value lives in the typed configuration
  std::vector<int> values;  // allowed values in this space
  std::string help;
  // For a parameter added after configurations were stored: the value older texts meant by
  // leaving it out. The canonical text omits it at that value, so stored texts stay canonical.
  std::optional<int> absent = std::nullopt;
  // Read by the host only: left out of the build options, so its values share one binary.
  bool host_only = false;
};

template <class Config>
struct Constraint {
  std::string name;               // shown when a configuration is rejected, e.g. "KWG % KWI == 0"
  std::vector<std::string> uses;  // parameters it reads: it is checked once those are fixed
  std::function<bool(const Config&)> holds;
};

template <class Config>
class ParamSpace {
 public:
  ParamSpace(std::vector<Parameter<Config>> params, std::vector<Constraint<Config>> constraints)
      : params_(std::move(params)), constraints_(std::move(constraints)) {
    // A constraint is checked at the depth of the last parameter it reads, which prunes the
    // enumeration early instead of filtering the full product.
    for (const auto& c : constraints_) {
      std::size_t depth = 0;
      for (const auto& u : c.uses) depth = std::max(depth, index_of(u) + 1);
      if (depth == 0) throw std::logic_error("constraint '" + c.name + "' reads no parameter");
      by_depth_.resize(params_.size() + 1);
      by_depth_[depth].push_back(&c);
    }
    by_depth_.resize(params_.size() + 1);
  }
  ParamSpace(const ParamSpace& o) : ParamSpace(o.params_, o.constraints_) {}
  ParamSpace& operator=(const ParamSpace&) = delete;

  const std::vector<Parameter<Config>>& parameters() const { return params_; }
  const std::vector<Constraint<Config>>& constraints() const { return constraints_; }

  // Size of the cartesian product of all value sets.
  std::uint64_t product_size() const {
    std::uint64_t n = 1;
    for (const auto& p : params_) n *= p.values.size();
    return n;
  }

  // Every configuration that satisfies all constraints and `accept` (e.g. device limits), in a
  // deterministic order.
  std::vector<Config> enumerate(const std::function<bool(const Config&)>& accept = {}) const {
    std::vector<Config> out;
    Config c{};
    walk(0, c, [&](const Config& full) {
      if (!accept || accept(full)) out.push_back(full);
    });
    return out;
  }

  // Names of the constraints a configuration violates (empty: it satisfies all). A value
  // outside its set is named instead: the constraints hold only over the sets (several divide).
  std::vector<std::string> violations(const Config& c) const {
    std::vector<std::string> v;
    for (const auto& p : params_) {
      if (std::find(p.values.begin(), p.values.end(), c.*(p.field)) == p.values.end()) {
        v.push_back(p.name + " = " + std::to_string(c.*(p.field)) + " is not one of its values");
      }
    }
    if (!v.empty()) return v;
    for (const auto& con : constraints_) {
      if (!con.holds(c)) v.push_back(con.name);
    }
    return v;
  }

  // Whether every parameter holds one of its allowed values.
  bool in_value_sets(const Config& c) const {
    return std::all_of(params_.begin(), params_.end(), [&](const auto& p) {
      return std::find(p.values.begin(), p.values.end(), c.*(p.field)) != p.values.end();
    });
  }

  std::size_t index_of(const std::string& name) const {
    for (std::size_t i = 0; i < params_.size(); ++i) {
      if (params_[i].name == name) return i;
    }
    throw std::logic_error("unknown parameter '" + name + "'");
  }

 private:
  template <class F>
  void walk(std::size_t depth, Config& c, const F& emit) const {
    for (const auto* con : by_depth_[depth]) {
      if (!con->holds(c)) return;
    }
    if (depth == params_.size()) {
      emit(c);
      return;
    }
    if constexpr (!std::is_empty_v<Config>) {  // a parameterless kernel has one configuration
      for (int v : params_[depth].values) {
        c.*(params_[depth].field) = v;
        walk(depth + 1, c, emit);
      }
    }
  }

  std::vector<Parameter<Config>> params_;
  std::vector<Constraint<Config>> constraints_;
  std::vector<std::vector<const Constraint<Config>*>> by_depth_;
};

}  // namespace mmtune
