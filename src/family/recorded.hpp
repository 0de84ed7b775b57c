// A recorded (external) kernel: a landscape measured elsewhere (a Kernel Tuner cache file), known
// only by its parameter names and the values its recorded configurations take. It can be stored,
// exported and replayed by every strategy, never built: mmtune has no source for it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mmtune/kernel_family.hpp"

namespace mmtune {

class RecordedFamily final : public KernelFamily {
 public:
  // `params`: names in order, each with the sorted values the records take.
  RecordedFamily(std::string name, std::vector<ParameterInfo> params);

  // The family of stored configuration texts ("NAME=v NAME=v ...", every text naming the same
  // parameters in the same order). Throws UsageError for texts that differ in their names.
  static std::unique_ptr<RecordedFamily> from_texts(const std::string& name,
                                                    const std::vector<std::string>& texts);

  std::string_view name() const override { return name_; }
  FamilyRole role() const override { return FamilyRole::kRecorded; }
  std::string source_file() const override { return {}; }
  KernelArguments arguments() const override { return KernelArguments::kBuffersAndTranspositions; }
  const std::vector<ParameterInfo>& parameters(SpaceSize) const override { return params_; }
  std::vector<std::string> constraint_names() const override { return {}; }
  // The space is the data: no enumeration of its own.
  std::vector<KernelConfig> enumerate(SpaceSize) const override { return {}; }
  std::vector<std::string> constraint_violations(const KernelConfig&) const override { return {}; }
  KernelConfig default_config() const override;
  std::size_t local_memory_bytes(const KernelConfig&, Precision) const override { return 0; }
  std::vector<std::string> limit_violations(const KernelConfig&, const DeviceInfo&,
                                            Precision) const override {
    return {"a recorded kernel (" + name_ + ") has no source in mmtune and cannot run"};
  }
  KernelLaunch launch(const KernelConfig&, const ColMajorProblem&) const override;

 private:
  std::string name_;
  std::vector<ParameterInfo> params_;
};

}  // namespace mmtune
