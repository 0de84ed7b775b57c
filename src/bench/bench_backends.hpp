// Optional comparison libraries of `mmtune bench`, each compiled only when found at build time.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mmtune/cl.hpp"
#include "mmtune/problem.hpp"

namespace mmtune::bench_detail {

// Enqueues CLBlast's GEMM (its own routine, with the parameters it holds for the device; a
// batch as GemmStridedBatched) and waits for it. Returns false with `error` set when unavailable or
// failing.
bool clblast_gemm(cl::CommandQueue& queue, const GemmProblem& p, const cl::Buffer& a,
                  const cl::Buffer& b, const cl::Buffer& c, std::string& error);
bool clblast_available();

// CLBlast's current Xgemm parameters for the device and precision, and replacing them
// (clblast::RetrieveParameters / OverrideParameters; the set must be complete). False with
// `error` set when CLBlast rejects them or is unavailable.
bool clblast_get_xgemm(const cl::Device& device, Precision precision,
                       std::map<std::string, int>& parameters, std::string& error);
bool clblast_set_xgemm(const cl::Device& device, Precision precision,
                       const std::map<std::string, int>& parameters, std::string& error);

// The host's BLAS (CBLAS sgemm/dgemm, a batch one call per item) on host arrays of the
// problem's precision (fp32 or fp64, as raw bytes). Returns false with `error` set when
// unavailable.
bool host_gemm(const GemmProblem& p, const std::vector<unsigned char>& a,
               const std::vector<unsigned char>& b, std::vector<unsigned char>& c,
               std::string& error);
bool host_blas_available();
std::string host_blas_name();  // e.g. OpenBLAS's configuration and the CPU core it chose
// Why the host BLAS is not a fair baseline here, or empty: OpenBLAS falls back to generic kernels
// on CPU models it does not know, a fraction of the CPU's speed.
std::string host_blas_warning();

}  // namespace mmtune::bench_detail
