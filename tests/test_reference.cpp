#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "opencl/host_data.hpp"
#include "opencl/reference.hpp"

namespace mmtune {
namespace {

TEST(HostData, HalfConversions) {
  EXPECT_EQ(to_half(1.0f), 0x3c00);
  EXPECT_EQ(to_half(-2.0f), 0xc000);
  EXPECT_EQ(to_half(65504.0f), 0x7bff);
  EXPECT_EQ(to_half(1e6f), 0x7c00);  // overflow to infinity
  EXPECT_EQ(to_half(0.0f), 0x0000);
  EXPECT_EQ(from_half(0x3555), 0.333251953125f);
  EXPECT_EQ(from_half(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_TRUE(std::isnan(from_half(to_half(std::numeric_limits<float>::quiet_NaN()))));
  for (float f : {0.1f, -3.5f, 1000.25f, 6e-5f})
    EXPECT_EQ(to_half(from_half(to_half(f))), to_half(f));
  EXPECT_EQ(round_to(0.1, Precision::kSingle), double(0.1f));
  const std::vector<double> v = {1.5, -2.25, 0.0};
  for (auto p : {Precision::kHalf, Precision::kSingle, Precision::kDouble}) {
    EXPECT_EQ(from_bytes(to_bytes(v, p), p), v);
  }
}

// Operands: seeded, uniform in [-1, 1], rounded to the precision; element i of a buffer has
// the same value in any size of it (large ones are filled on several threads, split elsewhere
// for another size).
TEST(HostData, OperandsAreSeededUniformAndTheSameHoweverFilled) {
  GemmProblem big, bigger, small;
  big.m = big.n = big.k = 1100;  // 1.2 M elements: filled in parallel
  bigger = big;
  bigger.m = 1333;  // A's threads split it at other elements
  small.m = small.n = small.k = 10;
  const Operands a = random_operands(big, 7), b = random_operands(bigger, 7),
                 s = random_operands(small, 7), other = random_operands(small, 8);
  EXPECT_TRUE(std::equal(a.a.begin(), a.a.end(), b.a.begin()));
  EXPECT_TRUE(std::equal(a.b.begin(), a.b.end(), b.b.begin()));
  EXPECT_TRUE(std::equal(s.a.begin(), s.a.end(), a.a.begin()));
  EXPECT_TRUE(std::equal(s.b.begin(), s.b.end(), a.b.begin()));
  EXPECT_NE(s.a, other.a);
  EXPECT_NE(std::vector<double>(a.a.begin(), a.a.begin() + 100), s.b) << "A and B differ";
  double sum = 0.0, lo = 1.0, hi = -1.0;
  for (double x : a.a) {
    ASSERT_EQ(x, double(float(x)));  // rounded to fp32
    ASSERT_GE(x, -1.0);
    ASSERT_LE(x, 1.0);
    sum += x, lo = std::min(lo, x), hi = std::max(hi, x);
  }
  EXPECT_LT(std::fabs(sum / double(a.a.size())), 0.01);  // mean 0 (sd of the mean 0.0005)
  EXPECT_LT(lo, -0.999);
  EXPECT_GT(hi, 0.999);
}

// [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]
TEST(Reference, SmallProductInEveryLayoutAndTransposition) {
  for (auto layout : {Layout::kRowMajor, Layout::kColMajor}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        GemmProblem p;
        p.m = p.n = p.k = 2;
        p.layout = layout;
        p.trans_a = ta;
        p.trans_b = tb;
        p.alpha = 2.0;
        p.beta = 1.0;
        // Element (r, c) of a 2x2 matrix stored in `layout`, optionally stored transposed.
        auto store = [&](std::vector<double> rowmajor, bool trans) {
          std::vector<double> s(4);
          for (int r = 0; r < 2; ++r) {
            for (int c = 0; c < 2; ++c) {
              const int sr = trans ? c : r, sc = trans ? r : c;  // position in the stored matrix
              s[layout == Layout::kRowMajor ? sr * 2 + sc : sc * 2 + sr] = rowmajor[r * 2 + c];
            }
          }
          return s;
        };
        Operands o{store({1, 2, 3, 4}, ta), store({5, 6, 7, 8}, tb), store({1, 1, 1, 1}, false)};
        const auto ref = reference_gemm(p, o);
        EXPECT_EQ(ref.c, store({39, 45, 87, 101}, false));
      }
    }
  }
}

TEST(Reference, VerifyCatchesErrorsNanAndWritesIntoGaps) {
  GemmProblem p;
  p.m = 5, p.n = 4, p.k = 300;
  p.layout = Layout::kColMajor;
  p.ldc = 7;  // two gap rows per column
  p.beta = 0.5;
  const Operands o = random_operands(p, 3);
  const Reference ref = reference_gemm(p, o);
  std::vector<double> got = ref.c;
  EXPECT_TRUE(verify(p, ref, got, o.c).ok);
  // Rounding-level noise passes: a fp32 accumulation differs by about k * eps.
  for (std::size_t j = 0; j < 4; ++j) {
    for (std::size_t i = 0; i < 5; ++i) got[i + j * 7] += 1e-6 * ref.bound[i + j * 7];
  }
  EXPECT_TRUE(verify(p, ref, got, o.c).ok);
  got = ref.c;
  got[2 + 1 * 7] += 0.05;  // far beyond k * eps for any plausible accumulation order
  EXPECT_FALSE(verify(p, ref, got, o.c).ok);
  got = ref.c;
  got[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(verify(p, ref, got, o.c).ok);
  got = ref.c;
  got[5 + 2 * 7] = 42.0;  // a gap element
  const auto v = verify(p, ref, got, o.c);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.message.find("outside"), std::string::npos);
}

// The reference is computed in cache blocks (64 rows by 256 of k) and register blocks (8 rows by
// 8 columns); it must equal the plain sum over k in order, to the bit, across block edges,
// leading-dimension gaps, transpositions, both layouts and batches, with |A||B| as the bound.
TEST(Reference, BlockedSumsEqualThePlainLoopToTheBit) {
  for (auto layout : {Layout::kRowMajor, Layout::kColMajor}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        GemmProblem p;
        // A partial row block, a full and a partial column block, a partial depth block.
        p.m = 70, p.n = 13, p.k = 300;
        p.layout = layout, p.trans_a = ta, p.trans_b = tb;
        p.lda = p.min_ld(p.a_rows(), p.a_cols()) + 3;
        p.ldb = p.min_ld(p.b_rows(), p.b_cols()) + 1;
        p.ldc = p.min_ld(p.m, p.n) + 2;
        p.batch = ta ? 2 : 1;
        p.alpha = -1.5, p.beta = 0.25;
        const Operands o = random_operands(p, 11);
        const Reference ref = reference_gemm(p, o);
        const auto at = [&](const std::vector<double>& v, std::size_t item, std::size_t stride,
                            std::size_t ld, std::size_t r, std::size_t c) {
          return v[item * stride + (layout == Layout::kRowMajor ? r * ld + c : c * ld + r)];
        };
        for (std::size_t item = 0; item < p.batch; ++item) {
          for (std::size_t i = 0; i < p.m; ++i) {
            for (std::size_t j = 0; j < p.n; ++j) {
              double sum = 0.0, abs_sum = 0.0;
              for (std::size_t l = 0; l < p.k; ++l) {
                const double a = ta ? at(o.a, item, p.stride_a_or_min(), p.lda, l, i)
                                    : at(o.a, item, p.stride_a_or_min(), p.lda, i, l);
                const double b = tb ? at(o.b, item, p.stride_b_or_min(), p.ldb, j, l)
                                    : at(o.b, item, p.stride_b_or_min(), p.ldb, l, j);
                sum += a * b;
                abs_sum += std::fabs(a * b);
              }
              const double old = at(o.c, item, p.stride_c_or_min(), p.ldc, i, j);
              ASSERT_EQ(at(ref.c, item, p.stride_c_or_min(), p.ldc, i, j),
                        p.alpha * sum + p.beta * old)
                  << i << "," << j;
              ASSERT_EQ(at(ref.bound, item, p.stride_c_or_min(), p.ldc, i, j),
                        std::fabs(p.alpha) * abs_sum + std::fabs(p.beta * old));
            }
          }
        }
        // The gap after C's first row (or column) keeps its value.
        const std::size_t gap = p.min_ld(p.m, p.n);
        EXPECT_EQ(ref.c[gap], o.c[gap]);
        EXPECT_EQ(ref.bound[gap], 0.0);
      }
    }
  }
}

TEST(Reference, BetaZeroIgnoresNanInC) {
  GemmProblem p;
  p.m = 3, p.n = 2, p.k = 4;
  const Operands o = random_operands(p, 1, /*nan_c=*/true);
  EXPECT_TRUE(std::isnan(o.c[0]));
  const auto ref = reference_gemm(p, o);
  for (double x : ref.c) EXPECT_FALSE(std::isnan(x));
}

}  // namespace
}  // namespace mmtune
