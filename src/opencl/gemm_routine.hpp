// Runs one configuration of the kernel family as a complete GEMM routine on OpenCL buffers: the
// tiled kernel with the pad/transpose copies it needs, or one of the copy-free kernels.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mmtune/cl.hpp"
#include "mmtune/device.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "opencl/kernel_source.hpp"
#include "opencl/program_cache.hpp"

namespace mmtune {

// Events of one routine call, in enqueue order. `main` indexes the GEMM kernel itself, the
// first of `main_launches` back to back where k runs in slices (KernelLaunch::k_slice).
struct RoutineEvents {
  std::vector<cl::Event> events;
  std::size_t main = 0, main_launches = 1;
  // The GEMM kernel's launch, with its arguments still set: rerun_main_ms() runs it again alone.
  cl::Kernel main_kernel;
  cl::NDRange main_global, main_local;
  // Sets main_kernel's arguments for slice i of k (empty: one launch).
  std::function<void(std::size_t)> select_slice;
  // A batch run one launch per item (its family does not batch): no one kernel is the GEMM's,
  // so its kernel-alone time is unknown (NaN).
  bool item_loop = false;
  // Buffer images over the caller's A and B where the call read them in place: a rerun still
  // reads them. Held here, not by the routine, so that the caller's buffers are not kept past
  // the call's events.
  std::vector<cl::Image1DBuffer> views;
};

// Waits for `queue` to finish, then runs the last call's GEMM kernel once more on its own and
// returns the wall time of that, enqueue to completion: the kernel-alone time on a device whose
// event timestamps are unusable (NaN for a batch run one launch per item). The call must be
// complete, its buffers still alive; the kernel writes C (or scratch) again.
double rerun_main_ms(const cl::CommandQueue& queue, const RoutineEvents& call);

// The kernel-alone time of a completed call: its GEMM kernel's event duration where the
// device's event timestamps are usable, else rerun_main_ms().
double main_kernel_ms(const cl::CommandQueue& queue, const RoutineEvents& call, bool events_usable);

struct Operand {
  const cl::Buffer* buffer = nullptr;
  std::size_t offset = 0;  // in elements
};

class GemmRoutine {
 public:
  GemmRoutine(const KernelSources& sources, ProgramCache& cache, const DeviceInfo& device);

  // Builds everything `config` needs for this problem (its precision; the direct kernel also
  // specialises on the transpositions). On failure returns false and the log. Builds are
  // cached, so calling it again is cheap. Thread-safe.
  struct Prepared {
    bool ok = false;
    std::string log;
    double build_seconds = 0.0;
  };
  Prepared prepare(const KernelConfig& config, const GemmProblem& problem);
  // Keeps the programs prepare() built on disk (ProgramCache::keep).
  void keep(const KernelConfig& config, const GemmProblem& problem);

  // Whether a call of the problem runs a GEMM kernel: m, n, k and batch > 0 and alpha != 0 in the
  // problem's precision. Otherwise it only scales C (or does nothing) and needs no prepare().
  static bool multiplies(const GemmProblem& problem);
  // Whether a batch of the configuration runs as one launch (KernelFamily::batches(), and not
  // on images); others run one launch per item.
  bool one_launch_batches(const KernelConfig& config, const GemmProblem& problem) const;

  // Enqueues C = alpha op(A) op(B) + beta C with BLAS semantics (m or n = 0: a marker only;
  // k = 0 or alpha = 0: C = beta C without reading A and B; beta = 0: C is not read). Each
  // command waits for the one before it, so any queue works, in order or not; the first waits
  // for `wait_for` and for the previous call's use of the scratch buffers. The last event
  // completes when everything is done. Throws UsageError for a malformed problem or null,
  // foreign or too small buffers (checked without overflow, offsets within 32-bit indexing),
  // OpenCLError when an OpenCL call fails. prepare() must have succeeded. Not thread-safe.
  RoutineEvents enqueue(const cl::CommandQueue& queue, const GemmProblem& problem,
                        const KernelConfig& config, Operand a, Operand b, Operand c,
                        const std::vector<cl::Event>& wait_for = {});
  // Whether the last enqueue() enqueued its main kernel: after one that failed, whether C may
  // have been written (until then only scratch buffers are).
  bool main_enqueued() const { return main_enqueued_; }
  // The checks of enqueue() alone, enqueueing nothing: a caller that runs several calls as
  // one (a batch given as lists) checks them all before the first runs.
  void check(const GemmProblem& problem, Operand a, Operand b, Operand c) const;

 private:
  // OpenCL build options of the main program for a configuration and problem.
  static std::string options(const KernelConfig& config, const GemmProblem& problem);
  cl::Kernel& kernel(const KernelConfig& config, const GemmProblem& problem);
  cl::Buffer& scratch(int slot, std::size_t bytes);
  // IMG=1: A (slot 0) and B (slot 1) as 1-D images of at least `texels` float4 texels, each
  // over a buffer the packing writes. Throws OpenCLError (CL_INVALID_IMAGE_SIZE) beyond the
  // device's CL_DEVICE_IMAGE_MAX_BUFFER_SIZE.
  struct TexelImage {
    cl::Buffer texels;
    cl::Image1DBuffer image;
    std::size_t capacity = 0;
  };
  TexelImage& image(int slot, std::size_t texels);
  // A buffer image over `o` when its rows of `width` texels, `ld` elements apart, can be read
  // where they are; nothing where the offset or ld is not a multiple of 4, the image would pass
  // the buffer or the device's limit, `o` shares its buffer with C, or the implementation
  // refuses it (gemm_routine_images.cpp).
  std::optional<cl::Image1DBuffer> image_in_place(const Operand& o, const cl::Buffer& c,
                                                  std::size_t rows, std::size_t width,
                                                  std::size_t ld) const;
  enum class Access { kRead, kWrite, kReadWrite };  // what the call does to an operand
  void check_operand(const char* name, const Operand& o, std::size_t elements,
                     std::size_t element_size, Access access) const;
  RoutineEvents launch(const cl::CommandQueue& queue, const GemmProblem& problem,
                       const KernelConfig& config, Operand a, Operand b, Operand c,
                       const std::vector<cl::Event>& wait_for);
  // A batch one item after another, each a launch() of its own.
  RoutineEvents launch_items(const cl::CommandQueue& queue, const GemmProblem& problem,
                             const KernelConfig& config, Operand a, Operand b, Operand c,
                             const std::vector<cl::Event>& wait_for);

  const KernelSources& sources_;
  ProgramCache& cache_;
  DeviceInfo device_;
  std::map<std::string, cl::Kernel> kernels_;  // key: family name and build options
  struct CopyKernels {
    cl::Kernel pack_rows, pack_cols, unpad, scale;  // kernels/copy.cl
    cl::Kernel pack_image;                          // fp32 on devices with images only
    std::size_t cols_rows_per_item = 1;             // pack_cols_blocked: kPackRows
    cl::Kernel pack_rows_blocked;  // vectors (CPUs): panels of a multiple of kPackRows
  };
  CopyKernels& copies(Precision p);
  std::map<Precision, CopyKernels> copy_;
  cl::Buffer scratch_[3];
  std::size_t scratch_bytes_[3] = {0, 0, 0};
  TexelImage images_[2];
  cl::Event scratch_busy_;          // the last event of the last call that used the scratch buffers
  cl::CommandQueue scratch_queue_;  // the queue of that call
  // MMTUNE_TEST_LAUNCH_FAILS: a main kernel whose build options hold this text fails its launch
  // (docs/reliability.md); empty: none.
  std::string refused_launch_;
  bool main_enqueued_ = false;
};

}  // namespace mmtune
