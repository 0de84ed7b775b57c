// OpenCL C sources of the kernel family: embedded in the binary at build time, or read from a
// directory (--kernels-dir) so kernels can be edited without rebuilding.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "mmtune/device_info.hpp"

namespace mmtune {

struct EmbeddedKernel {
  std::string file;  // e.g. "gemm_tiled.cl"
  std::string text;
};

// Every kernels/*.cl file as it was at build time (generated source).
const std::vector<EmbeddedKernel>& embedded_kernels();
// One embedded file's text; throws UsageError for an unknown name.
const std::string& embedded_kernel(const std::string& file);

// The files the GEMM programs need; a --kernels-dir must hold all of them.
const std::vector<std::string>& required_kernel_files();

// The set of kernel files a process uses.
class KernelSources {
 public:
  KernelSources();  // the embedded sources
  // Reads every required file from `dir`; throws UsageError naming what is missing.
  explicit KernelSources(const std::filesystem::path& dir);

  // A complete program: common.cl followed by `file`. Throws UsageError for an unknown file.
  std::string program(const std::string& file) const;
  const std::string& file(const std::string& name) const;
  bool embedded() const { return embedded_; }
  // Whether a file differs from the copy embedded at build time.
  bool edited() const;

 private:
  std::map<std::string, std::string> files_;
  bool embedded_ = true;
};

}  // namespace mmtune
