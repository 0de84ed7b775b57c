#include "opencl/program_cache.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "opencl/kernel_source.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;

std::vector<unsigned char> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Writes to a fresh temporary file (mkstemp: unpredictable name, never an existing file or
// link), then renames: readers never see a partial file. A full or read-only cache only costs
// a rebuild next time.
void write_atomically(const fs::path& p, const std::vector<unsigned char>& data) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  std::string tmp = p.string() + ".tmp-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return;
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += std::size_t(n);
  }
  const bool closed = ::close(fd) == 0;
  const bool ok = done == data.size() && closed;
  if (ok) fs::rename(tmp, p, ec);
  if (!ok || ec) fs::remove(tmp, ec);
}

}  // namespace

std::string ProgramCache::default_disk_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return (fs::path(xdg) / "mmtune" / "programs").string();
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return (fs::path(home) / ".cache" / "mmtune" / "programs").string();
  }
  return "";
}

ProgramCache::ProgramCache(cl::Context context, cl::Device device, std::string device_key,
                           std::string disk_dir, BinaryWrites writes)
    : context_(std::move(context)),
      device_(std::move(device)),
      device_key_(std::move(device_key)),
      disk_dir_(std::move(disk_dir)),
      writes_(writes) {}

std::string ProgramCache::key(const std::string& source, const std::string& options) const {
  // The device key covers vendor, name and driver version, so a driver update rebuilds.
  return content_hash(device_key_ + "\n" + content_hash(source) + "\n" + options);
}

std::filesystem::path ProgramCache::file(const std::string& k) const {
  return disk_dir_.empty() ? fs::path() : fs::path(disk_dir_) / device_key_ / (k + ".bin");
}

void ProgramCache::write(const std::string& k, const cl::Program& program) {
  {
    std::lock_guard lock(mutex_);
    if (!written_.insert(k).second) return;
  }
  try {
    const auto bins = program.getInfo<CL_PROGRAM_BINARIES>();
    if (bins.size() == 1 && !bins[0].empty()) write_atomically(file(k), bins[0]);
  } catch (const cl::Error&) {  // no binary to keep: the next process compiles again
  }
}

void ProgramCache::keep(const std::string& source, const std::string& options) {
  if (disk_dir_.empty()) return;
  const std::string k = key(source, options);
  std::shared_ptr<const BuildResult> built;
  {
    std::lock_guard lock(mutex_);
    const auto it = programs_.find(k);
    if (it == programs_.end() || !it->second->ok || it->second->from_disk) return;
    built = it->second;
  }
  write(k, built->program);
}

std::shared_ptr<const BuildResult> ProgramCache::build(const std::string& source,
                                                       const std::string& options) {
  const std::string k = key(source, options);
  {
    std::lock_guard lock(mutex_);
    if (auto it = programs_.find(k); it != programs_.end()) return it->second;
  }
  auto result = std::make_shared<BuildResult>();
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path path = file(k);
  // Tests stand in for a driver that cannot build a configuration: a build whose options hold
  // this text fails as a compiler's would (nothing else reads it).
  const char* refuse = std::getenv("MMTUNE_TEST_BUILD_FAILS");
  const bool refused = refuse && *refuse && options.find(refuse) != std::string::npos;
  if (refused) result->log = "error: MMTUNE_TEST_BUILD_FAILS refuses this build";
  std::error_code unreadable;  // a cache that cannot be looked into is a cache miss
  if (!refused && !path.empty() && fs::exists(path, unreadable)) {
    try {
      const cl::Program::Binaries bins = {read_file(path)};
      cl::Program program(context_, {device_}, bins);
      program.build(std::vector<cl::Device>{device_}, options.c_str());
      result->ok = true;
      result->from_disk = true;
      result->program = program;
    } catch (const cl::Error&) {
      std::error_code ec;
      fs::remove(path, ec);  // stale or damaged: rebuild from source below
    }
  }
  if (!refused && !result->ok) {
    try {
      cl::Program program(context_, source);
      try {
        program.build(std::vector<cl::Device>{device_}, options.c_str());
        result->ok = true;
        result->program = program;
        if (!path.empty() && writes_ == BinaryWrites::kAtBuild) write(k, program);
      } catch (const cl::BuildError& e) {
        for (const auto& [dev, log] : e.getBuildLog()) result->log += log;
        if (result->log.empty()) result->log = e.what();
      } catch (const cl::Error& e) {
        result->log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
        if (result->log.empty())
          result->log = std::string(e.what()) + " (" + std::to_string(e.err()) + ")";
      }
    } catch (const cl::Error& e) {
      result->log =
          std::string("cannot create program: ") + e.what() + " (" + std::to_string(e.err()) + ")";
    }
  }
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard lock(mutex_);
  (result->from_disk ? disk_hits_ : builds_) += 1;
  if (result->from_disk) written_.insert(k);
  return programs_.emplace(k, std::move(result)).first->second;
}

std::size_t ProgramCache::builds() const {
  std::lock_guard lock(mutex_);
  return builds_;
}

std::size_t ProgramCache::disk_hits() const {
  std::lock_guard lock(mutex_);
  return disk_hits_;
}

}  // namespace mmtune
