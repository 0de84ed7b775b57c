// mmtune::clblast_compat::Gemm against CLBlast's own routine: the same calls, the same results
// and the same status codes for the same mistakes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "mmtune/clblast_compat.hpp"
#include "opencl/host_data.hpp"
#include "opencl/reference.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

#ifdef MMTUNE_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace mmtune {
namespace {

namespace compat = clblast_compat;

#ifdef MMTUNE_HAVE_CLBLAST

struct Call {
  GemmProblem p;
  std::size_t a_offset = 0, b_offset = 0, c_offset = 0;
  bool conjugate_a = false;  // kConjugate, which both treat as kYes for real matrices
  std::size_t a_bytes = 0, b_bytes = 0, c_bytes = 0;  // 0: exactly what is needed
};

class CompatVsClblast : public ::testing::Test {
 protected:
  const Device& dev = test::pocl_device("pthread");
  cl::Context context{dev.device};
  cl::CommandQueue queue{context, dev.device};

  struct Outcome {
    int status = 0;
    std::vector<double> c;
  };

  cl::Buffer upload(const std::vector<double>& v, std::size_t offset, std::size_t bytes,
                    Precision p) {
    std::vector<double> padded(offset, 9.0);
    padded.insert(padded.end(), v.begin(), v.end());
    auto data = to_bytes(padded, p);
    if (bytes) data.resize(bytes, 0);
    return cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size(), data.data());
  }

  // Runs the call through CLBlast (`clblast` true) or mmtune's entry point on fresh buffers.
  Outcome run(const Call& call, const Operands& o, bool clblast) {
    const GemmProblem& p = call.p;
    const std::size_t es = p.element_size();
    cl::Buffer a = upload(o.a, call.a_offset, call.a_bytes, p.precision);
    cl::Buffer b = upload(o.b, call.b_offset, call.b_bytes, p.precision);
    cl::Buffer c = upload(o.c, call.c_offset, call.c_bytes, p.precision);
    cl_command_queue q = queue();
    cl_event event = nullptr;
    const bool row = p.layout == Layout::kRowMajor;
    Outcome out;
    if (clblast) {
      const auto ta = call.conjugate_a
                          ? clblast::Transpose::kConjugate
                          : (p.trans_a ? clblast::Transpose::kYes : clblast::Transpose::kNo);
      const auto tb = p.trans_b ? clblast::Transpose::kYes : clblast::Transpose::kNo;
      const auto l = row ? clblast::Layout::kRowMajor : clblast::Layout::kColMajor;
      out.status =
          p.precision == Precision::kDouble
              ? int(clblast::Gemm<double>(l, ta, tb, p.m, p.n, p.k, p.alpha, a(), call.a_offset,
                                          p.lda, b(), call.b_offset, p.ldb, p.beta, c(),
                                          call.c_offset, p.ldc, &q, &event))
              : int(clblast::Gemm<float>(l, ta, tb, p.m, p.n, p.k, float(p.alpha), a(),
                                         call.a_offset, p.lda, b(), call.b_offset, p.ldb,
                                         float(p.beta), c(), call.c_offset, p.ldc, &q, &event));
    } else {
      const auto ta = call.conjugate_a
                          ? compat::Transpose::kConjugate
                          : (p.trans_a ? compat::Transpose::kYes : compat::Transpose::kNo);
      const auto tb = p.trans_b ? compat::Transpose::kYes : compat::Transpose::kNo;
      const auto l = row ? compat::Layout::kRowMajor : compat::Layout::kColMajor;
      out.status =
          p.precision == Precision::kDouble
              ? int(compat::Gemm<double>(l, ta, tb, p.m, p.n, p.k, p.alpha, a(), call.a_offset,
                                         p.lda, b(), call.b_offset, p.ldb, p.beta, c(),
                                         call.c_offset, p.ldc, &q, &event))
              : int(compat::Gemm<float>(l, ta, tb, p.m, p.n, p.k, float(p.alpha), a(),
                                        call.a_offset, p.lda, b(), call.b_offset, p.ldb,
                                        float(p.beta), c(), call.c_offset, p.ldc, &q, &event));
    }
    if (event) {
      clWaitForEvents(1, &event);
      clReleaseEvent(event);
    }
    queue.finish();
    const std::size_t available = call.c_bytes ? call.c_bytes / es - call.c_offset : o.c.size();
    std::vector<unsigned char> bytes(std::min(available, o.c.size()) * es);
    queue.enqueueReadBuffer(c, CL_TRUE, call.c_offset * es, bytes.size(), bytes.data());
    out.c = from_bytes(bytes, p.precision);
    return out;
  }
};

TEST_F(CompatVsClblast, OddShapesGiveTheSameResultsAsClblast) {
  std::mt19937 rng(7);
  const std::tuple<int, int, int> shapes[] = {{1, 1, 1},      {7, 13, 5},   {100, 70, 33},
                                              {127, 129, 31}, {3, 200, 17}, {65, 64, 63}};
  int cases = 0;
  for (const auto& [m, n, k] : shapes) {
    for (int variant = 0; variant < 4; ++variant) {
      Call call;
      GemmProblem& p = call.p;
      p.m = m, p.n = n, p.k = k;
      p.layout = (variant + m) % 2 ? Layout::kRowMajor : Layout::kColMajor;
      p.trans_a = variant & 1, p.trans_b = variant & 2;
      call.conjugate_a = p.trans_a && rng() % 2;
      p.precision = cases % 5 == 4 ? Precision::kDouble : Precision::kSingle;
      p.lda = p.min_ld(p.a_rows(), p.a_cols()) + rng() % 3;
      p.ldb = p.min_ld(p.b_rows(), p.b_cols()) + rng() % 3;
      p.ldc = p.min_ld(p.m, p.n) + rng() % 3;
      p.alpha = 1.5, p.beta = variant == 3 ? 0.0 : -0.5;
      call.a_offset = rng() % 5, call.b_offset = rng() % 5, call.c_offset = rng() % 5;
      const Operands o = random_operands(p, ++cases);
      const Reference ref = reference_gemm(p, o);
      const Outcome theirs = run(call, o, true), ours = run(call, o, false);
      ASSERT_EQ(theirs.status, 0) << describe(p);
      ASSERT_EQ(ours.status, 0) << describe(p);
      const Verdict v = verify(p, ref, ours.c, o.c);
      EXPECT_TRUE(v.ok) << describe(p) << ": " << v.message;
      const Verdict w = verify(p, ref, theirs.c, o.c);
      EXPECT_TRUE(w.ok) << "CLBlast itself, " << describe(p) << ": " << w.message;
    }
  }
}

TEST_F(CompatVsClblast, TheSameMistakesGiveTheSameStatusCodes) {
  Call base;
  base.p.m = 33, base.p.n = 21, base.p.k = 17;
  base.p.lda = 17, base.p.ldb = 21, base.p.ldc = 21;  // row-major NN: tight
  base.p.alpha = 1.0, base.p.beta = 1.0;
  const auto tight = [](std::size_t elements) { return elements * 4; };
  std::vector<std::pair<std::string, Call>> mistakes;
  Call c = base;
  c.p.lda = 16;
  mistakes.emplace_back("lda too small", c);
  c = base, c.p.ldb = 20;
  mistakes.emplace_back("ldb too small", c);
  c = base, c.p.ldc = 1;
  mistakes.emplace_back("ldc too small", c);
  c = base, c.a_bytes = tight(33 * 17 - 1);
  mistakes.emplace_back("A one element short", c);
  c = base, c.b_bytes = tight(17 * 21 - 1);
  mistakes.emplace_back("B one element short", c);
  c = base, c.c_offset = 1, c.c_bytes = tight(33 * 21);
  mistakes.emplace_back("C short by its offset", c);
  c = base, c.a_bytes = tight(33 * 17);
  mistakes.emplace_back("exactly enough (no mistake)", c);
  c = base, c.p.lda = 20, c.a_bytes = tight(32 * 20 + 17);
  mistakes.emplace_back("last row without padding (no mistake)", c);
  for (const auto& [what, call] : mistakes) {
    const Operands o = random_operands(call.p, 3);
    const Outcome theirs = run(call, o, true), ours = run(call, o, false);
    EXPECT_EQ(ours.status, theirs.status) << what;
    const std::vector<double> before(o.c.begin(), o.c.begin() + ours.c.size());
    if (theirs.status != 0) {
      EXPECT_EQ(ours.c, before) << what << ": C changed";
    }
  }
  // Where mmtune differs on purpose (documented): BLAS semantics for empty sizes.
  Call empty = base;
  empty.p.k = 0;
  const Operands o = random_operands(base.p, 4);
  EXPECT_EQ(run(empty, o, true).status, int(clblast::StatusCode::kInvalidDimension));
  const Outcome ours = run(empty, o, false);
  EXPECT_EQ(ours.status, 0);
  EXPECT_EQ(ours.c, o.c);  // beta = 1, k = 0: C unchanged
  cl_command_queue null_queue = nullptr;
  EXPECT_EQ(compat::Gemm<float>(compat::Layout::kRowMajor, compat::Transpose::kNo,
                                compat::Transpose::kNo, 4, 4, 4, 1.0f, nullptr, 0, 4, nullptr, 0, 4,
                                0.0f, nullptr, 0, 4, &null_queue),
            compat::StatusCode::kInvalidCommandQueue);
}

#else

TEST(CompatVsClblast, NeedsClblast) {
  GTEST_SKIP() << "CLBlast (libclblast-dev) was not found at build time";
}

#endif

// Without CLBlast at hand: a tuning database that does not exist is refused and changes nothing.
TEST(Compat, SetTuningDatabaseRefusesWhatCannotBeRead) {
  EXPECT_EQ(compat::SetTuningDatabase("/nonexistent/tuning.db"), compat::StatusCode::kInvalidValue);
  EXPECT_EQ(compat::SetTuningDatabase(""), compat::StatusCode::kSuccess);
  EXPECT_EQ(compat::ClearCache(), compat::StatusCode::kSuccess);
}

// An 8x8x8 row-major fp32 call on PoCL's pthread device, with its own context, queue and
// buffers: alpha and the leading dimensions of A and B as given.
struct SmallCall {
  const Device& dev = test::pocl_device("pthread");
  cl::Context context{dev.device};
  cl::CommandQueue queue{context, dev.device};
  cl::Buffer a{context, CL_MEM_READ_WRITE, 64 * 4}, b{context, CL_MEM_READ_WRITE, 64 * 4},
      c{context, CL_MEM_READ_WRITE, 64 * 4};
  compat::StatusCode operator()(float alpha = 1.0f, std::size_t lda = 8, std::size_t ldb = 8) {
    cl_command_queue q = queue();
    return compat::Gemm<float>(compat::Layout::kRowMajor, compat::Transpose::kNo,
                               compat::Transpose::kNo, 8, 8, 8, alpha, a(), 0, lda, b(), 0, ldb,
                               0.0f, c(), 0, 8, &q);
  }
};

// A $MMTUNE_DB that cannot be opened fails every call, not only the first: later calls never
// run with built-in defaults instead of the database the user named. In a fresh process (the
// compat layer's state is per process): a "threadsafe" death test runs the test binary again.
TEST(Compat, ABadMmtuneDbFailsEveryCall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto twice = [] {
    setenv("MMTUNE_DB", "/nonexistent/tuning.db", 1);
    SmallCall gemm;
    int failed = 0;
    for (int call = 0; call < 2; ++call) failed += gemm() == compat::StatusCode::kInvalidValue;
    std::exit(failed);
  };
  EXPECT_EXIT(twice(), ::testing::ExitedWithCode(2), "");
}

// alpha = 0 reads neither A nor B, but CLBlast still refuses their leading dimensions: the call
// returned kInvalidValue from the library's later check instead.
TEST(Compat, ALeadingDimensionTooSmallIsRefusedWhereAAndBAreNotRead) {
  SmallCall gemm;
  EXPECT_EQ(gemm(0.0f, 4, 8), compat::StatusCode::kInvalidLeadDimA);
  EXPECT_EQ(gemm(0.0f, 8, 4), compat::StatusCode::kInvalidLeadDimB);
  EXPECT_EQ(gemm(0.0f, 8, 8), compat::StatusCode::kSuccess);
  gemm.queue.finish();
}

// A $MMTUNE_DB that opens but cannot be read (a column an older program dropped) is a database
// error, CLBlast's kDatabaseError: it was reported as a kernel that failed to build.
TEST(Compat, AnUnreadableMmtuneDbIsADatabaseError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  test::TempDir dir;
  const std::string db = dir / "t.db";
  {
    Store store(db);
    store.db().exec("ALTER TABLE best RENAME COLUMN gflops TO gf");
  }
  const auto call = [&] {
    setenv("MMTUNE_DB", db.c_str(), 1);
    const auto status = SmallCall()();
    std::exit(status == compat::StatusCode::kDatabaseError ? 7 : int(-int(status)) % 256);
  };
  EXPECT_EXIT(call(), ::testing::ExitedWithCode(7), "");
}

}  // namespace
}  // namespace mmtune
