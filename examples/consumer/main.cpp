// Multiplies two matrices on the first OpenCL device with the tuned GEMM of mmtune, checks the
// result on the CPU and says which parameters were used.
//   consumer [tuning.db]
#include <mmtune/gemm.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

int main(int argc, char** argv) {
  const auto devices = mmtune::list_devices();
  const mmtune::Device& dev = devices.front();
  cl::Context context(dev.device);
  cl::CommandQueue queue(context, dev.device);
  auto lookup = argc > 1 ? std::make_shared<const mmtune::ParameterLookup>(argv[1]) : nullptr;
  mmtune::Gemm gemm(context, queue, lookup);

  mmtune::GemmProblem p;  // row-major, C (m x n) = A (m x k) * B (k x n)
  p.m = 100, p.n = 70, p.k = 33;
  std::vector<float> a(p.m * p.k), b(p.k * p.n), c(p.m * p.n, 0.0f);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) - 3.0f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) * 0.5f;
  cl::Buffer da(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * 4, a.data());
  cl::Buffer db(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b.size() * 4, b.data());
  cl::Buffer dc(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, c.size() * 4, c.data());
  gemm(p, da, db, dc).wait();
  queue.enqueueReadBuffer(dc, CL_TRUE, 0, c.size() * 4, c.data());

  for (std::size_t i = 0; i < p.m; ++i) {
    for (std::size_t j = 0; j < p.n; ++j) {
      double ref = 0;
      for (std::size_t l = 0; l < p.k; ++l) ref += double(a[i * p.k + l]) * b[l * p.n + j];
      if (std::fabs(c[i * p.n + j] - ref) > 1e-3 * (1 + std::fabs(ref))) {
        std::printf("mismatch at (%zu, %zu): %f vs %f\n", i, j, c[i * p.n + j], ref);
        return 1;
      }
    }
  }
  const auto& t = gemm.parameters(p);
  std::printf("consumer ok: %s kernel, parameters from %s [%s]\n",
              mmtune::kernel_name(mmtune::kind_of(t.config)), mmtune::to_string(t.source),
              mmtune::to_string(t.config).c_str());
  return 0;
}
