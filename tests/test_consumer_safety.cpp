// The consumer GEMM embedded in someone else's program: any queue, overflow-proof checks, BLAS
// semantics, events in and out, threads, and only mmtune::Error escaping.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <thread>

#include "mmtune/error.hpp"
#include "mmtune/gemm.hpp"
#include "opencl/host_data.hpp"
#include "opencl/reference.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

// A lookup whose only stored best is `config`: every shape uses that kernel.
std::shared_ptr<const ParameterLookup> lookup_with(const test::TempDir& dir, const DeviceInfo& d,
                                                   const KernelConfig& config) {
  const std::string path = dir / (std::string(kernel_name(kind_of(config))) + ".db");
  {
    Store store(path);
    for (int layout = 0; layout < 2; ++layout) {
      for (int t = 0; t < 4; ++t) {
        GemmProblem p;
        p.m = p.n = p.k = 64;
        p.layout = layout ? Layout::kColMajor : Layout::kRowMajor;
        p.trans_a = t & 1, p.trans_b = t & 2;
        test::store_best(store, d, p, config, 1.0);
      }
    }
  }
  return std::make_shared<const ParameterLookup>(path);
}

TiledConfig small_tiled() {  // packs both operands, pads C: every command of the tiled path
  TiledConfig t;
  t.MWG = 32, t.NWG = 32, t.KWG = 16, t.MDIMC = 4, t.NDIMC = 4, t.VWM = 4, t.VWN = 4, t.KWI = 2;
  t.SA = 0, t.SB = 0, t.MDIMA = 4, t.NDIMB = 4;
  return t;
}

struct Uploaded {
  cl::Buffer a, b, c;
};

using test::download;
using test::upload;

// A random problem of odd shape: sizes 1-130, any layout and transposition, padded leading
// dimensions now and then, beta = 0 with NaN in C now and then.
GemmProblem random_problem(std::mt19937& rng) {
  const auto size = [&] { return std::size_t(1 + rng() % 130); };
  GemmProblem p;
  p.m = size(), p.n = size(), p.k = size();
  p.layout = rng() % 2 ? Layout::kRowMajor : Layout::kColMajor;
  p.trans_a = rng() % 2, p.trans_b = rng() % 2;
  if (rng() % 3 == 0) p.lda = p.min_ld(p.a_rows(), p.a_cols()) + rng() % 5;
  if (rng() % 3 == 0) p.ldc = p.min_ld(p.m, p.n) + rng() % 5;
  p.alpha = 1.25, p.beta = rng() % 3 == 0 ? 0.0 : -0.5;
  return p;
}

class OutOfOrder : public ::testing::TestWithParam<const char*> {};

// Every command of a call waits for the one before it: without that, PoCL runs the packing, the
// GEMM and the copy-back at once and every element is wrong.
TEST_P(OutOfOrder, EveryKernelPathIsCorrectOnAnOutOfOrderQueue) {
  const Device& dev = test::pocl_device(GetParam());
  cl::Context context(dev.device);
  cl::CommandQueue queue(context, dev.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  test::TempDir dir;
  DirectConfig direct;
  TiledConfig image = small_tiled();  // packs straight into images instead of buffers
  image.IMG = 1;
  const std::pair<const char*, KernelConfig> paths[] = {
      {"tiled", small_tiled()}, {"tiled_image", image}, {"direct", direct}};
  std::mt19937 rng(20261201);
  for (const auto& [name, config] : paths) {
    Gemm gemm(context, queue, lookup_with(dir, dev.info, config));
    for (int i = 0; i < 8; ++i) {
      const GemmProblem p = random_problem(rng);
      ASSERT_EQ(kind_of(gemm.parameters(p).config), kind_of(config));
      const Operands o = random_operands(p, 100 + i, p.beta == 0.0);
      const Reference ref = reference_gemm(p, o);
      const cl::Buffer a = upload(context, o.a, p.precision), b = upload(context, o.b, p.precision),
                       c = upload(context, o.c, p.precision);
      gemm(p, a, b, c).wait();
      const Verdict v = verify(p, ref, download(queue, c, o.c.size(), p.precision), o.c);
      EXPECT_TRUE(v.ok) << name << " " << describe(p) << ": " << v.message;
    }
  }
}

// Chained by events alone: the second GEMM reads the first one's C, on an out-of-order queue.
TEST_P(OutOfOrder, CallsChainThroughTheirEvents) {
  const Device& dev = test::pocl_device(GetParam());
  cl::Context context(dev.device);
  cl::CommandQueue queue(context, dev.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  test::TempDir dir;
  Gemm gemm(context, queue, lookup_with(dir, dev.info, small_tiled()));
  GemmProblem p;
  p.m = 70, p.n = 50, p.k = 40;
  GemmProblem q = p;  // D (70 x 30) = C (70 x 50) * E (50 x 30)
  q.n = 30, q.k = 50;
  const Operands o = random_operands(p, 1), o2 = random_operands(q, 2);
  const cl::Buffer a = upload(context, o.a, p.precision), b = upload(context, o.b, p.precision),
                   c = upload(context, o.c, p.precision), e = upload(context, o2.b, q.precision),
                   d = upload(context, o2.c, q.precision);
  // Events only: the first call waits for the upload of A (a user event would do too, but
  // PoCL 3.1 deadlocks in clSetUserEventStatus once kernels depend on it).
  const auto a_bytes = to_bytes(o.a, p.precision);
  cl::Event uploaded;
  queue.enqueueWriteBuffer(a, CL_FALSE, 0, a_bytes.size(), a_bytes.data(), nullptr, &uploaded);
  const cl::Event first = gemm(p, a, b, c, 0, 0, 0, {uploaded});
  const cl::Event second = gemm(q, c, e, d, 0, 0, 0, {first});
  second.wait();
  EXPECT_EQ(first.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), CL_COMPLETE);
  const Reference r1 = reference_gemm(p, o);
  Operands chained = o2;
  chained.a = r1.c;
  const Reference r2 = reference_gemm(q, chained);
  const Verdict v = verify(q, r2, download(queue, d, o2.c.size(), q.precision), o2.c);
  EXPECT_TRUE(v.ok) << v.message;
}

INSTANTIATE_TEST_SUITE_P(PoclDevices, OutOfOrder, ::testing::Values("pthread", "basic"),
                         [](const auto& p) { return std::string(p.param); });

// A call on a second queue waits for the first call's use of the scratch buffers. OpenCL wants
// the first queue flushed before another queue waits on its event; the caller does not know of
// that dependency, so the routine flushes (rusticl hands commands to the device only at a flush).
class CrossQueue : public ::testing::TestWithParam<const char*> {};

TEST_P(CrossQueue, ASecondQueueNeverWaitsOnAnUnflushedCall) {
  const Device& dev = test::device_named(GetParam());
  cl::Context context(dev.device);
  cl::CommandQueue first(context, dev.device), second(context, dev.device);
  test::TempDir dir;
  Gemm gemm(context, first, lookup_with(dir, dev.info, small_tiled()));
  GemmProblem p;
  p.m = 70, p.n = 50, p.k = 40;
  const Operands o = random_operands(p, 3);
  const Reference ref = reference_gemm(p, o);
  const cl::Buffer a = upload(context, o.a, p.precision), b = upload(context, o.b, p.precision),
                   c1 = upload(context, o.c, p.precision), c2 = upload(context, o.c, p.precision);
  first.finish();
  const cl::Event one = gemm.enqueue(first, p, a, b, c1);  // nobody flushes `first`
  gemm.enqueue(second, p, a, b, c2).wait();
  one.wait();
  for (const cl::Buffer* c : {&c1, &c2}) {
    const Verdict v = verify(p, ref, download(second, *c, o.c.size(), p.precision), o.c);
    EXPECT_TRUE(v.ok) << v.message;
  }
}
INSTANTIATE_TEST_SUITE_P(Pocl, CrossQueue, ::testing::Values("pthread"),
                         [](const auto& p) { return std::string(p.param); });
INSTANTIATE_TEST_SUITE_P(Llvmpipe, CrossQueue, ::testing::Values("llvmpipe"),
                         [](const auto& p) { return std::string(p.param); });

class SafeGemm : public ::testing::Test {
 protected:
  const Device& dev = test::pocl_device("pthread");
  cl::Context context{dev.device};
  cl::CommandQueue queue{context, dev.device};
};

// m = n = k = 8 in buffers with a guard zone on each side: a call that is refused must leave
// every byte of every buffer as it was.
TEST_F(SafeGemm, OffsetsAndLeadingDimensionsThatOverflowAreRefusedAndWriteNothing) {
  Gemm gemm(context, queue);
  GemmProblem p;
  p.m = p.n = p.k = 8;
  const std::size_t guard = 64, total = 64 + 2 * guard;
  std::vector<double> init(total);
  for (std::size_t i = 0; i < total; ++i) init[i] = double(i % 17) - 8.0;
  const cl::Buffer a = upload(context, init, p.precision), b = upload(context, init, p.precision),
                   c = upload(context, init, p.precision);
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  const std::size_t offsets[] = {max,
                                 max - 10,
                                 max - 63,
                                 std::size_t(1) << 63,
                                 (std::size_t(1) << 32) - 10,
                                 std::size_t(1) << 32,
                                 (std::size_t(1) << 31) - 10,
                                 std::size_t(1) << 31,
                                 std::size_t(1) << 30,
                                 total - 63};
  const auto unchanged = [&](const char* what) {
    for (const cl::Buffer* buf : {&a, &b, &c}) {
      EXPECT_EQ(download(queue, *buf, total, p.precision), init) << what;
    }
  };
  for (const std::size_t off : offsets) {
    EXPECT_THROW(gemm(p, a, b, c, off, guard, guard), UsageError) << "A offset " << off;
    EXPECT_THROW(gemm(p, a, b, c, guard, off, guard), UsageError) << "B offset " << off;
    EXPECT_THROW(gemm(p, a, b, c, guard, guard, off), UsageError) << "C offset " << off;
    queue.finish();
    unchanged("after offset tests");
  }
  const std::size_t lds[] = {max,
                             max - 7,
                             std::size_t(1) << 63,
                             std::size_t(1) << 32,
                             (std::size_t(1) << 31) - 1,
                             std::size_t(1) << 28};
  for (const std::size_t ld : lds) {
    GemmProblem q = p;
    q.lda = ld;
    EXPECT_THROW(gemm(q, a, b, c, guard, guard, guard), UsageError) << "lda " << ld;
    q = p, q.ldb = ld;
    EXPECT_THROW(gemm(q, a, b, c, guard, guard, guard), UsageError) << "ldb " << ld;
    q = p, q.ldc = ld;
    EXPECT_THROW(gemm(q, a, b, c, guard, guard, guard), UsageError) << "ldc " << ld;
  }
  for (const std::size_t size : {max, max / 2, std::size_t(1) << 32, std::size_t(1) << 31}) {
    GemmProblem q = p;
    q.m = size;
    EXPECT_THROW(gemm(q, a, b, c, guard, guard, guard), UsageError) << "m " << size;
    q = p, q.k = size;
    EXPECT_THROW(gemm(q, a, b, c, guard, guard, guard), UsageError) << "k " << size;
  }
  queue.finish();
  unchanged("after leading-dimension tests");
  // In bounds, the same buffers work, and only C's 8 x 8 block changes.
  gemm(p, a, b, c, guard, guard, guard).wait();
  EXPECT_EQ(download(queue, a, total, p.precision), init);
  const auto got = download(queue, c, total, p.precision);
  for (std::size_t i = 0; i < total; ++i) {
    if (i < guard || i >= guard + 64) {
      EXPECT_EQ(got[i], init[i]) << "C element " << i;
    }
  }
}

// A buffer as small as BLAS allows (the last column without its leading-dimension padding) is
// accepted, and nothing outside the matrix changes.
TEST_F(SafeGemm, TightBuffersWithPaddedLeadingDimensionsKeepTheirGaps) {
  Gemm gemm(context, queue);
  GemmProblem p;
  p.m = 13, p.n = 7, p.k = 5, p.layout = Layout::kColMajor;
  p.lda = 16, p.ldb = 9, p.ldc = 20;
  const std::size_t guard = 8;
  const std::size_t c_total = guard + p.c_span();
  std::vector<double> a((p.a_span() + guard), 0.5), b(p.b_span() + guard, 0.25), c(c_total, 7.0);
  const cl::Buffer da = upload(context, a, p.precision), db = upload(context, b, p.precision),
                   dc = upload(context, c, p.precision);
  gemm(p, da, db, dc, guard, guard, guard).wait();
  const auto got = download(queue, dc, c_total, p.precision);
  for (std::size_t i = 0; i < c_total; ++i) {
    const bool inside = i >= guard && (i - guard) % p.ldc < p.m;
    EXPECT_EQ(got[i], inside ? 5 * 0.5 * 0.25 : 7.0) << "C element " << i;
  }
  EXPECT_THROW(gemm(p, da, db, dc, guard + 1, guard, guard), UsageError);  // A one too short
}

TEST_F(SafeGemm, BlasSemanticsForZeroSizesAndScalars) {
  Gemm gemm(context, queue);
  GemmProblem p;
  p.m = 37, p.n = 29, p.k = 23;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Operands o = random_operands(p, 5);
  const std::vector<double> nan_a(o.a.size(), nan), nan_b(o.b.size(), nan);
  const cl::Buffer a = upload(context, nan_a, p.precision), b = upload(context, nan_b, p.precision);
  const auto run = [&](const GemmProblem& q, const std::vector<double>& c0) {
    const cl::Buffer c = upload(context, c0, q.precision);
    gemm(q, a, b, c).wait();
    return download(queue, c, c0.size(), q.precision);
  };
  // alpha = 0: A and B (all NaN) are not read; C = beta C.
  GemmProblem q = p;
  q.alpha = 0.0, q.beta = 2.0;
  auto got = run(q, o.c);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], 2.0 * o.c[i]) << i;
  // alpha = 0 and beta = 0: C (all NaN) is not read either; C = 0.
  q.beta = 0.0;
  got = run(q, std::vector<double>(o.c.size(), nan));
  for (double v : got) ASSERT_EQ(v, 0.0);
  // k = 0: C = beta C, whatever alpha.
  q = p;
  q.k = 0, q.alpha = 3.0, q.beta = -1.0;
  got = run(q, o.c);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], -o.c[i]) << i;
  // m = 0 or n = 0: nothing happens, and the event completes (also after a wait list).
  for (auto [m, n] : {std::pair{0, 29}, std::pair{37, 0}, std::pair{0, 0}}) {
    q = p;
    q.m = std::size_t(m), q.n = std::size_t(n);
    const cl::Buffer c = upload(context, o.c, p.precision);
    cl::Event before;
    queue.enqueueMarkerWithWaitList(nullptr, &before);
    cl::Event done = gemm(q, cl::Buffer(), cl::Buffer(), c, 0, 0, 0, {before});
    done.wait();
    EXPECT_EQ(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), CL_COMPLETE);
    EXPECT_EQ(download(queue, c, o.c.size(), p.precision), o.c);
  }
  // A small alpha that is zero in fp32 is zero: NaN in A must not leak into C.
  q = p;
  q.alpha = 1e-50, q.beta = 1.0;
  got = run(q, o.c);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], o.c[i]) << i;
}

TEST_F(SafeGemm, EveryMisuseIsAnMmtuneError) {
  Gemm gemm(context, queue);
  GemmProblem p;
  p.m = p.n = p.k = 16;
  const cl::Buffer ok(context, CL_MEM_READ_WRITE, 16 * 16 * 4);
  const cl::Buffer null;
  EXPECT_THROW(gemm(p, null, ok, ok), UsageError);
  EXPECT_THROW(gemm(p, ok, null, ok), UsageError);
  EXPECT_THROW(gemm(p, ok, ok, null), UsageError);
  EXPECT_THROW(Gemm(cl_context(nullptr), cl_command_queue(nullptr)), UsageError);
  EXPECT_THROW(Gemm(context(), cl_command_queue(nullptr)), UsageError);
  EXPECT_THROW(Gemm(cl::Context(), queue), UsageError);
  // Another context: its queue and its buffers do not belong here.
  cl::Context other(dev.device);
  cl::CommandQueue other_queue(other, dev.device);
  EXPECT_THROW(Gemm(context, other_queue), UsageError);
  const cl::Buffer foreign(other, CL_MEM_READ_WRITE, 16 * 16 * 4);
  EXPECT_THROW(gemm(p, foreign, ok, ok), UsageError);
  EXPECT_THROW(gemm.enqueue(other_queue, p, ok, ok, ok), UsageError);
  EXPECT_THROW(gemm(p, ok, ok, ok, 0, 0, 0, {cl::Event()}), UsageError);
  GemmProblem bad = p;
  bad.layout = static_cast<Layout>(7);
  EXPECT_THROW(gemm(bad, ok, ok, ok), UsageError);
  EXPECT_THROW(gemm.parameters(bad), UsageError);  // asking is checked as calling is
  bad = p, bad.precision = static_cast<Precision>(8);
  EXPECT_THROW(gemm(bad, ok, ok, ok), UsageError);
  EXPECT_THROW(gemm.parameters(bad), UsageError);
  bad = p, bad.lda = 3;  // under m: no parameters are for it
  EXPECT_THROW(gemm.parameters(bad), UsageError);
  for (const auto precision : {Precision::kHalf, Precision::kDouble}) {
    bad = p, bad.precision = precision;
    if (!dev.info.supports(precision)) {
      EXPECT_THROW(gemm.parameters(bad), NoDeviceError);
    }
  }
  // A second queue of the same context and device is fine.
  cl::CommandQueue second(context, dev.device);
  gemm.enqueue(second, p, ok, ok, ok).wait();
  // OpenCL leaves reading a write-only buffer or writing a read-only one undefined: refused.
  const cl::Buffer read_only(context, CL_MEM_READ_ONLY, 16 * 16 * 4),
      write_only(context, CL_MEM_WRITE_ONLY, 16 * 16 * 4);
  EXPECT_THROW(gemm(p, ok, ok, read_only), UsageError);
  EXPECT_THROW(gemm(p, write_only, ok, ok), UsageError);
  EXPECT_THROW(gemm(p, ok, write_only, ok), UsageError);
  GemmProblem accumulate = p;
  accumulate.beta = 1.0;  // reads C
  EXPECT_THROW(gemm(accumulate, ok, ok, write_only), UsageError);
  gemm(p, read_only, read_only, write_only).wait();  // beta = 0: C is only written
  // An image handed over as a buffer is not one.
  if (dev.info.image_support) {
    const cl::Image2D image(context, CL_MEM_READ_WRITE, cl::ImageFormat(CL_RGBA, CL_FLOAT), 16, 16);
    const cl::Buffer disguised(image(), true);
    EXPECT_THROW(gemm(p, disguised, ok, ok), UsageError);
    EXPECT_THROW(gemm(p, ok, ok, disguised), UsageError);
  }
}

// A matrix's size is its leading dimension times its other stored dimension: a long thin
// problem whose leading dimension alone is large is an ordinary one.
TEST_F(SafeGemm, LongThinProblemsAreNotRefused) {
  Gemm gemm(context, queue);
  for (const auto layout : {Layout::kRowMajor, Layout::kColMajor}) {
    GemmProblem p;
    p.layout = layout;
    p.m = p.n = 8, p.k = 50000;  // row-major A: 8 rows of 50,000
    EXPECT_EQ(test::gemm_mismatch(gemm, context, queue, p, 5), "") << describe(p);
    p.m = 50000, p.k = 8;  // column-major A: 8 columns of 50,000
    EXPECT_EQ(test::gemm_mismatch(gemm, context, queue, p, 6), "") << describe(p);
  }
}

// A batch was refused for operands the call never touches: B's items when m = 0, A's when
// alpha = 0 (gemm.hpp: then A and B may be null).
TEST_F(SafeGemm, ABatchIsCheckedOnlyForTheOperandsItTouches) {
  Gemm gemm(context, queue);
  GemmProblem p;
  p.m = 0, p.n = p.k = 64, p.batch = 1000000;  // B: 10^6 items of 4,096 elements
  EXPECT_NO_THROW(gemm(p, cl::Buffer(), cl::Buffer(), cl::Buffer()).wait());
  p.m = p.n = 1, p.k = 4096, p.batch = 600000;  // A: 600,000 rows of 4,096 elements
  p.alpha = 0.0, p.beta = 2.0;
  const std::vector<double> c0(p.batch, 1.5);
  const cl::Buffer c = upload(context, c0, p.precision);
  gemm(p, cl::Buffer(), cl::Buffer(), c).wait();
  EXPECT_EQ(download(queue, c, c0.size(), p.precision), std::vector<double>(p.batch, 3.0));
  // With alpha = 1 the same A is beyond 32-bit indexing: refused.
  p.alpha = 1.0;
  EXPECT_THROW(gemm(p, c, c, c), UsageError);
  // An alpha that fp16 holds as 0 reads neither, as the kernel sees it (checked without a
  // device: not every device has fp16).
  p.precision = Precision::kHalf, p.alpha = 1e-9;
  EXPECT_NO_THROW(validate_call(p));
  p.alpha = 1e-3;
  EXPECT_THROW(validate_call(p), UsageError);
}

// A batch of no items computes nothing (BLAS), so it builds nothing either: a kernel that does
// not build here cannot fail a call with nothing to do. The program cache on disk shows builds.
TEST_F(SafeGemm, ABatchOfNoItemsBuildsNothing) {
  test::TempDir dir;
  const test::ScopedEnv env({{"XDG_CACHE_HOME", dir / "cache"}});
  const auto programs = [&] {
    std::error_code ec;
    std::size_t n = 0;
    for (auto it = std::filesystem::recursive_directory_iterator(dir / "cache", ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      n += it->is_regular_file();
    }
    return n;
  };
  {
    Gemm gemm(context, queue);
    GemmProblem p;
    p.m = p.n = p.k = 64, p.batch = 0;
    gemm(p, cl::Buffer(), cl::Buffer(), cl::Buffer()).wait();
    p.batch = 1;
    const Operands o = random_operands(p, 3);
    const cl::Buffer a = upload(context, o.a, p.precision), b = upload(context, o.b, p.precision);
    const cl::Buffer c = upload(context, o.c, p.precision);
    gemm.batched(p, {}, {}, a, {}, b, {}, c, {}).wait();  // no items
    EXPECT_EQ(programs(), 0u);
    EXPECT_EQ(download(queue, c, o.c.size(), p.precision), o.c);
    gemm(p, a, b, c).wait();
    EXPECT_GT(programs(), 0u);  // a call that multiplies does build
  }
}

// A configuration built by hand with a parameter outside its values (a zero that several rules
// divide by) is named as such by the public checks, never a crash (SIGFPE).
TEST(ConfigChecks, ValuesOutsideTheirSetsAreViolationsNotADivisionByZero) {
  for (int field = 0; field < 3; ++field) {
    TiledConfig t;
    (field == 0 ? t.MDIMC : field == 1 ? t.MWG : t.KWI) = 0;
    const auto v = constraint_violations(KernelConfig(t));
    ASSERT_FALSE(v.empty()) << field;
    EXPECT_NE(v.front().find("is not one of its values"), std::string::npos) << v.front();
    DeviceInfo d;
    d.image_support = true, d.image_max_buffer_texels = std::size_t(1) << 27;
    EXPECT_FALSE(images_fit(KernelConfig(t), d, GemmProblem{}));
  }
  DirectConfig dc;
  dc.MDIMAD = 0;
  EXPECT_FALSE(constraint_violations(KernelConfig(dc)).empty());
}

// One Gemm and one lookup shared by 8 threads, 200 calls each: every result is right.
TEST_F(SafeGemm, OneGemmServesEightThreads) {
  test::TempDir dir;
  Gemm gemm(context, queue, lookup_with(dir, dev.info, small_tiled()));
  constexpr int kThreads = 8, kCalls = 200;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        GemmProblem p;
        p.m = 9 + t * 5, p.n = 17 + t, p.k = 11 + 2 * t, p.trans_a = t % 2;
        const Operands o = random_operands(p, t, true);
        const Reference ref = reference_gemm(p, o);
        const cl::Buffer a = upload(context, o.a, p.precision),
                         b = upload(context, o.b, p.precision);
        for (int i = 0; i < kCalls && failures[t].empty(); ++i) {
          const cl::Buffer c = upload(context, o.c, p.precision);
          gemm(p, a, b, c).wait();
          const Verdict v = verify(p, ref, download(queue, c, o.c.size(), p.precision), o.c);
          if (!v.ok) failures[t] = "call " + std::to_string(i) + ": " + v.message;
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace
}  // namespace mmtune
