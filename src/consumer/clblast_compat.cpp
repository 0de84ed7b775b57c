#include "mmtune/clblast_compat.hpp"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "mmtune/gemm.hpp"
#include "opencl/gemm_routine.hpp"
#include "opencl/host_data.hpp"

namespace mmtune::clblast_compat {
namespace {

// CLBlast's free functions have no object to hold state, so the compatible ones keep theirs
// here: one Gemm per (context, device) and the lookup they share. Only this file sees it.
class Registry {
 public:
  static Registry& get() {
    static Registry registry;
    return registry;
  }

  // The Gemm for the queue's context and device, created on first use.
  std::shared_ptr<mmtune::Gemm> gemm(cl_command_queue queue) {
    cl_context context = nullptr;
    cl_device_id device = nullptr;
    if (clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr) !=
            CL_SUCCESS ||
        clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) !=
            CL_SUCCESS) {
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = gemms_[{context, device}];
    if (!slot) slot = std::make_shared<mmtune::Gemm>(context, queue, lookup_locked());
    return slot;
  }

  void set_lookup(std::shared_ptr<const ParameterLookup> lookup) {
    std::lock_guard<std::mutex> lock(mutex_);
    lookup_ = std::move(lookup);
    lookup_set_ = true;
    gemms_.clear();  // their parameters came from the old lookup
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    gemms_.clear();
  }

 private:
  std::shared_ptr<const ParameterLookup> lookup_locked() {
    if (!lookup_set_) {
      if (const char* env = std::getenv("MMTUNE_DB"); env && *env) {
        // A UsageError is reported by this call and by every later one: never defaults instead
        // of the database the user named.
        lookup_ = std::make_shared<const ParameterLookup>(env);
      }
      lookup_set_ = true;
    }
    return lookup_;
  }

  std::mutex mutex_;
  std::map<std::pair<cl_context, cl_device_id>, std::shared_ptr<mmtune::Gemm>> gemms_;
  std::shared_ptr<const ParameterLookup> lookup_;
  bool lookup_set_ = false;
};

template <typename T>
struct Scalar;
template <>
struct Scalar<float> {
  static constexpr Precision precision = Precision::kSingle;
  static double value(float v) { return v; }
};
template <>
struct Scalar<double> {
  static constexpr Precision precision = Precision::kDouble;
  static double value(double v) { return v; }
};
template <>
struct Scalar<cl_half> {
  static constexpr Precision precision = Precision::kHalf;
  static double value(cl_half v) { return from_half(v); }
};

// The buffer's size in bytes; false when it is not a valid buffer (an image is not one).
bool buffer_size(cl_mem buffer, std::size_t& bytes) {
  cl_mem_object_type type = 0;
  return buffer &&
         clGetMemObjectInfo(buffer, CL_MEM_TYPE, sizeof type, &type, nullptr) == CL_SUCCESS &&
         type == CL_MEM_OBJECT_BUFFER &&
         clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof bytes, &bytes, nullptr) == CL_SUCCESS;
}

// CLBlast's checks of one matrix, in its order: leading dimension, then buffer and size. `one`
// is the stored matrix's contiguous extent, `two` the other.
StatusCode check_matrix(std::size_t one, std::size_t two, cl_mem buffer, std::size_t offset,
                        std::size_t ld, std::size_t element_size, StatusCode bad_ld,
                        StatusCode bad_buffer, StatusCode too_small) {
  if (ld < one) return bad_ld;
  std::size_t bytes = 0;
  if (!buffer_size(buffer, bytes)) return bad_buffer;
  // ld * (two - 1) + one + offset elements, without overflow (then: beyond 32-bit indexing).
  const std::size_t extent = two == 0 || one == 0 ? 0 : (two - 1) * ld + one;
  if (two > 1 && ld > (kMaxKernelElements / (two - 1))) return StatusCode::kInvalidValue;
  const std::size_t end = addressable_end(offset, extent);
  if (end == 0 && extent != 0) return StatusCode::kInvalidValue;
  if (end > bytes / element_size) return too_small;
  return StatusCode::kSuccess;
}

StatusCode from_error(const mmtune::Error& e) {
  if (const auto* cl = dynamic_cast<const OpenCLError*>(&e)) return StatusCode(cl->cl_code());
  if (dynamic_cast<const UsageError*>(&e)) return StatusCode::kInvalidValue;
  // The tuning database failed to read (the lookup opens $MMTUNE_DB at the first call).
  if (dynamic_cast<const StorageError*>(&e)) return StatusCode::kDatabaseError;
  return StatusCode::kOpenCLBuildProgramFailure;  // Error: a kernel failed to build
}

}  // namespace

template <typename T>
StatusCode Gemm(const Layout layout, const Transpose a_transpose, const Transpose b_transpose,
                const std::size_t m, const std::size_t n, const std::size_t k, const T alpha,
                const cl_mem a_buffer, const std::size_t a_offset, const std::size_t a_ld,
                const cl_mem b_buffer, const std::size_t b_offset, const std::size_t b_ld,
                const T beta, cl_mem c_buffer, const std::size_t c_offset, const std::size_t c_ld,
                cl_command_queue* queue, cl_event* event, cl_mem /*temp_buffer*/) {
  if (!queue || !*queue) return StatusCode::kInvalidCommandQueue;
  if ((layout != Layout::kRowMajor && layout != Layout::kColMajor) ||
      (a_transpose != Transpose::kNo && a_transpose != Transpose::kYes &&
       a_transpose != Transpose::kConjugate) ||
      (b_transpose != Transpose::kNo && b_transpose != Transpose::kYes &&
       b_transpose != Transpose::kConjugate)) {
    return StatusCode::kInvalidValue;
  }
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.precision = Scalar<T>::precision;
  p.layout = layout == Layout::kRowMajor ? mmtune::Layout::kRowMajor : mmtune::Layout::kColMajor;
  p.trans_a = a_transpose != Transpose::kNo, p.trans_b = b_transpose != Transpose::kNo;
  p.alpha = Scalar<T>::value(alpha), p.beta = Scalar<T>::value(beta);
  // The leading dimensions as given: 0 is mmtune's "tight", but too small for CLBlast.
  p.lda = std::max<std::size_t>(a_ld, 1), p.ldb = std::max<std::size_t>(b_ld, 1),
  p.ldc = std::max<std::size_t>(c_ld, 1);
  const std::size_t es = p.element_size();
  const bool row = p.layout == mmtune::Layout::kRowMajor;
  if (m != 0 && n != 0) {
    const std::size_t a_one = row ? p.a_cols() : p.a_rows(), a_two = row ? p.a_rows() : p.a_cols();
    const std::size_t b_one = row ? p.b_cols() : p.b_rows(), b_two = row ? p.b_rows() : p.b_cols();
    // As CLBlast, A's and B's leading dimensions are checked where they are not read (alpha or
    // k is 0), in its order; their buffers only where they are read (BLAS semantics).
    const bool reads = GemmRoutine::multiplies(p);
    StatusCode s = a_ld < a_one ? StatusCode::kInvalidLeadDimA
                   : reads      ? check_matrix(a_one, a_two, a_buffer, a_offset, a_ld, es,
                                               StatusCode::kInvalidLeadDimA, StatusCode::kInvalidMatrixA,
                                               StatusCode::kInsufficientMemoryA)
                                : StatusCode::kSuccess;
    if (s != StatusCode::kSuccess) return s;
    s = b_ld < b_one ? StatusCode::kInvalidLeadDimB
        : reads
            ? check_matrix(b_one, b_two, b_buffer, b_offset, b_ld, es, StatusCode::kInvalidLeadDimB,
                           StatusCode::kInvalidMatrixB, StatusCode::kInsufficientMemoryB)
            : StatusCode::kSuccess;
    if (s != StatusCode::kSuccess) return s;
    s = check_matrix(row ? n : m, row ? m : n, c_buffer, c_offset, c_ld, es,
                     StatusCode::kInvalidLeadDimC, StatusCode::kInvalidMatrixC,
                     StatusCode::kInsufficientMemoryC);
    if (s != StatusCode::kSuccess) return s;
  }
  try {
    const auto gemm = Registry::get().gemm(*queue);
    if (!gemm) return StatusCode::kInvalidCommandQueue;
    if (!gemm->device().supports(p.precision)) {
      return p.precision == Precision::kHalf ? StatusCode::kNoHalfPrecision
                                             : StatusCode::kNoDoublePrecision;
    }
    // Wrappers that do not take the caller's references over.
    const cl::CommandQueue q(*queue, /*retainObject=*/true);
    const auto wrap = [](cl_mem mem) {
      return mem ? cl::Buffer(mem, /*retainObject=*/true) : cl::Buffer();
    };
    const cl::Buffer a = wrap(a_buffer), b = wrap(b_buffer), c = wrap(c_buffer);
    cl::Event done = gemm->enqueue(q, p, a, b, c, a_offset, b_offset, c_offset);
    if (event) {
      clRetainEvent(done());
      *event = done();
    }
    return StatusCode::kSuccess;
  } catch (const mmtune::Error& e) {
    return from_error(e);
  } catch (const cl::Error& e) {
    return StatusCode(e.err());
  } catch (...) {
    return StatusCode::kUnexpectedError;
  }
}

StatusCode SetTuningDatabase(const std::string& path) {
  try {
    Registry::get().set_lookup(path.empty() ? nullptr
                                            : std::make_shared<const ParameterLookup>(path));
    return StatusCode::kSuccess;
  } catch (const StorageError&) {  // opened, but cannot be read (as in Gemm)
    return StatusCode::kDatabaseError;
  } catch (const mmtune::Error&) {
    return StatusCode::kInvalidValue;
  } catch (...) {  // a C-style entry point lets no exception out (e.g. std::bad_alloc)
    return StatusCode::kUnexpectedError;
  }
}

StatusCode ClearCache() {
  Registry::get().clear();
  return StatusCode::kSuccess;
}

template StatusCode Gemm<float>(const Layout, const Transpose, const Transpose, const std::size_t,
                                const std::size_t, const std::size_t, const float, const cl_mem,
                                const std::size_t, const std::size_t, const cl_mem,
                                const std::size_t, const std::size_t, const float, cl_mem,
                                const std::size_t, const std::size_t, cl_command_queue*, cl_event*,
                                cl_mem);
template StatusCode Gemm<double>(const Layout, const Transpose, const Transpose, const std::size_t,
                                 const std::size_t, const std::size_t, const double, const cl_mem,
                                 const std::size_t, const std::size_t, const cl_mem,
                                 const std::size_t, const std::size_t, const double, cl_mem,
                                 const std::size_t, const std::size_t, cl_command_queue*, cl_event*,
                                 cl_mem);
template StatusCode Gemm<cl_half>(const Layout, const Transpose, const Transpose, const std::size_t,
                                  const std::size_t, const std::size_t, const cl_half, const cl_mem,
                                  const std::size_t, const std::size_t, const cl_mem,
                                  const std::size_t, const std::size_t, const cl_half, cl_mem,
                                  const std::size_t, const std::size_t, cl_command_queue*,
                                  cl_event*, cl_mem);

}  // namespace mmtune::clblast_compat
