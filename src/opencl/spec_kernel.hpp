// A spec's kernel as its sources define it, and the guard zones of its buffers: one build of
// the sources checks the kernel's name and argument count and tells which arguments it may
// write; the zone past each such buffer's end catches a kernel that writes there (a tail of
// work-items past n, a row too long) after its first run, instead of a pass or a corrupted
// neighbour. Writes further out, and reads, stay undetected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "family/spec.hpp"
#include "mmtune/cl.hpp"

namespace mmtune {

// Whether argument `index` of `kernel` may be written: not a __constant one, which no kernel
// writes and which with a guard zone would pass a GPU's CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE
// (64 KiB on NVIDIA's). True where the implementation does not tell.
bool argument_may_be_written(const cl::Kernel& kernel, cl_uint index);

// Builds `source` with `options` and -cl-kernel-arg-info, from source (a cached binary need not
// tell qualifiers; without the option where the implementation refuses it). Throws UsageError
// where it defines no kernel of the spec's name, or that kernel takes another number of
// arguments than the spec gives: otherwise every configuration's launch fails, a status each.
// Returns per argument whether the kernel may write it; empty where the source does not build
// with these options or the qualifiers are not told.
std::vector<bool> inspect_spec_kernel(const cl::Context& context, const cl::Device& device,
                                      const std::string& source, const std::string& options,
                                      const KernelSpec& spec);

// The guard zone of a buffer of `bytes`: 64 KiB, none where the allocation would pass
// `max_alloc`.
std::size_t guard_bytes(std::size_t bytes, std::uint64_t max_alloc);
// Fills the `guard` bytes past `bytes` with the guard's pattern.
void fill_guard(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t bytes,
                std::size_t guard);
// How far past `bytes` the first byte the kernel changed in the buffer's guard zone lies (the
// zone is the rest of the buffer); nothing when none changed.
std::optional<std::size_t> guard_written(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                                         std::size_t bytes);

}  // namespace mmtune
