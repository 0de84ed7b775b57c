#include "mmtune/program_cache.hpp"

#include <chrono>

#include "mmtune/kernel_source.hpp"

namespace mmtune {

ProgramCache::ProgramCache(cl::Context context, cl::Device device, std::string device_key)
    : context_(std::move(context)), device_(std::move(device)), device_key_(std::move(device_key)) {}

std::shared_ptr<const BuildResult> ProgramCache::build(const std::string& source,
                                                       const std::string& options) {
  const std::string key = device_key_ + "/" + content_hash(source) + "/" + options;
  {
    std::lock_guard lock(mutex_);
    if (auto it = programs_.find(key); it != programs_.end()) return it->second;
  }
  auto result = std::make_shared<BuildResult>();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    cl::Program program(context_, source);
    try {
      program.build(std::vector<cl::Device>{device_}, options.c_str());
      result->ok = true;
      result->program = program;
    } catch (const cl::BuildError& e) {
      for (const auto& [dev, log] : e.getBuildLog()) result->log += log;
      if (result->log.empty()) result->log = e.what();
    } catch (const cl::Error& e) {
      result->log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
      if (result->log.empty()) result->log = std::string(e.what()) + " (" + std::to_string(e.err()) + ")";
    }
  } catch (const cl::Error& e) {
    result->log = std::string("cannot create program: ") + e.what() + " (" + std::to_string(e.err()) + ")";
  }
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard lock(mutex_);
  ++builds_;
  return programs_.emplace(key, std::move(result)).first->second;
}

std::size_t ProgramCache::builds() const {
  std::lock_guard lock(mutex_);
  return builds_;
}

}  // namespace mmtune
