// Host time of one Gemm::operator() call against a bare enqueue of the same kernel: what the
// consumer API (parameter lookup, checks, argument setting, event chaining) adds per call.
// Both are timed call by call in interleaved blocks, host side only (until the enqueue
// returns); the queue is drained between blocks, outside the timing.
//   mmtune_call_overhead [device] [calls]     device: index or name part (default 0)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "mmtune/gemm.hpp"
#include "opencl/gemm_routine.hpp"
#include "opencl/kernel_source.hpp"
#include "opencl/program_cache.hpp"
#include "store/store.hpp"

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

int main(int argc, char** argv) {
  using namespace mmtune;
  try {
    const auto devices = list_devices();
    const Device& dev = select_device(devices, argc > 1 ? argv[1] : "0");
    const int calls = argc > 2 ? std::atoi(argv[2]) : 10000;
    cl::Context context(dev.device);
    cl::CommandQueue queue(context, dev.device);

    // A tuning database whose best for 16x16x16 is the one-launch direct kernel, so both sides
    // enqueue exactly one kernel.
    GemmProblem p;
    p.m = p.n = p.k = 16;
    const DirectConfig config;
    char dir[] = "/tmp/mmtune-overhead-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    const std::string db = std::string(dir) + "/overhead.db";
    {
      Store store(db);
      store.upsert_device(dev.info);
      MeasurementRecord r;
      r.device_key = dev.info.key, r.kernel = "direct", r.config = to_string(KernelConfig(config));
      r.problem = p;
      r.result.median_ms = r.result.min_ms = r.result.max_ms = r.result.kernel_median_ms = 0.01;
      r.result.routine_ms = r.result.kernel_ms = {0.01};
      store.add_measurement(r);
    }
    Gemm gemm(context, queue, std::make_shared<const ParameterLookup>(db));
    std::filesystem::remove_all(dir);
    if (kind_of(gemm.parameters(p).config) != KernelKind::kDirect) {
      std::fprintf(stderr, "the lookup did not pick the direct kernel\n");
      return 1;
    }
    const std::size_t bytes = 16 * 16 * 4;
    cl::Buffer a(context, CL_MEM_READ_WRITE, bytes), b(context, CL_MEM_READ_WRITE, bytes),
        c(context, CL_MEM_READ_WRITE, bytes);
    gemm(p, a, b, c).wait();  // builds

    // The same kernel, built the same way, arguments set once.
    ProgramCache cache(context, dev.device, dev.info.key);
    const auto built = cache.build(KernelSources().program("gemm_direct.cl"),
                                   build_options(config, p.precision) + " -DTRANS_A=0 -DTRANS_B=0");
    if (!built->ok) {
      std::fprintf(stderr, "build failed: %s\n", built->log.c_str());
      return 1;
    }
    cl::Kernel k(built->program, "gemm_direct");
    int arg = 0;
    for (int v : {16, 16, 16}) k.setArg(arg++, v);
    k.setArg(arg++, 1.0f), k.setArg(arg++, 0.0f);
    for (const cl::Buffer* buf : {&b, &a, &c}) {
      k.setArg(arg++, *buf);
      k.setArg(arg++, 0);
      k.setArg(arg++, 16);
    }
    const std::size_t groups = (16 + config.WGD - 1) / config.WGD;
    const cl::NDRange global(groups * config.MDIMCD, groups * config.NDIMCD);
    const cl::NDRange local(config.MDIMCD, config.NDIMCD);

    std::vector<double> api, bare;
    const int block = 100;
    for (int done = 0; done < calls; done += block) {
      for (int i = 0; i < block; ++i) {
        const auto t0 = Clock::now();
        gemm(p, a, b, c);
        api.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      queue.finish();
      for (int i = 0; i < block; ++i) {
        cl::Event e;
        const auto t0 = Clock::now();
        queue.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, &e);
        bare.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      queue.finish();
    }
    const double m_api = median(api), m_bare = median(bare);
    std::printf(
        "%s, %zu calls each, 16x16x16 fp32 direct kernel, host time until the enqueue "
        "returns (median):\n",
        dev.info.name.c_str(), api.size());
    std::printf(
        "  Gemm::operator()  %.2f us\n  bare enqueue      %.2f us\n  overhead          "
        "%.2f us per call\n",
        m_api, m_bare, m_api - m_bare);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
