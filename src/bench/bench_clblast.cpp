#include "bench/bench_backends.hpp"

#ifdef MMTUNE_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace mmtune::bench_detail {

#ifdef MMTUNE_HAVE_CLBLAST
bool clblast_available() {
  return true;
}

bool clblast_gemm(cl::CommandQueue& queue, const GemmProblem& p, const cl::Buffer& a,
                  const cl::Buffer& b, const cl::Buffer& c, std::string& error) {
  const auto layout =
      p.layout == Layout::kRowMajor ? clblast::Layout::kRowMajor : clblast::Layout::kColMajor;
  const auto ta = p.trans_a ? clblast::Transpose::kYes : clblast::Transpose::kNo;
  const auto tb = p.trans_b ? clblast::Transpose::kYes : clblast::Transpose::kNo;
  cl_command_queue q = queue();
  cl_event event = nullptr;
  clblast::StatusCode s;
  if (p.batch > 1 && p.precision == Precision::kDouble) {
    s = clblast::GemmStridedBatched<double>(
        layout, ta, tb, p.m, p.n, p.k, p.alpha, a(), 0, p.lda_or_min(), p.stride_a_or_min(), b(), 0,
        p.ldb_or_min(), p.stride_b_or_min(), p.beta, c(), 0, p.ldc_or_min(), p.stride_c_or_min(),
        p.batch, &q, &event);
  } else if (p.batch > 1 && p.precision == Precision::kSingle) {
    s = clblast::GemmStridedBatched<float>(
        layout, ta, tb, p.m, p.n, p.k, float(p.alpha), a(), 0, p.lda_or_min(), p.stride_a_or_min(),
        b(), 0, p.ldb_or_min(), p.stride_b_or_min(), float(p.beta), c(), 0, p.ldc_or_min(),
        p.stride_c_or_min(), p.batch, &q, &event);
  } else if (p.precision == Precision::kDouble) {
    s = clblast::Gemm<double>(layout, ta, tb, p.m, p.n, p.k, p.alpha, a(), 0, p.lda_or_min(), b(),
                              0, p.ldb_or_min(), p.beta, c(), 0, p.ldc_or_min(), &q, &event);
  } else if (p.precision == Precision::kSingle) {
    s = clblast::Gemm<float>(layout, ta, tb, p.m, p.n, p.k, float(p.alpha), a(), 0, p.lda_or_min(),
                             b(), 0, p.ldb_or_min(), float(p.beta), c(), 0, p.ldc_or_min(), &q,
                             &event);
  } else {
    error = "fp16 is not benchmarked against CLBlast";
    return false;
  }
  if (s != clblast::StatusCode::kSuccess) {
    error = "CLBlast returned status " + std::to_string(static_cast<int>(s));
    return false;
  }
  queue.finish();
  if (event) {  // as for mmtune's routine: rusticl's clFinish may return before the work is done
    clWaitForEvents(1, &event);
    clReleaseEvent(event);
  }
  return true;
}
namespace {
clblast::Precision clblast_precision(Precision p) {
  return p == Precision::kDouble ? clblast::Precision::kDouble : clblast::Precision::kSingle;
}
}  // namespace

bool clblast_get_xgemm(const cl::Device& device, Precision precision,
                       std::map<std::string, int>& parameters, std::string& error) {
  std::unordered_map<std::string, size_t> current;
  const auto s =
      clblast::RetrieveParameters(device(), "Xgemm", clblast_precision(precision), current);
  if (s != clblast::StatusCode::kSuccess) {
    error = "CLBlast RetrieveParameters returned status " + std::to_string(static_cast<int>(s));
    return false;
  }
  parameters.clear();
  for (const auto& [name, value] : current) parameters[name] = int(value);
  return true;
}

bool clblast_set_xgemm(const cl::Device& device, Precision precision,
                       const std::map<std::string, int>& parameters, std::string& error) {
  const std::unordered_map<std::string, size_t> wanted(parameters.begin(), parameters.end());
  const auto s =
      clblast::OverrideParameters(device(), "Xgemm", clblast_precision(precision), wanted);
  if (s != clblast::StatusCode::kSuccess) {
    error = "CLBlast OverrideParameters returned status " + std::to_string(static_cast<int>(s));
    return false;
  }
  return true;
}
#else
bool clblast_available() {
  return false;
}

bool clblast_get_xgemm(const cl::Device&, Precision, std::map<std::string, int>&,
                       std::string& error) {
  error = "not available (built without CLBlast)";
  return false;
}

bool clblast_set_xgemm(const cl::Device&, Precision, const std::map<std::string, int>&,
                       std::string& error) {
  error = "not available (built without CLBlast)";
  return false;
}

bool clblast_gemm(cl::CommandQueue&, const GemmProblem&, const cl::Buffer&, const cl::Buffer&,
                  const cl::Buffer&, std::string& error) {
  error = "not available (built without CLBlast)";
  return false;
}
#endif

}  // namespace mmtune::bench_detail
