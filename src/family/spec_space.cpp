#include "family/spec_space.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "mmtune/error.hpp"

namespace mmtune {
namespace {

constexpr long long kMaxSize = (1LL << 53) - 1;  // below 2^53 every integer is a double

std::vector<Expression> compile(const std::vector<SpecExpr>& list, Scope& scope) {
  std::vector<Expression> out;
  for (const auto& e : list) out.emplace_back(e.text, scope);
  return out;
}

bool uses_device(const Expression& e, std::size_t first_device, std::size_t devices) {
  return std::any_of(e.uses().begin(), e.uses().end(), [&](std::size_t i) {
    return i >= first_device && i < first_device + devices;
  });
}

// Why launch `l` cannot run on `device`: a work-group, local memory or buffers beyond its
// limits; empty when it can.
std::string beyond_device(const KernelSpec& spec, const DeviceInfo& device,
                          const SpecLaunchSizes& l) {
  std::size_t threads = 1;
  for (std::size_t d = 0; d < l.local.size(); ++d) {
    threads *= l.local[d];
    if (d < device.max_work_item_sizes.size() && l.local[d] > device.max_work_item_sizes[d]) {
      return "local size " + std::to_string(l.local[d]) + " in dimension " + std::to_string(d) +
             " exceeds the device's " + std::to_string(device.max_work_item_sizes[d]);
    }
  }
  if (threads > device.max_work_group_size) {
    return "work-group of " + std::to_string(threads) + " exceeds the device's " +
           std::to_string(device.max_work_group_size);
  }
  if (l.local_bytes > device.local_mem_bytes) {
    return std::to_string(l.local_bytes) + " bytes of local memory exceed the device's " +
           std::to_string(device.local_mem_bytes);
  }
  double total_bytes = 0;
  for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
    const auto& a = spec.arguments[i];
    if (a.kind != ArgumentKind::kBuffer) continue;
    const double bytes = double(l.argument_sizes[i]) * double(type_bytes(a.type));
    total_bytes += bytes;
    if (bytes > double(device.max_alloc_bytes)) {
      return a.size.where + ": buffer " + a.name + " of " + std::to_string(l.argument_sizes[i]) +
             " elements (" + std::to_string((long long)bytes) +
             " bytes) exceeds the device's largest allocation (" +
             std::to_string(device.max_alloc_bytes) + " bytes)";
    }
  }
  // Each buffer fits, but all of them at once must too (and the host keeps a copy of each).
  if (device.global_mem_bytes > 0 && total_bytes > double(device.global_mem_bytes)) {
    return "the buffers' " + std::to_string((long long)total_bytes) +
           " bytes together exceed the device's global memory (" +
           std::to_string(device.global_mem_bytes) + " bytes)";
  }
  return {};
}

// Converted regardless, 40000 as a short wrapped to a negative n, and kernel and reference
// agreed on doing nothing.
std::string scalar_outside_type(const KernelSpec& spec, const SpecLaunchSizes& l) {
  for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
    const auto& a = spec.arguments[i];
    if (a.kind != ArgumentKind::kScalar) continue;
    if (std::string why = unrepresentable(a.type, l.scalars[i]); !why.empty()) {
      return a.name + " = " + why;
    }
  }
  return {};
}

}  // namespace

std::vector<double> spec_device_values(const DeviceInfo& d) {
  const auto item = [&](std::size_t i) {
    return i < d.max_work_item_sizes.size() ? double(d.max_work_item_sizes[i]) : 1.0;
  };
  return {double(d.local_mem_bytes),
          double(d.max_work_group_size),
          item(0),
          item(1),
          item(2),
          double(d.compute_units),
          double(d.max_alloc_bytes),
          double(d.global_mem_bytes),
          double(d.preferred.float_),
          double(d.preferred.double_),
          double(d.preferred.int_),
          d.fp64 ? 1.0 : 0.0,
          d.image_support ? 1.0 : 0.0};
}

std::optional<double> spec_metric(const KernelSpec& spec, const std::optional<SpecExpr>& metric,
                                  const std::vector<long long>& sizes, const DeviceInfo& device) {
  if (!metric) return std::nullopt;
  // Over sizes and device limits only (spec_parse.cpp): one figure per problem.
  std::vector<std::string> names = spec.sizes;
  const auto& dev = spec_device_names();
  names.insert(names.end(), dev.begin(), dev.end());
  Scope scope(names);
  for (std::size_t i = 0; i < sizes.size() && i < spec.sizes.size(); ++i) {
    scope.set(i, double(sizes[i]));
  }
  const auto values = spec_device_values(device);
  for (std::size_t i = 0; i < values.size(); ++i) scope.set(spec.sizes.size() + i, values[i]);
  double v = 0;
  try {
    v = Expression(metric->text, scope).evaluate();
  } catch (const EvaluationError& e) {
    throw UsageError(metric->where + ": " + e.what());
  }
  // A count of operations or bytes: a negative one would be stored as a negative rate, and from
  // 2^53 on (9 PB in one run) it is no count a run makes but a wrong expression.
  if (!(v > 0 && v < 9007199254740992.0)) {
    std::ostringstream out;
    out << metric->where << ": '" << metric->text << "' is " << v
        << " for these sizes, not a count (0 < count < 2^53)";
    throw UsageError(out.str());
  }
  return v;
}

SpecInstance::SpecInstance(const KernelSpec& spec, const std::vector<long long>& sizes,
                           const DeviceInfo* device)
    : spec_(spec), device_(device) {
  if (sizes.size() != spec.sizes.size()) {
    std::string names;
    for (const auto& n : spec.sizes) names += (names.empty() ? "" : ",") + n;
    throw UsageError(spec.path.string() + " needs " + std::to_string(spec.sizes.size()) +
                     " size(s) (" + names + "), " + std::to_string(sizes.size()) + " given");
  }
  std::vector<std::string> names = spec.sizes;
  const auto& dev = spec_device_names();
  names.insert(names.end(), dev.begin(), dev.end());
  first_parameter_ = names.size();
  for (const auto& p : spec.parameters) names.push_back(p.name);
  scope_ = std::make_unique<Scope>(names);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 1 || sizes[i] > kMaxSize) {
      throw UsageError("size " + spec.sizes[i] + " = " + std::to_string(sizes[i]) +
                       " is outside 1.." + std::to_string(kMaxSize));
    }
    scope_->set(i, double(sizes[i]));
  }
  if (device) {
    const auto values = spec_device_values(*device);
    for (std::size_t i = 0; i < values.size(); ++i) scope_->set(spec.sizes.size() + i, values[i]);
  }
  // parse_spec_file compiled every expression already: these cannot fail.
  for (const auto& c : spec.constraints) {
    Expression e(c.text, *scope_);
    if (device || !uses_device(e, spec.sizes.size(), dev.size())) {
      constraints_.push_back(std::move(e));
      constraint_text_.push_back(c.text);
    }
  }
  for (const auto& [name, e] : spec.defines) defines_.emplace_back(e.text, *scope_);
  problem_ = compile(spec.launch.problem, *scope_);
  global_ = compile(spec.launch.global, *scope_);
  local_ = compile(spec.launch.local, *scope_);
  for (const auto& div : spec.launch.grid_div) grid_div_.push_back(compile(div, *scope_));
  reference_global_ = compile(spec.verification.global, *scope_);
  reference_local_ = compile(spec.verification.local, *scope_);
  for (const auto& a : spec.arguments) {
    arguments_.push_back(std::make_unique<Expression>(
        a.kind == ArgumentKind::kScalar ? a.value.text : a.size.text, *scope_));
  }
  const auto device_named = [&](const Expression& e) {
    return uses_device(e, spec.sizes.size(), dev.size());
  };
  const auto any_device_named = [&](const std::vector<Expression>& list) {
    return std::any_of(list.begin(), list.end(), device_named);
  };
  launch_uses_device_ = any_device_named(defines_) || any_device_named(problem_) ||
                        any_device_named(global_) || any_device_named(local_) ||
                        std::any_of(grid_div_.begin(), grid_div_.end(), any_device_named) ||
                        std::any_of(arguments_.begin(), arguments_.end(),
                                    [&](const auto& e) { return device_named(*e); });
}

SpecInstance::~SpecInstance() = default;

std::size_t SpecInstance::product() const {
  std::size_t n = 1;
  for (const auto& p : spec_.parameters) {
    if (n > std::numeric_limits<std::size_t>::max() / p.size()) {
      return std::numeric_limits<std::size_t>::max();
    }
    n *= p.size();
  }
  return n;
}

void SpecInstance::set(const SpecPoint& point) {
  for (std::size_t i = 0; i < spec_.parameters.size(); ++i) {
    const auto& p = spec_.parameters[i];
    scope_->set(first_parameter_ + i,
                p.numeric() ? double(p.values.at(point.at(i))) : double(point.at(i)));
  }
}

std::vector<std::size_t> SpecInstance::sizes_of(const std::vector<Expression>& exprs) const {
  std::vector<std::size_t> out;
  for (const auto& e : exprs) out.push_back(std::size_t(e.evaluate_integer(1)));
  return out;
}

SpecLaunchSizes SpecInstance::launch(const SpecPoint& point) {
  set(point);
  SpecLaunchSizes l;
  for (std::size_t i = 0; i < spec_.parameters.size(); ++i) {
    const auto& p = spec_.parameters[i];
    l.defines.emplace_back(p.name,
                           p.numeric() ? std::to_string(p.values[point[i]]) : p.labels[point[i]]);
  }
  for (std::size_t i = 0; i < defines_.size(); ++i) {
    l.defines.emplace_back(spec_.defines[i].first,
                           std::to_string(defines_[i].evaluate_integer(-kMaxSize)));
  }
  l.local = sizes_of(local_);
  if (!global_.empty()) {
    l.global = sizes_of(global_);
    for (std::size_t d = 0; d < l.global.size(); ++d) {
      if (l.global[d] % l.local[d]) {
        throw EvaluationError("global size " + std::to_string(l.global[d]) +
                              " is not a multiple of the local size " + std::to_string(l.local[d]) +
                              " in dimension " + std::to_string(d));
      }
    }
  } else {
    const auto problem = sizes_of(problem_);
    for (std::size_t d = 0; d < problem.size(); ++d) {
      std::size_t div = 1;
      if (grid_div_[d].empty()) {
        div = l.local[d];
      } else {
        double product = 1;  // in double: a product of huge factors would wrap to 0
        for (const auto& e : grid_div_[d]) product *= double(e.evaluate_integer(1));
        if (product > 1e18) {
          throw EvaluationError("grid_div in dimension " + std::to_string(d) + " is " +
                                std::to_string((long double)product) + ", beyond 10^18");
        }
        div = std::size_t(product);
      }
      const std::size_t groups = problem[d] / div + (problem[d] % div != 0);
      // In double: groups times local could wrap to 0, a launch of nothing that "ran".
      // 2^53 itself is a size: 2^53 - 1 rounded up to a local size's multiple.
      if (double(groups) * double(l.local[d]) > 9007199254740992.0) {
        throw EvaluationError("global size in dimension " + std::to_string(d) + " is " +
                              std::to_string((long double)(double(groups) * double(l.local[d]))) +
                              ", beyond 2^53");
      }
      l.global.push_back(groups * l.local[d]);
    }
  }
  for (std::size_t i = 0; i < arguments_.size(); ++i) {
    const auto& a = spec_.arguments[i];
    if (a.kind == ArgumentKind::kScalar) {
      l.argument_sizes.push_back(0);
      l.scalars.push_back(arguments_[i]->evaluate());
      continue;
    }
    const long long n = arguments_[i]->evaluate_integer(1);
    l.argument_sizes.push_back(n);
    l.scalars.push_back(0);
    if (a.kind == ArgumentKind::kLocal) l.local_bytes += std::size_t(n) * type_bytes(a.type);
  }
  return l;
}

SpecLaunchSizes SpecInstance::reference_launch(const SpecPoint& point) {
  // The arguments' sizes and scalars, and every define of `point`: sources written for a tuner
  // that always defines the parameters (Kernel Tuner's, without #ifndef defaults) do not compile
  // without them, though the reference kernel ignores them.
  SpecLaunchSizes l = launch(point);
  l.global = sizes_of(reference_global_);
  l.local = sizes_of(reference_local_);
  for (std::size_t d = 0; d < l.local.size(); ++d) {
    if (l.global[d] % l.local[d]) {
      throw EvaluationError("the reference's global size " + std::to_string(l.global[d]) +
                            " is not a multiple of its local size " + std::to_string(l.local[d]));
    }
  }
  return l;
}

std::string SpecInstance::violation(const SpecPoint& point) {
  set(point);
  try {
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
      if (!constraints_[i].evaluate_condition()) return "constraint " + constraint_text_[i];
    }
    // Without a device, what can be computed still is: a launch whose global size is not a
    // multiple of its local size is no configuration on any device.
    if (!device_ && launch_uses_device_) return {};
    const SpecLaunchSizes l = launch(point);
    if (device_) {
      if (std::string why = beyond_device(spec_, *device_, l); !why.empty()) return why;
    }
    return scalar_outside_type(spec_, l);
  } catch (const EvaluationError& e) {
    return e.what();
  }
}

void SpecInstance::for_each(
    const std::function<bool(const SpecPoint&, const std::string&)>& visit) {
  const std::size_t dims = spec_.parameters.size();
  SpecPoint point(dims, 0);
  for (bool more = true; more;) {
    if (!visit(point, violation(point))) return;
    more = false;
    for (std::size_t d = dims; d > 0 && !more; --d) {
      if (++point[d - 1] < spec_.parameters[d - 1].size()) {
        more = true;
      } else {
        point[d - 1] = 0;
      }
    }
  }
}

std::size_t SpecInstance::for_each_valid(const std::function<bool(const SpecPoint&)>& visit,
                                         std::string* why_none) {
  std::size_t count = 0;
  std::map<std::string, std::size_t> reasons;
  for_each([&](const SpecPoint& point, const std::string& why) {
    if (why.empty()) {
      ++count;
      return visit(point);
    }
    if (why_none && count == 0 && (reasons.size() < 1000 || reasons.count(why))) {
      ++reasons[why];  // bounded: reasons that name numbers differ per configuration
    }
    return true;
  });
  if (why_none && count == 0) {
    const auto most = std::max_element(reasons.begin(), reasons.end(),
                                       [](auto& a, auto& b) { return a.second < b.second; });
    *why_none = most == reasons.end() ? std::string("the space is empty") : most->first;
  }
  return count;
}

std::vector<SpecPoint> SpecInstance::enumerate(std::string* why_none, std::size_t limit) {
  std::vector<SpecPoint> out;
  if (limit == 0) return out;
  for_each_valid(
      [&](const SpecPoint& p) {
        out.push_back(p);
        return out.size() < limit;
      },
      why_none);
  return out;
}

std::string SpecInstance::to_text(const SpecPoint& point) const {
  std::string s;
  for (std::size_t i = 0; i < spec_.parameters.size(); ++i) {
    const auto& p = spec_.parameters[i];
    s += (i ? " " : "") + p.name + "=" +
         (p.numeric() ? std::to_string(p.values.at(point.at(i))) : p.labels.at(point.at(i)));
  }
  return s;
}

SpecPoint SpecInstance::parse(const std::string& text) const {
  const std::size_t npos = std::numeric_limits<std::size_t>::max();
  SpecPoint point(spec_.parameters.size(), npos);
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = text.find_first_not_of(' ', pos);
    if (start == std::string::npos) break;
    const std::size_t end = std::min(text.find(' ', start), text.size());
    const std::string item = text.substr(start, end - start);
    pos = end;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) throw UsageError("'" + item + "': expected NAME=VALUE");
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    const auto it = std::find_if(spec_.parameters.begin(), spec_.parameters.end(),
                                 [&](const SpecParameter& p) { return p.name == name; });
    if (it == spec_.parameters.end()) {
      throw UsageError("'" + name + "' is not a parameter of " + spec_.name);
    }
    const std::size_t i = std::size_t(it - spec_.parameters.begin());
    if (point[i] != npos) throw UsageError("'" + name + "' is given twice");
    for (std::size_t v = 0; v < it->size(); ++v) {
      if ((it->numeric() ? std::to_string(it->values[v]) : it->labels[v]) == value) point[i] = v;
    }
    if (point[i] == npos) {
      throw UsageError("'" + value + "' is not a value of " + name + " (" + it->where + ")");
    }
  }
  for (std::size_t i = 0; i < point.size(); ++i) {
    if (point[i] == npos) throw UsageError("missing parameter " + spec_.parameters[i].name);
  }
  return point;
}

}  // namespace mmtune
