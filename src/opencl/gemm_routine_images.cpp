// The routine's scratch buffers and images, and the views over a caller's buffers that let an
// image kernel read A and B where they are.
#include <algorithm>

#include "mmtune/error.hpp"
#include "opencl/gemm_routine.hpp"

namespace mmtune {
namespace {

// The buffer a sub-buffer was made from (sub-buffers have no sub-buffers), else the buffer.
cl_mem root_buffer(cl_mem m) {
  cl_mem parent = nullptr;
  if (clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr) ==
          CL_SUCCESS &&
      parent) {
    return parent;
  }
  return m;
}

}  // namespace

cl::Buffer& GemmRoutine::scratch(int slot, std::size_t bytes) {
  if (scratch_bytes_[slot] < bytes) {
    // Commands still using the old buffer keep it alive (OpenCL defers the release).
    scratch_[slot] = cl::Buffer(cache_.context(), CL_MEM_READ_WRITE, bytes);
    scratch_bytes_[slot] = bytes;
  }
  return scratch_[slot];
}

GemmRoutine::TexelImage& GemmRoutine::image(int slot, std::size_t texels) {
  if (texels > device_.image_max_buffer_texels) {
    throw OpenCLError("an IMG=1 configuration needs an image of " + std::to_string(texels) +
                          " texels, more than the device's " +
                          std::to_string(device_.image_max_buffer_texels),
                      CL_INVALID_IMAGE_SIZE);
  }
  TexelImage& t = images_[slot];
  if (t.capacity < texels) {
    // Commands still using the old image keep it alive (OpenCL defers the release).
    t.texels = cl::Buffer(cache_.context(), CL_MEM_READ_WRITE, texels * 4 * sizeof(float));
    t.image = cl::Image1DBuffer(cache_.context(), CL_MEM_READ_ONLY,
                                cl::ImageFormat(CL_RGBA, CL_FLOAT), texels, t.texels);
    t.capacity = texels;
  }
  return t;
}

std::optional<cl::Image1DBuffer> GemmRoutine::image_in_place(const Operand& o, const cl::Buffer& c,
                                                             std::size_t rows, std::size_t width,
                                                             std::size_t ld) const {
  if (o.offset % 4 != 0 || ld % 4 != 0 || rows == 0) return std::nullopt;
  // OpenCL leaves writing a buffer undefined while a view of it is read (C beside A in one
  // buffer, or in sub-buffers of one): such operands are packed.
  if (root_buffer((*o.buffer)()) == root_buffer(c())) return std::nullopt;
  const std::size_t bytes = o.buffer->getInfo<CL_MEM_SIZE>();
  const std::size_t texels = std::min(bytes / 16, device_.image_max_buffer_texels);
  if (o.offset / 4 + (rows - 1) * (ld / 4) + width > texels) return std::nullopt;
  // Not where the caller's buffer is write-only or the implementation refuses the view.
  if (o.buffer->getInfo<CL_MEM_FLAGS>() & CL_MEM_WRITE_ONLY) return std::nullopt;
  try {
    return cl::Image1DBuffer(cache_.context(), CL_MEM_READ_ONLY, cl::ImageFormat(CL_RGBA, CL_FLOAT),
                             texels, *o.buffer);
  } catch (const cl::Error&) {
    return std::nullopt;
  }
}

}  // namespace mmtune
