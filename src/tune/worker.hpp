// The evaluation worker: a separate process (`mmtune worker`) that owns the OpenCL context and
// buffers and evaluates configurations on request, so that a variant that hangs the device or
// crashes the driver or compiler takes down only the worker. The protocol is one JSON object per
// line on stdin/stdout:
//
//   -> {"op":"init", "device_index", "device_key", "kernels_dir", "program_dir", "problem",
//       "seed", "reference_file"}                       <- {"op":"ready"} | {"op":"error", ...}
//   -> {"op":"eval", "items":[{"id","kernel","config"}], "timing":{...}, "parallel_builds"}
//      <- {"op":"built","id"} per item (builds run in parallel, before any measurement),
//         {"op":"tick","id"} after every run, {"op":"result","id","measurement"} per item
//   -> {"op":"quit"}
#pragma once

#include <iosfwd>

#include "mmtune/kernel_family.hpp"

namespace mmtune {

// Serves requests until "quit" or end of input; returns the process exit code. Kernels are
// named by the families of `families`.
int run_worker(std::istream& in, std::ostream& out,
               const FamilyRegistry& families = FamilyRegistry::builtin());

}  // namespace mmtune
