// Every kernel of the family against the CPU reference on PoCL and on Mesa rusticl's llvmpipe
// (a different compiler and a SIMT execution model): a matrix of shapes, layouts,
// transpositions, leading dimensions and scalars, and seeded samples of the tuning spaces.
#include <gtest/gtest.h>

#include <random>

#include "mmtune/error.hpp"
#include "opencl/runner.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

struct Shape {
  std::size_t m, n, k;
};

// Mixes every size of the list into every position (twice each).
std::vector<Shape> shape_matrix() {
  const std::size_t v[] = {1, 2, 3, 7, 16, 17, 31, 64, 65, 127, 200};
  std::vector<Shape> out;
  for (std::size_t i = 0; i < 11; ++i) {
    out.push_back({v[i], v[(i + 4) % 11], v[(i + 8) % 11]});
    out.push_back({v[(i + 2) % 11], v[i], v[(i + 5) % 11]});
  }
  return out;
}

const KernelSources& sources() {
  static const KernelSources s;
  return s;
}

// Runs `config` on each variant of the problems and reports the first failure.
void expect_correct(Runner& runner, const KernelConfig& config, const GemmProblem& p,
                    const std::string& what) {
  runner.set_problem(p, p.m * 131 + p.n * 17 + p.k);
  const Measurement m = runner.evaluate(config, TimingOptions::verify_only());
  ASSERT_EQ(m.status, Status::kOk)
      << what << " " << describe(p) << " lda=" << p.lda << " ldb=" << p.ldb << " ldc=" << p.ldc
      << " alpha=" << p.alpha << " beta=" << p.beta << " [" << to_string(config)
      << "]: " << to_string(m.status) << " " << m.message;
}

// 16-wide vectors where the device allows them (a CPU that prefers 16), else 8, which every
// device allows (typed_family.hpp): llvmpipe, a CPU with 8-wide registers, fp64.
KernelConfig fit_to(const DeviceInfo& d, Precision p, KernelConfig config) {
  if (auto t = config.as<TiledConfig>();
      t && t->VWM == 16 && !limit_violations(config, d, p).empty()) {
    t->VWM = 8;
    config = *t;
  }
  return config;
}

struct NamedConfig {
  std::string name;
  KernelConfig config;
  std::string device = "pthread";  // test::device_named
};

// Short test names in CTest's listing instead of the struct's bytes.
void PrintTo(const NamedConfig& c, std::ostream* os) {
  *os << c.device << "/" << c.name;
}

class ShapeMatrix : public ::testing::TestWithParam<NamedConfig> {};

TEST_P(ShapeMatrix, MatchesReference) {
  const Device& device = test::device_named(GetParam().device);
  Runner runner(device, sources());
  const KernelConfig config = fit_to(device.info, Precision::kSingle, GetParam().config);
  const std::pair<double, double> scalars[] = {{1.0, 0.0}, {-1.5, 0.25}, {0.0, 2.0}};
  int variant = 0;
  for (const Shape& s : shape_matrix()) {
    for (auto layout : {Layout::kRowMajor, Layout::kColMajor}) {
      for (int t = 0; t < 4; ++t) {
        for (const auto& [alpha, beta] : scalars) {
          GemmProblem p;
          p.m = s.m, p.n = s.n, p.k = s.k;
          p.layout = layout;
          p.trans_a = t & 1, p.trans_b = t & 2;
          p.alpha = alpha, p.beta = beta;  // beta = 0: the runner plants NaN in C
          if (++variant % 2) {             // every other problem has padded leading dimensions
            p.lda = p.min_ld(p.a_rows(), p.a_cols()) + 3;
            p.ldb = p.min_ld(p.b_rows(), p.b_cols()) + 1;
            p.ldc = p.min_ld(p.m, p.n) + 5;
          }
          expect_correct(runner, config, p, GetParam().name);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

std::vector<NamedConfig> matrix_configs() {
  TiledConfig wide;  // global-memory operands, 16-wide vectors, strided assignment
  wide.MWG = 64, wide.NWG = 32, wide.KWG = 32, wide.MDIMC = 2, wide.NDIMC = 4, wide.VWM = 16,
  wide.VWN = 8, wide.KWI = 8, wide.SA = 0, wide.SB = 0, wide.MDIMA = 2, wide.NDIMB = 4,
  wide.STRM = 1, wide.STRN = 0;
  DirectConfig dvec;
  dvec.WGD = 32, dvec.MDIMCD = 4, dvec.NDIMCD = 8, dvec.VWMD = 4, dvec.VWND = 2, dvec.KWID = 8,
  dvec.MDIMAD = 16, dvec.NDIMBD = 2, dvec.PADA = 0, dvec.PADB = 1;
  TiledConfig in_place = wide;  // A and B read where they are, partial tiles guarded
  in_place.MWG = 32, in_place.NWG = 16, in_place.KWG = 16, in_place.NDIMC = 2, in_place.VWM = 8,
  in_place.VWN = 4, in_place.NDIMB = 2, in_place.STRM = 0, in_place.STRN = 1, in_place.PACK = 0;
  TiledConfig pack_a = in_place;  // A packed, B read in place where it is k-contiguous
  pack_a.PACK = 2;
  TiledConfig image;  // operands read through images of float4 texels, strided n
  image.MWG = 32, image.NWG = 32, image.KWG = 16, image.MDIMC = 4, image.NDIMC = 4, image.VWM = 8,
  image.VWN = 4, image.KWI = 2, image.SA = 0, image.SB = 0, image.MDIMA = 4, image.NDIMB = 4,
  image.STRM = 0, image.STRN = 1, image.IMG = 1;
  TiledConfig image_in_place = image;  // images over the caller's buffers where they allow it
  image_in_place.PACK = 0;
  TiledConfig image_wide = image_in_place;  // 16 x 16 per work-item, both strided, k unrolled
  image_wide.MWG = image_wide.NWG = 64, image_wide.KWG = 32, image_wide.VWN = 8, image_wide.KWI = 8,
  image_wide.STRM = 1, image_wide.STRN = 1;
  return {{"tiled_default", TiledConfig{}}, {"tiled_wide", wide},
          {"tiled_in_place", in_place},     {"tiled_pack_a", pack_a},
          {"tiled_image", image},           {"tiled_image_in_place", image_in_place},
          {"tiled_image_wide", image_wide}, {"direct_default", DirectConfig{}},
          {"direct_vector", dvec},          {"naive", NaiveConfig{}},
          {"classic8", ClassicConfig{8}},   {"classic16", ClassicConfig{16}},
          {"classic32", ClassicConfig{32}}};
}

// On llvmpipe (preferred vector width 1, vectors up to 8 allowed) the wide variant uses 8.
std::vector<NamedConfig> llvmpipe_configs() {
  auto out = matrix_configs();
  for (auto& c : out) c.device = "llvmpipe";
  return out;
}

INSTANTIATE_TEST_SUITE_P(Kernels, ShapeMatrix, ::testing::ValuesIn(matrix_configs()),
                         [](const auto& param_info) { return param_info.param.name; });
INSTANTIATE_TEST_SUITE_P(Llvmpipe, ShapeMatrix, ::testing::ValuesIn(llvmpipe_configs()),
                         [](const auto& param_info) { return param_info.param.name; });

// Irregular problems that exercise every path of the routine (padding in m, n and k; copies
// and direct use of operands; leading dimensions; scalars).
std::vector<GemmProblem> sample_problems(Precision precision) {
  std::vector<GemmProblem> out;
  GemmProblem p;
  p.precision = precision;
  p.m = 65, p.n = 31, p.k = 17, p.alpha = -1.5, p.beta = 0.25, p.lda = 20;
  out.push_back(p);
  p = GemmProblem{};
  p.precision = precision;
  p.m = 17, p.n = 70, p.k = 33, p.layout = Layout::kColMajor, p.trans_a = p.trans_b = true;
  out.push_back(p);
  p = GemmProblem{};
  p.precision = precision;
  p.m = 128, p.n = 64, p.k = 64, p.layout = Layout::kColMajor, p.trans_b = true, p.beta = 1.0;
  out.push_back(
      p);  // multiples of every tile: the tiled kernel reads A and B and writes C in place
  return out;
}

// Shard `shard` of `shards` of a seeded sample of `count` configurations of a kernel's space.
void sample_space(KernelKind kind, std::size_t count, int shard, int shards, Precision precision,
                  const std::string& device = "pthread") {
  const Device& dev = test::device_named(device);
  auto all = enumerate(kind, SpaceSize::kFull, &dev.info, precision);
  ASSERT_GE(all.size(), count);
  std::mt19937_64 rng(20261130);
  std::shuffle(all.begin(), all.end(), rng);
  Runner runner(dev, sources());
  for (std::size_t i = shard; i < count; i += shards) {
    for (const GemmProblem& p : sample_problems(precision)) {
      expect_correct(runner, all[i], p,
                     std::string(kernel_name(kind)) + " sample " + std::to_string(i));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

constexpr int kShards = 8;
class TiledSample : public ::testing::TestWithParam<int> {};
TEST_P(TiledSample, EveryConfigurationIsCorrect) {
  sample_space(KernelKind::kTiled, 200, GetParam(), kShards, Precision::kSingle);
}
INSTANTIATE_TEST_SUITE_P(Shards, TiledSample, ::testing::Range(0, kShards));

class DirectSample : public ::testing::TestWithParam<int> {};
TEST_P(DirectSample, EveryConfigurationIsCorrect) {
  sample_space(KernelKind::kDirect, 100, GetParam(), kShards / 2, Precision::kSingle);
}
INSTANTIATE_TEST_SUITE_P(Shards, DirectSample, ::testing::Range(0, kShards / 2));

// A smaller sample on llvmpipe, of the configurations that fit it.
class LlvmpipeSample : public ::testing::TestWithParam<int> {};
TEST_P(LlvmpipeSample, EveryConfigurationIsCorrect) {
  if (GetParam() < 2) {
    sample_space(KernelKind::kTiled, 60, GetParam(), 2, Precision::kSingle, "llvmpipe");
  } else {
    sample_space(KernelKind::kDirect, 30, 0, 1, Precision::kSingle, "llvmpipe");
  }
}
INSTANTIATE_TEST_SUITE_P(Shards, LlvmpipeSample, ::testing::Range(0, 3));

TEST(DoublePrecision, KernelsAndSamplesAreCorrect) {
  const Device& dev = test::pocl_device("pthread");
  ASSERT_TRUE(dev.info.fp64);
  Runner runner(dev, sources());
  int checked = 0;
  for (const auto& nc : matrix_configs()) {
    const KernelConfig config = fit_to(dev.info, Precision::kDouble, nc.config);
    if (!limit_violations(config, dev.info, Precision::kDouble).empty()) continue;
    ++checked;
    for (GemmProblem p : sample_problems(Precision::kDouble)) {
      expect_correct(runner, config, p, nc.name + " fp64");
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GE(checked, 6);
  sample_space(KernelKind::kTiled, 12, 0, 1, Precision::kDouble);
}

TEST(HalfPrecision, SkippedCleanlyWithoutFp16) {
  const Device& dev = test::pocl_device("pthread");
  if (dev.info.fp16) GTEST_SKIP() << "device has fp16; covered by the fp16 path";
  Runner runner(dev, sources());
  GemmProblem p;
  p.m = p.n = p.k = 8;
  p.precision = Precision::kHalf;
  EXPECT_THROW(runner.set_problem(p), NoDeviceError);
  EXPECT_FALSE(
      enumerate(KernelKind::kTiled, SpaceSize::kQuick, &dev.info, Precision::kHalf).size());
}

TEST(BasicDevice, DefaultsAreCorrectOnTheSecondDevice) {
  const Device& basic = test::pocl_device("basic");
  Runner runner(basic, sources());
  for (const auto& nc : matrix_configs()) {
    expect_correct(runner, fit_to(basic.info, Precision::kSingle, nc.config),
                   sample_problems(Precision::kSingle)[0], nc.name + " basic");
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace mmtune
