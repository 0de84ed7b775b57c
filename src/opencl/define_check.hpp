// A spec's -D names checked against the device's own OpenCL C headers before any configuration
// is built: a name those headers use (PoCL's declare a parameter `p`) breaks every build, the
// spec's kernel aside.
#pragma once

#include "family/spec.hpp"
#include "opencl/program_cache.hpp"

namespace mmtune {

// Builds an empty kernel with the spec's build options and every parameter and define as a -D
// (one build, cached; more only when it fails). Throws UsageError naming the names that break
// it, or the build options when they alone do.
void check_define_names(ProgramCache& cache, const KernelSpec& spec);

}  // namespace mmtune
