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
  double seconds = 0.0;  // time spent building (or loading the cached binary)
  bool from_disk = false;
};

class ProgramCache {
 public:
  // With a directory, program binaries are also kept on disk (one file per key), so a later
  // process skips the compiler.
  ProgramCache(cl::Context context, cl::Device device, std::string device_key,
               std::string disk_dir = "");

  // $XDG_CACHE_HOME/mmtune/programs (or ~/.cache/mmtune/programs); empty if neither is set.
  static std::string default_disk_dir();

  // Never throws for a compile error: the result says so and carries the log. Thread-safe.
  std::shared_ptr<const BuildResult> build(const std::string& source, const std::string& options);

  std::size_t builds() const;     // programs compiled from source so far
  std::size_t disk_hits() const;  // programs loaded from the disk cache so far
  const cl::Context& context() const { return context_; }
  const cl::Device& device() const { return device_; }

 private:
  cl::Context context_;
  cl::Device device_;
  std::string device_key_;
  std::string disk_dir_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const BuildResult>> programs_;
  std::size_t builds_ = 0;
  std::size_t disk_hits_ = 0;
};

}  // namespace mmtune
