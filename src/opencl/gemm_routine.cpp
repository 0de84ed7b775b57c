#include "opencl/gemm_routine.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/precision.hpp"
#include "family/typed_family.hpp"
#include "mmtune/error.hpp"
#include "opencl/host_data.hpp"

namespace mmtune {
namespace {

// Rows per work-item of copy.cl's pack_cols_blocked (its PACK_ROWS, one vector of the column).
constexpr std::size_t kPackRows = 16;

// copy.cl's build options for a precision.
std::string copy_options(Precision precision) {
  return std::string("-DPRECISION=") + to_string(precision) +
         " -DPACK_ROWS=" + std::to_string(kPackRows);
}

// The family's program: a kernels/ file or its own text after common.cl.
std::string program_text(const KernelSources& sources, const KernelFamily& family) {
  const std::string own = family.source_text();
  return own.empty() ? sources.program(family.source_file()) : sources.file("common.cl") + own;
}

// Kernel arguments of the scalar type `real`.
void set_real(cl::Kernel& k, cl_uint index, double v, Precision p) {
  switch (p) {
    case Precision::kHalf:
      k.setArg(index, to_half(static_cast<float>(v)));
      break;
    case Precision::kSingle:
      k.setArg(index, static_cast<float>(v));
      break;
    case Precision::kDouble:
      k.setArg(index, v);
      break;
  }
}

void set_args(cl::Kernel&, cl_uint) {}
template <class T, class... Rest>
void set_args(cl::Kernel& k, cl_uint first, const T& v, const Rest&... rest) {
  k.setArg(first, v);
  set_args(k, first + 1, rest...);
}

bool write_only(const cl::Buffer& b) {
  return (b.getInfo<CL_MEM_FLAGS>() & CL_MEM_WRITE_ONLY) != 0;
}

int i32(std::size_t v) {
  return static_cast<int>(v);
}  // validate_call() and check_operand() guarantee the range

}  // namespace

bool GemmRoutine::one_launch_batches(const KernelConfig& config, const GemmProblem& problem) const {
  const KernelFamily& family = config.kind().family();
  if (!family.batches()) return false;
  if (family.arguments() != KernelArguments::kPackedPanels) return true;
  // Images hold one item each (a batch's would outgrow the device's image sizes). The packed
  // copies of all items must fit 32-bit indexing and one allocation.
  const ColMajorProblem cp = to_col_major(problem);
  const KernelLaunch l = family.launch(config, cp);
  if (l.images) return false;
  if (l.in_place) return true;
  using family_limits::round_up;
  const double mp = double(round_up(cp.m, l.pad_m)), np = double(round_up(cp.n, l.pad_n)),
               kp = double(round_up(cp.k, l.pad_k)), items = double(problem.batch);
  const double largest = std::max({kp * mp, kp * np, mp * np}) * items;
  return largest <= double(kMaxKernelElements) &&
         largest * double(problem.element_size()) <= double(device_.max_alloc_bytes);
}

bool GemmRoutine::multiplies(const GemmProblem& p) {
  return p.m != 0 && p.n != 0 && p.k != 0 && p.batch != 0 && round_to(p.alpha, p.precision) != 0.0;
}

GemmRoutine::GemmRoutine(const KernelSources& sources, ProgramCache& cache,
                         const DeviceInfo& device)
    : sources_(sources), cache_(cache), device_(device) {
  // Tests stand in for a kernel that builds but does not launch on a device (more registers
  // or local memory than its work-group leaves), read once: not per call.
  if (const char* refuse = std::getenv("MMTUNE_TEST_LAUNCH_FAILS")) refused_launch_ = refuse;
}

std::string GemmRoutine::options(const KernelConfig& config, const GemmProblem& problem) {
  return build_options(config, problem.precision) +
         config.kind()->extra_build_options(config, to_col_major(problem));
}

GemmRoutine::Prepared GemmRoutine::prepare(const KernelConfig& config, const GemmProblem& problem) {
  Prepared out;
  const KernelFamily& family = config.kind().family();
  const auto main = cache_.build(program_text(sources_, family), options(config, problem));
  out.build_seconds += main->seconds;
  if (!main->ok) {
    out.log = main->log;
    return out;
  }
  if (family.arguments() == KernelArguments::kPackedPanels) {
    const auto copy = cache_.build(sources_.program("copy.cl"), copy_options(problem.precision));
    out.build_seconds += copy->seconds;
    if (!copy->ok) {
      out.log = copy->log;
      return out;
    }
  }
  out.ok = true;
  return out;
}

void GemmRoutine::keep(const KernelConfig& config, const GemmProblem& problem) {
  const KernelFamily& family = config.kind().family();
  cache_.keep(program_text(sources_, family), options(config, problem));
  if (family.arguments() == KernelArguments::kPackedPanels) {
    cache_.keep(sources_.program("copy.cl"), copy_options(problem.precision));
  }
}

cl::Kernel& GemmRoutine::kernel(const KernelConfig& config, const GemmProblem& problem) {
  const std::string opts = options(config, problem);
  // Two families may share options (no parameters, or parameters of the same names).
  const std::string key = std::string(config.kind()->name()) + " " + opts;
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  const KernelFamily& family = config.kind().family();
  const auto built = cache_.build(program_text(sources_, family), opts);
  if (!built->ok) throw Error("kernel was not built: " + built->log);
  const std::string name = "gemm_" + std::string(family.name());
  return kernels_.emplace(key, cl::Kernel(built->program, name.c_str())).first->second;
}

GemmRoutine::CopyKernels& GemmRoutine::copies(Precision precision) {
  if (auto it = copy_.find(precision); it != copy_.end()) return it->second;
  const auto copy = cache_.build(sources_.program("copy.cl"), copy_options(precision));
  if (!copy->ok) throw Error("copy kernels were not built: " + copy->log);
  // Implementations that want explicit vectors (CPUs) transpose kPackRows rows per work-item with
  // vector loads, and copy panel rows a vector at a time; SIMT ones one row (element) per
  // work-item, neighbours reading neighbours (copy.cl).
  const bool vectors = device_.preferred_width(precision) >= 4;
  CopyKernels& k =
      copy_[precision] = {cl::Kernel(copy->program, "pack_rows"),
                          cl::Kernel(copy->program, vectors ? "pack_cols_blocked" : "pack_cols"),
                          cl::Kernel(copy->program, "unpad_copy"),
                          cl::Kernel(copy->program, "scale_c"),
                          {},
                          vectors ? kPackRows : std::size_t(1),
                          vectors ? cl::Kernel(copy->program, "pack_rows_blocked") : cl::Kernel()};
  if (precision == Precision::kSingle && device_.image_support) {
    k.pack_image = cl::Kernel(copy->program, "pack_image");
  }
  return k;
}

RoutineEvents GemmRoutine::enqueue(const cl::CommandQueue& queue, const GemmProblem& problem,
                                   const KernelConfig& config, Operand a, Operand b, Operand c,
                                   const std::vector<cl::Event>& wait_for) {
  main_enqueued_ = false;
  check(problem, a, b, c);
  if (!queue()) throw UsageError("the command queue is null");
  for (const auto& e : wait_for) {
    if (!e()) throw UsageError("the wait list holds a null event");
  }
  try {
    // Scaling C runs a batch in one launch too (batch 10^8 one launch per item took minutes
    // and gigabytes of events).
    if (problem.batch > 1 && multiplies(problem) && !one_launch_batches(config, problem)) {
      return launch_items(queue, problem, config, a, b, c, wait_for);
    }
    return launch(queue, problem, config, a, b, c, wait_for);
  } catch (const cl::Error& e) {
    throw OpenCLError(
        std::string("OpenCL call ") + e.what() + " failed with error " + std::to_string(e.err()),
        e.err());
  }
}

RoutineEvents GemmRoutine::launch_items(const cl::CommandQueue& queue, const GemmProblem& problem,
                                        const KernelConfig& config, Operand a, Operand b, Operand c,
                                        const std::vector<cl::Event>& wait_for) {
  GemmProblem item = problem;
  item.batch = 1;
  RoutineEvents out;
  for (std::size_t i = 0; i < problem.batch; ++i) {
    std::vector<cl::Event> after;
    if (!out.events.empty()) after.push_back(out.events.back());
    RoutineEvents one = launch(queue, item, config, a, b, c, out.events.empty() ? wait_for : after);
    out.events.insert(out.events.end(), one.events.begin(), one.events.end());
    out.views.insert(out.views.end(), one.views.begin(), one.views.end());
    a.offset += problem.stride_a_or_min();
    b.offset += problem.stride_b_or_min();
    c.offset += problem.stride_c_or_min();
  }
  out.item_loop = true;
  return out;
}

RoutineEvents GemmRoutine::launch(const cl::CommandQueue& queue, const GemmProblem& problem,
                                  const KernelConfig& config, Operand a, Operand b, Operand c,
                                  const std::vector<cl::Event>& wait_for) {
  const Precision prec = problem.precision;
  const std::size_t es = problem.element_size();
  RoutineEvents out;
  if (problem.m == 0 || problem.n == 0 || problem.batch == 0) {  // nothing: an event for the caller
    out.events.emplace_back();
    queue.enqueueMarkerWithWaitList(wait_for.empty() ? nullptr : &wait_for, &out.events.back());
    return out;
  }
  const ColMajorProblem cp = to_col_major(problem);
  if (cp.swapped) std::swap(a, b);
  // Every command waits for the one before it: out-of-order queues run them in sequence too.
  std::vector<cl::Event> first_wait = wait_for;
  bool on_scratch = false;  // the commands use the scratch buffers
  const auto launch_one = [&](cl::Kernel& kern, cl::NDRange global, cl::NDRange local) {
    std::vector<cl::Event> after;
    if (!out.events.empty()) after.push_back(out.events.back());
    const std::vector<cl::Event>& wait = out.events.empty() ? first_wait : after;
    out.events.emplace_back();
    queue.enqueueNDRangeKernel(kern, cl::NullRange, global, local, wait.empty() ? nullptr : &wait,
                               &out.events.back());
    // After each command, not at the end: a call that fails half-way (a later allocation or
    // enqueue) still makes the next call wait for what it enqueued.
    if (on_scratch) scratch_busy_ = out.events.back(), scratch_queue_ = queue;
  };
  const auto launch_main = [&](cl::Kernel& kern, cl::NDRange global, cl::NDRange local) {
    out.main = out.events.size();
    out.main_kernel = kern;
    out.main_global = global;
    out.main_local = local;
    if (!refused_launch_.empty() &&
        options(config, problem).find(refused_launch_) != std::string::npos) {
      throw cl::Error(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel");
    }
    launch_one(kern, global, local);
    main_enqueued_ = true;
  };
  const int M = i32(cp.m), N = i32(cp.n), K = i32(cp.k);

  const std::size_t items = problem.batch;
  const auto grid = [items](std::size_t x, std::size_t y) {
    return items > 1 ? cl::NDRange(x, y, items) : cl::NDRange(x, y);
  };
  if (!multiplies(problem)) {  // C = beta C; A and B are not read
    CopyKernels& copies = this->copies(prec);
    set_args(copies.scale, 0, M, N);
    set_real(copies.scale, 2, problem.beta, prec);
    set_args(copies.scale, 3, *c.buffer, i32(c.offset), i32(cp.ldc),
             i32(problem.stride_c_or_min()));
    launch_one(copies.scale, grid(cp.m, cp.n), cl::NullRange);
    return out;
  }

  cl::Kernel& k = kernel(config, problem);
  const KernelFamily& family = config.kind().family();
  const KernelLaunch l = family.launch(config, cp);
  // A family that batches takes the strides and runs the whole batch as dimension 2 of one
  // launch (launch() has one item where the batch does not run in one launch). One item is a
  // 2-D launch as ever: get_group_id(2) is 0 then.
  const bool batches = family.batches();
  const cl::NDRange global = grid(l.global[0], l.global[1]);
  const cl::NDRange local = !l.local[0] ? cl::NDRange(cl::NullRange)
                            : items > 1 ? cl::NDRange(l.local[0], l.local[1], 1)
                                        : cl::NDRange(l.local[0], l.local[1]);
  // The user's strides, of the column-major operands.
  const std::size_t stride_a = cp.swapped ? problem.stride_b_or_min() : problem.stride_a_or_min();
  const std::size_t stride_b = cp.swapped ? problem.stride_a_or_min() : problem.stride_b_or_min();
  const std::size_t stride_c = problem.stride_c_or_min();
  if (batches && family.arguments() != KernelArguments::kPackedPanels) {
    set_args(k, family.arguments() == KernelArguments::kBuffers ? 14 : 16, i32(stride_a),
             i32(stride_b), i32(stride_c));
  }
  switch (family.arguments()) {
    case KernelArguments::kPackedPanels: {
      if (l.in_place) {  // read where they are: A's panels MWG apart, B's by layout
        set_args(k, 0, M, N, K);
        set_real(k, 3, problem.alpha, prec);
        set_real(k, 4, problem.beta, prec);
        const int lda = i32(cp.lda), ldb = i32(cp.ldb);
        set_args(k, 5, *a.buffer, i32(a.offset), lda, i32(l.pad_m), *b.buffer, i32(b.offset), ldb,
                 cp.trans_b ? i32(l.pad_n) : i32(l.pad_n) * ldb, *c.buffer, i32(c.offset),
                 i32(cp.ldc), i32(stride_a), i32(stride_b), i32(stride_c));
        break;
      }
      const std::size_t mp = family_limits::round_up(cp.m, l.pad_m),
                        np = family_limits::round_up(cp.n, l.pad_n),
                        kp = family_limits::round_up(cp.k, l.pad_k);
      CopyKernels& copies = this->copies(prec);
      // The scratch buffers are this routine's: a call waits until the previous one, on any
      // queue, is done with them.
      if (scratch_busy_()) {
        // OpenCL wants a queue flushed before another queue waits on its event, and the caller
        // cannot know of this dependency. Only then: rusticl's clFinish returns at once after
        // a clFlush, so a routine that always flushed would break `enqueue; finish`.
        if (scratch_queue_() != queue()) scratch_queue_.flush();
        first_wait.push_back(scratch_busy_);
      }
      on_scratch = true;
      // Both operands are packed into panels (see gemm_tiled.cl): the copy costs O(n^2) and
      // spares the kernel a new page and cache set per k row, which caps large sizes on CPUs
      // (docs/kernels.md).
      // A batch's items are packed back to back, rows_p * cols_p elements apart.
      const auto pack = [&](Operand src, int rows, int cols, int si, int sj, std::size_t stride,
                            cl::Buffer& dst, std::size_t rows_p, std::size_t cols_p, int panel) {
        const bool by_rows = sj == 1;
        const bool blocked =
            by_rows && copies.pack_rows_blocked() && std::size_t(panel) % kPackRows == 0;
        cl::Kernel& kern = blocked   ? copies.pack_rows_blocked
                           : by_rows ? copies.pack_rows
                                     : copies.pack_cols;
        const std::size_t panels = cols_p / std::size_t(panel);
        set_args(kern, 0, rows, cols, *src.buffer, i32(src.offset), si, sj, dst, i32(rows_p), panel,
                 i32(stride), i32(rows_p * cols_p));
        if (by_rows) set_args(kern, 11, i32(panels));
        launch_one(kern,
                   by_rows
                       ? cl::NDRange(std::size_t(panel) / (blocked ? kPackRows : 1), rows_p,
                                     panels * items)
                       : grid((rows_p + copies.cols_rows_per_item - 1) / copies.cols_rows_per_item,
                              panels),
                   cl::NullRange);
      };
      // A: K x M with m contiguous in panels of pad_m, from the column-major form (transposed
      // or not); B: K x N with n contiguous in panels of pad_n. Images are plain matrices of
      // float4 texels, packed straight into the image or read in place (image_arg below).
      const int a_panel = i32(l.pad_m), b_panel = i32(l.pad_n);
      const int lda = i32(cp.lda), ldb = i32(cp.ldb);
      const int sia = cp.trans_a ? 1 : lda, sja = cp.trans_a ? lda : 1;
      const int sib = cp.trans_b ? ldb : 1, sjb = cp.trans_b ? 1 : ldb;
      // A kernel that only stores C has beta C added by the unpad copy. Slices of k after the
      // first add to C, reading it: a write-only C is written by the unpad copy then.
      const bool sliced = !l.images && l.k_slice && l.k_slice < kp;
      const bool c_direct = mp == cp.m && np == cp.n && (!l.stores_c_only || problem.beta == 0.0) &&
                            !(sliced && write_only(*c.buffer));
      const cl::Buffer& cb = c_direct ? *c.buffer : scratch(2, np * mp * items * es);
      set_args(k, 0, i32(mp), i32(np), i32(kp));
      set_real(k, 3, problem.alpha, prec);
      const double beta = c_direct ? problem.beta : 0.0;  // C's old values: added once, by unpad
      // Items of a batch: A packed; B packed, or in place at the caller's stride; C likewise.
      const int b_item = l.b_in_place ? i32(stride_b) : i32(kp * np);
      set_args(k, 13, cb, c_direct ? i32(c.offset) : 0, c_direct ? i32(cp.ldc) : i32(mp),
               i32(kp * mp), b_item, c_direct ? i32(stride_c) : i32(np * mp));
      if (l.images) {
        if (!copies.pack_image()) throw Error("images need fp32 and a device with images");
        // An image of rows_p rows of width texels: the caller's buffer where its rows already
        // are the image's and its tiles whole (`fits`: read in place), else packed. Sets the
        // kernel's image, its offset in texels and its row in elements.
        const bool m_whole = mp == cp.m, n_whole = np == cp.n, k_whole = kp == cp.k;
        const auto image_arg = [&](int arg, Operand src, bool fits, std::size_t ld, int rows,
                                   int cols, int si, int sj, int slot, std::size_t rows_p,
                                   std::size_t width) {
          if (l.images_in_place && fits) {
            if (auto view = image_in_place(src, *c.buffer, rows_p, width, ld)) {
              out.views.push_back(*view);
              set_args(k, arg, *view, i32(src.offset / 4), i32(ld), 0);  // no panels
              return;
            }
          }
          TexelImage& dst = image(slot, width * rows_p);
          set_args(copies.pack_image, 0, rows, cols, *src.buffer, i32(src.offset), si, sj,
                   dst.texels);
          launch_one(copies.pack_image, cl::NDRange(width, rows_p), cl::NullRange);
          set_args(k, arg, dst.image, 0, i32(4 * width), 0);
        };
        set_real(k, 4, beta, prec);
        // A: K rows of M/4 texels (m contiguous: A untransposed). B likewise with n (B
        // transposed), or N rows of K/4 texels where B is k-contiguous (b_k_texels).
        // Each needs only its own dimensions whole.
        image_arg(5, a, !cp.trans_a && m_whole && k_whole, cp.lda, K, M, sia, sja, 0, kp, mp / 4);
        if (l.b_k_texels) {
          image_arg(9, b, n_whole && k_whole, cp.ldb, N, K, sjb, sib, 1, np, kp / 4);
        } else {
          image_arg(9, b, cp.trans_b && n_whole && k_whole, cp.ldb, K, N, sib, sjb, 1, kp, np / 4);
        }
        launch_main(k, global, local);
      } else {
        cl::Buffer& as = scratch(0, kp * mp * items * es);
        pack(a, K, M, sia, sja, stride_a, as, kp, mp, a_panel);
        // B in place (k-contiguous, whole tiles: kp = K, np = N): B(k, n) at n * ldb + k, its
        // panels NWG columns apart; the kernel was built with -DBK=1.
        struct BArgs {
          cl::Buffer buffer;
          int offset, k_step, ld, panel;  // element k0 of a slice at offset + k0 * k_step
        };
        BArgs bb;
        if (l.b_in_place) {
          bb = {*b.buffer, i32(b.offset), 1, ldb, b_panel * ldb};
        } else {
          cl::Buffer& bs = scratch(1, kp * np * items * es);
          pack(b, K, N, sib, sjb, stride_b, bs, kp, np, b_panel);
          bb = {bs, 0, b_panel, b_panel, i32(kp) * b_panel};
        }
        // The panels keep their stride; slice i starts k0 rows into each and adds to C.
        const std::size_t slice = l.k_slice && l.k_slice < kp ? l.k_slice : kp;
        const std::size_t slices = (kp + slice - 1) / slice;
        const auto select = [k, as, bb, slice, kp, beta, prec, a_panel](std::size_t i) {
          const std::size_t k0 = i * slice;
          cl::Kernel kern = k;
          set_args(kern, 2, i32(std::min(slice, kp - k0)));
          set_real(kern, 4, i == 0 ? beta : 1.0, prec);
          set_args(kern, 5, as, i32(k0) * a_panel, a_panel, i32(kp) * a_panel, bb.buffer,
                   bb.offset + i32(k0) * bb.k_step, bb.ld, bb.panel);
        };
        for (std::size_t i = 0; i < slices; ++i) {
          select(i);
          if (i == 0) {
            launch_main(k, global, local);
          } else {
            launch_one(k, global, local);
          }
        }
        if (slices > 1) out.select_slice = select, out.main_launches = slices;
      }
      if (!c_direct) {
        set_args(copies.unpad, 0, N, M);
        set_real(copies.unpad, 2, problem.beta, prec);
        set_args(copies.unpad, 3, cb, i32(mp), *c.buffer, i32(c.offset), i32(cp.ldc), i32(np * mp),
                 i32(stride_c));
        launch_one(copies.unpad, grid(cp.m, cp.n), cl::NullRange);
      }
      return out;
    }
    case KernelArguments::kBuffers:
      set_args(k, 0, M, N, K);
      set_real(k, 3, problem.alpha, prec);
      set_real(k, 4, problem.beta, prec);
      set_args(k, 5, *a.buffer, i32(a.offset), i32(cp.lda), *b.buffer, i32(b.offset), i32(cp.ldb),
               *c.buffer, i32(c.offset), i32(cp.ldc));
      break;
    case KernelArguments::kBuffersAndTranspositions:
      set_args(k, 0, M, N, K);
      set_real(k, 3, problem.alpha, prec);
      set_real(k, 4, problem.beta, prec);
      set_args(k, 5, *a.buffer, i32(a.offset), i32(cp.lda), cp.trans_a ? 1 : 0, *b.buffer,
               i32(b.offset), i32(cp.ldb), cp.trans_b ? 1 : 0, *c.buffer, i32(c.offset),
               i32(cp.ldc));
      break;
  }
  launch_main(k, global, local);
  return out;
}

}  // namespace mmtune
