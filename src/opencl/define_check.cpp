#include "opencl/define_check.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "mmtune/error.hpp"

namespace mmtune {
namespace {

constexpr const char* kEmptyKernel = "__kernel void mmtune_empty_kernel(void) {}\n";

// The compiler's first error line: the header's line it failed at says why.
std::string first_error(const std::string& log) {
  std::size_t at = log.find("error");
  if (at == std::string::npos) return one_line(log.substr(0, 300));
  at = log.rfind('\n', at);
  at = at == std::string::npos ? 0 : at + 1;
  return one_line(log.substr(at, std::min<std::size_t>(log.find('\n', at) - at, 300)));
}

// PoCL's compiler writes "110 errors generated." to the process's stderr for each build that
// fails: the check's builds fail on purpose, and the user is owed one line, the refusal.
class SilencedStderr {
 public:
  SilencedStderr() {
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null >= 0) dup2(null, STDERR_FILENO);
    if (null >= 0) close(null);
  }
  ~SilencedStderr() {
    if (saved_ < 0) return;
    dup2(saved_, STDERR_FILENO);
    close(saved_);
  }
  SilencedStderr(const SilencedStderr&) = delete;
  SilencedStderr& operator=(const SilencedStderr&) = delete;

 private:
  int saved_ = -1;
};

}  // namespace

void check_define_names(ProgramCache& cache, const KernelSpec& spec) {
  const SilencedStderr quiet;
  std::vector<std::string> names;
  for (const auto& p : spec.parameters) names.push_back(p.name);
  for (const auto& [name, e] : spec.defines) names.push_back(name);
  // Values do not matter: a macro replaces the header's identifier whatever it expands to.
  const auto define = [](const std::string& name) { return " -D" + name + "=1"; };
  std::string all = spec.build_options;
  for (const auto& n : names) all += define(n);
  if (cache.build(kEmptyKernel, all)->ok) {
    cache.keep(kEmptyKernel, all);  // on disk, where programs are kept: the next run reads it
    return;
  }

  const std::string where = spec.path.string() + ": ";
  if (const auto alone = cache.build(kEmptyKernel, spec.build_options); !alone->ok) {
    throw UsageError(where +
                     (spec.build_options.empty()
                          ? std::string("this device cannot build an empty kernel: ")
                          : "its build_options '" + spec.build_options +
                                "' fail on an empty kernel on this device, so every "
                                "configuration would: ") +
                     first_error(alone->log));
  }
  std::string clashes, log;
  std::size_t count = 0;
  for (const auto& n : names) {
    const auto one = cache.build(kEmptyKernel, spec.build_options + define(n));
    if (one->ok) continue;
    clashes += std::string(count++ ? ", " : "") + "'" + n + "'";
    if (log.empty()) log = first_error(one->log);
  }
  if (count == 0) {  // only together (one define's value naming another?)
    throw UsageError(where + "its parameters and defines as -D options together fail on an " +
                     "empty kernel on this device, so every configuration would");
  }
  throw UsageError(where + (count > 1 ? "parameters or defines " : "parameter or define ") +
                   clashes + (count > 1 ? " are names" : " is a name") +
                   " this device's OpenCL C headers use: as -D defines they break every build, "
                   "the kernel aside (" +
                   log + "); rename " + (count > 1 ? "them" : "it"));
}

}  // namespace mmtune
