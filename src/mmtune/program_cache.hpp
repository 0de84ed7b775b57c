// Builds OpenCL programs and keeps them, keyed by device, source hash and build options, so a
// variant is compiled once per process.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "mmtune/cl.hpp"

namespace mmtune {

struct BuildResult {
  cl::Program program;  // valid only when ok
  bool ok = false;
  std::string log;       // compiler output (kept for failed builds)
  double seconds = 0.0;  // time spent building (0 when it came from the cache)
};

class ProgramCache {
 public:
  ProgramCache(cl::Context context, cl::Device device, std::string device_key);

  // Never throws for a compile error: the result says so and carries the log. Thread-safe.
  std::shared_ptr<const BuildResult> build(const std::string& source, const std::string& options);

  std::size_t builds() const;  // programs compiled so far (cache misses)
  const cl::Context& context() const { return context_; }
  const cl::Device& device() const { return device_; }

 private:
  cl::Context context_;
  cl::Device device_;
  std::string device_key_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const BuildResult>> programs_;
  std::size_t builds_ = 0;
};

}  // namespace mmtune
