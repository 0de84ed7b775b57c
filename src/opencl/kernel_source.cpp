#include "opencl/kernel_source.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "mmtune/error.hpp"

namespace mmtune {

const std::vector<std::string>& required_kernel_files() {
  // Not roofline.cl: the device's peak is measured with the built-in one (runner.hpp).
  static const std::vector<std::string> files = {"common.cl",     "copy.cl",
                                                 "gemm_tiled.cl", "gemm_direct.cl",
                                                 "gemm_naive.cl", "gemm_classic.cl"};
  return files;
}

const std::string& embedded_kernel(const std::string& file) {
  for (const auto& k : embedded_kernels()) {
    if (k.file == file) return k.text;
  }
  throw UsageError("no kernel source named '" + file + "'");
}

KernelSources::KernelSources() {
  for (const auto& k : embedded_kernels()) files_[k.file] = k.text;
}

KernelSources::KernelSources(const std::filesystem::path& dir) : embedded_(false) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw UsageError("--kernels-dir '" + dir.string() + "' is not a directory");
  }
  for (const auto& name : required_kernel_files()) {
    const auto where = "--kernels-dir '" + dir.string() + "'";
    // An ifstream opens a directory too: it reads as an empty file.
    if (!std::filesystem::is_regular_file(dir / name, ec)) {
      throw UsageError(where + " has no readable " + name +
                       (std::filesystem::exists(dir / name, ec) ? " (not a regular file)" : ""));
    }
    std::ifstream in(dir / name, std::ios::binary);
    if (!in) throw UsageError(where + " has no readable " + name);
    std::ostringstream ss;
    ss << in.rdbuf();
    files_[name] = ss.str();
    if (files_[name].find_first_not_of(" \t\r\n") == std::string::npos) {
      throw UsageError(where + ": " + name + " is empty");
    }
  }
}

bool KernelSources::edited() const {
  for (const auto& k : embedded_kernels()) {
    if (const auto it = files_.find(k.file); it != files_.end() && it->second != k.text)
      return true;
  }
  return false;
}

const std::string& KernelSources::file(const std::string& name) const {
  auto it = files_.find(name);
  if (it == files_.end()) throw UsageError("no kernel source named '" + name + "'");
  return it->second;
}

std::string KernelSources::program(const std::string& name) const {
  return file("common.cl") + "\n" + file(name);
}

}  // namespace mmtune
