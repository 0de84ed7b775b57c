// Evaluates configurations of a user's kernel (a spec file, docs/spec.md) on one device for one
// problem: fills the arguments from their seeds, computes the reference once, then for each
// configuration builds, runs, verifies and times it. The counterpart of runner.hpp.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "family/spec.hpp"
#include "family/spec_space.hpp"
#include "mmtune/cl.hpp"
#include "mmtune/device.hpp"
#include "opencl/calibration.hpp"
#include "opencl/kernel_source.hpp"
#include "opencl/program_cache.hpp"

namespace mmtune {

class SpecRunner {
 public:
  // Throws UsageError when the sizes do not suit the spec or its reference cannot run (a
  // reference kernel that does not build or fails, a reference file of the wrong size).
  // `program_dir` and `writes`: as Runner's.
  SpecRunner(const Device& device, const KernelSpec& spec, const std::vector<long long>& sizes,
             const std::string& program_dir = "", BinaryWrites writes = BinaryWrites::kAtBuild);
  // The runner keeps a reference to the spec: a temporary would dangle.
  SpecRunner(const Device&, KernelSpec&&, const std::vector<long long>&, const std::string& = "",
             BinaryWrites = BinaryWrites::kAtBuild) = delete;

  SpecInstance& instance() { return instance_; }
  const Calibration& calibration() const { return calibration_; }

  // A configuration's build options (not thread-safe: the instance evaluates expressions);
  // nothing when they cannot be computed (evaluate() then says why).
  std::optional<std::string> build_options(const SpecPoint& point);
  // Builds the program for such options (thread-safe); false when it does not build. Built a
  // second time, the program is kept on disk (BinaryWrites).
  bool build(const std::string& options);
  // Never throws for a failure of the variant itself: see Measurement::status. GFLOPS come from
  // the spec's `flops`, GB/s from its `bytes` (0 without them). `on_run` is called after every
  // completed run.
  Measurement evaluate(const SpecPoint& point, const TimingOptions& timing = {},
                       const std::function<void()>& on_run = {});
  // Bytes of buffers' initial contents kept between evaluations: one size per argument, the
  // last one used (configurations of a space may size a buffer differently).
  std::size_t held_bytes() const;

 private:
  const std::vector<unsigned char>& initial(std::size_t argument, long long elements);
  std::string options(const SpecLaunchSizes& launch) const;
  // Creates the buffers and sets the arguments of `kernel` for `launch`; the buffers are
  // returned in argument order (empty for scalars and local memory).
  // `guarded`: the buffers the kernel may write carry a guard zone (overrun() reads it).
  std::vector<cl::Buffer> bind(cl::Kernel& kernel, const SpecLaunchSizes& launch, bool guarded);
  // The output buffers' contents, concatenated in argument order.
  std::vector<unsigned char> read_outputs(const std::vector<cl::Buffer>& buffers,
                                          const SpecLaunchSizes& launch);
  // The first buffer whose guard zone past its end the kernel wrote, as a message; "" if none.
  std::string overrun(const std::vector<cl::Buffer>& buffers, const SpecLaunchSizes& launch);
  // Compares outputs with the reference as the outputs' element types; "" when they agree.
  std::string compare(const std::vector<unsigned char>& got, const SpecLaunchSizes& launch,
                      double& max_error) const;
  void compute_reference();

  const KernelSpec& spec_;
  DeviceInfo device_;
  SpecInstance instance_;
  std::string source_;
  cl::Context context_;
  cl::CommandQueue queue_;
  ProgramCache cache_;
  KernelSources builtin_;  // roofline.cl, for the calibration
  Calibration calibration_;
  std::string program_dir_;  // where the calibration is cached
  std::optional<double> flops_, bytes_;
  struct Contents {
    long long elements = -1;
    std::vector<unsigned char> bytes;
  };
  std::vector<Contents> contents_;                       // per argument
  std::optional<std::vector<unsigned char>> reference_;  // the outputs' expected bytes
  std::vector<bool> writable_;  // per argument, from inspect_spec_kernel(); empty: all
  SeenBefore built_;            // options build() was asked for
};

}  // namespace mmtune
