// A spec for one problem on one device: its expressions compiled against the parameters, the
// problem's sizes and the device's limits; the configurations that can run, and for each its
// defines, launch geometry and argument sizes.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "family/expression.hpp"
#include "family/spec.hpp"
#include "mmtune/device_info.hpp"

namespace mmtune {

// The values of spec_device_names() for a device, in that order.
std::vector<double> spec_device_values(const DeviceInfo& d);

// A metric of one run (the spec's flops or bytes) for these sizes on this device; nothing when the
// spec has none. Throws UsageError when it is not a finite number.
std::optional<double> spec_metric(const KernelSpec& spec, const std::optional<SpecExpr>& metric,
                                  const std::vector<long long>& sizes, const DeviceInfo& device);

// One configuration: per parameter, the index of its value.
using SpecPoint = std::vector<std::size_t>;

struct SpecLaunchSizes {
  std::vector<std::size_t> global, local;
  std::vector<std::pair<std::string, std::string>> defines;  // parameters, then [defines]
  std::vector<long long> argument_sizes;  // per argument: elements (buffers, local), or 0
  std::vector<double> scalars;            // per argument: the scalar's value, or 0
  std::size_t local_bytes = 0;            // local-memory arguments together
};

class SpecInstance {
 public:
  // sizes: one per spec.sizes. device: its limits join the expressions (nullptr: constraints
  // that name a device limit are not applied, and launch checks are skipped). Throws UsageError
  // when the sizes do not match the spec's names.
  SpecInstance(const KernelSpec& spec, const std::vector<long long>& sizes,
               const DeviceInfo* device);
  // The instance keeps a reference to the spec: a temporary would dangle.
  SpecInstance(KernelSpec&&, const std::vector<long long>&, const DeviceInfo*) = delete;
  ~SpecInstance();

  const KernelSpec& spec() const { return spec_; }
  // Configurations before constraints (the product of the value counts, saturating).
  std::size_t product() const;

  // Why a configuration cannot run on this problem and device: the first constraint it fails,
  // an expression that is not a number for it, or a limit of the device; empty when it can.
  std::string violation(const SpecPoint& point);
  // Its launch; throws EvaluationError as violation() would report.
  SpecLaunchSizes launch(const SpecPoint& point);
  // The launch of the verification's reference kernel: its global (and local, empty: the
  // implementation chooses) sizes, and the defines and arguments' sizes of `point` (the
  // outputs must not depend on the parameters).
  SpecLaunchSizes reference_launch(const SpecPoint& point);
  // Every configuration that can run, in the order of the parameters' values (the last
  // parameter varies fastest). When none can, `why_none` (if given) gets the reason that
  // excluded the most configurations. At most `limit` of them: the first ones.
  std::vector<SpecPoint> enumerate(std::string* why_none = nullptr,
                                   std::size_t limit = std::numeric_limits<std::size_t>::max());
  // Every configuration, valid or not, in that order: visit(point, violation(point)) until it
  // returns false.
  void for_each(const std::function<bool(const SpecPoint&, const std::string&)>& visit);
  // The valid ones one at a time, without holding them: visit(point) until it returns false.
  // Returns how many configurations it visited.
  std::size_t for_each_valid(const std::function<bool(const SpecPoint&)>& visit,
                             std::string* why_none = nullptr);

  // "block_size_x=16 read_only=global": the configuration's canonical text.
  std::string to_text(const SpecPoint& point) const;
  // The inverse; throws UsageError naming a parameter that is missing, unknown or has a value
  // outside its list.
  SpecPoint parse(const std::string& text) const;

 private:
  void set(const SpecPoint& point);
  std::vector<std::size_t> sizes_of(const std::vector<Expression>& exprs) const;

  const KernelSpec& spec_;
  std::unique_ptr<Scope> scope_;
  std::size_t first_parameter_ = 0;  // the parameters' slots in the scope
  const DeviceInfo* device_;
  bool launch_uses_device_ = false;  // a launch expression names a device limit
  std::vector<Expression> constraints_, defines_, problem_, global_, local_;
  std::vector<Expression> reference_global_, reference_local_;
  std::vector<std::vector<Expression>> grid_div_;
  std::vector<std::string> constraint_text_;
  std::vector<std::unique_ptr<Expression>> arguments_;  // size or value per argument
};

}  // namespace mmtune
