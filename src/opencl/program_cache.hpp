// Builds OpenCL programs and keeps them, keyed by device, source hash and build options, so a
// variant is compiled once per process.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
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

// When binaries reach the disk. Asking for them can cost far more than the build (PoCL compiles
// a generic work-group function into its binary: 54 s of a 63 s search's builds at 512^3), so a
// tuner that builds hundreds of variants, most of them run once, writes only those it keeps().
enum class BinaryWrites { kAtBuild, kOnKeep };

class ProgramCache {
 public:
  // With a directory, program binaries are also kept on disk (one file per key), so a later
  // process skips the compiler: every program built from source (kAtBuild), or those keep()
  // names (kOnKeep). Binaries already on disk are read either way.
  ProgramCache(cl::Context context, cl::Device device, std::string device_key,
               std::string disk_dir = "", BinaryWrites writes = BinaryWrites::kAtBuild);

  // $XDG_CACHE_HOME/mmtune/programs (or ~/.cache/mmtune/programs); empty if neither is set.
  static std::string default_disk_dir();

  // Never throws for a compile error: the result says so and carries the log. Thread-safe.
  std::shared_ptr<const BuildResult> build(const std::string& source, const std::string& options);

  // Writes the binary of a program build() compiled from source, once; nothing for a failed
  // build, one read from disk, or without a directory. A full or read-only disk only costs a
  // rebuild next time.
  void keep(const std::string& source, const std::string& options);

  std::size_t builds() const;     // programs compiled from source so far
  std::size_t disk_hits() const;  // programs loaded from the disk cache so far
  const cl::Context& context() const { return context_; }
  const cl::Device& device() const { return device_; }

 private:
  std::string key(const std::string& source, const std::string& options) const;
  std::filesystem::path file(const std::string& k) const;  // empty without a directory
  void write(const std::string& k, const cl::Program& program);

  cl::Context context_;
  cl::Device device_;
  std::string device_key_;
  std::string disk_dir_;
  BinaryWrites writes_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const BuildResult>> programs_;
  std::set<std::string> written_;  // keys whose binary is on disk
  std::size_t builds_ = 0;
  std::size_t disk_hits_ = 0;
};

// Which keys were named before; thread-safe. A tuner's runner keeps a program's binary when its
// configuration is prepared a second time (a finalist, the drift reference), not at its first.
class SeenBefore {
 public:
  bool operator()(const std::string& key) {  // false the first time a key is named, then true
    std::lock_guard lock(mutex_);
    return !seen_.insert(key).second;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    seen_.clear();
  }

 private:
  std::mutex mutex_;
  std::set<std::string> seen_;
};

}  // namespace mmtune
