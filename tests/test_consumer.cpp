// The consumer API: parameter lookup with its fallback chain, and the ready GEMM on PoCL.
#include <gtest/gtest.h>

#include "mmtune/clblast_compat.hpp"
#include "mmtune/error.hpp"
#include "mmtune/gemm.hpp"
#include "mmtune/spec_lookup.hpp"
#include "opencl/host_data.hpp"
#include "opencl/reference.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

using test::store_best;

TiledConfig tiled(int mwg, int vwm) {
  TiledConfig c;
  c.MWG = mwg, c.NWG = 64, c.KWG = 32, c.MDIMC = 4, c.NDIMC = 4, c.VWM = vwm, c.VWN = 8, c.KWI = 2;
  c.SA = 0, c.SB = 0, c.MDIMA = 4, c.NDIMB = 4;
  return c;
}

GemmProblem square(std::size_t n) {
  GemmProblem p;
  p.m = p.n = p.k = n;
  return p;
}

TEST(Lookup, FallbackChainOnEachLevel) {
  test::TempDir dir;
  // A device that allows 16-wide vectors (a CPU that prefers them), whatever this machine's CPU.
  DeviceInfo dev = test::pocl_device("pthread").info;
  dev.preferred.float_ = 16;
  DeviceInfo sibling = dev;  // same vendor and type, another model
  sibling.name = "sibling-model";
  sibling.key = device_key(sibling.vendor, sibling.name, sibling.driver_version);
  DeviceInfo cousin = dev;  // a third model of that vendor, never tuned
  cousin.name = "cousin-model";
  cousin.key = device_key(cousin.vendor, cousin.name, cousin.driver_version);
  DeviceInfo stranger = dev;  // another vendor
  stranger.vendor = "Elsewhere Inc.";
  stranger.name = "stranger";
  stranger.key = device_key(stranger.vendor, stranger.name, stranger.driver_version);
  {
    Store store(dir / "t.db");
    store_best(store, dev, 256, tiled(64, 16), 2.0);
    store_best(store, dev, 256, tiled(32, 8), 3.0);  // slower: not the best
    store_best(store, dev, 1024, tiled(64, 8), 50.0);
    store_best(store, sibling, 512, tiled(64, 4), 9.0);
  }
  const ParameterLookup lookup(dir / "t.db");
  EXPECT_EQ(lookup.entries(), 3u);

  auto t = lookup.lookup(dev, square(256));
  EXPECT_EQ(t.source, LookupSource::kExact);
  EXPECT_EQ(t.config, KernelConfig(tiled(64, 16)));
  t = lookup.lookup(dev, square(300));  // log-distance: 256 is nearer than 1024
  EXPECT_EQ(t.source, LookupSource::kNearestShape);
  EXPECT_EQ(t.m, 256u);
  t = lookup.lookup(dev, square(900));
  EXPECT_EQ(t.source, LookupSource::kNearestShape);
  EXPECT_EQ(t.m, 1024u);
  t = lookup.lookup(cousin,
                    square(512));  // both other models qualify; the sibling's shape is nearest
  EXPECT_EQ(t.source, LookupSource::kSimilarDevice);
  EXPECT_EQ(t.device_key, sibling.key);
  t = lookup.lookup(cousin, square(256));
  EXPECT_EQ(t.source, LookupSource::kSimilarDevice);
  EXPECT_EQ(t.device_key, dev.key);
  t = lookup.lookup(stranger, square(256));
  EXPECT_EQ(t.source, LookupSource::kDefault);
  EXPECT_TRUE(limit_violations(t.config, stranger, Precision::kSingle).empty());
  GemmProblem fp64 = square(256);  // another precision has nothing stored
  fp64.precision = Precision::kDouble;
  EXPECT_EQ(lookup.lookup(dev, fp64).source, LookupSource::kDefault);
  // An entry the device cannot run is skipped: the next-nearest shape is used.
  DeviceInfo small = dev;
  small.preferred.float_ = 1;  // vector width cap 8 excludes VWM=16
  t = lookup.lookup(small, square(256));
  EXPECT_EQ(t.source, LookupSource::kNearestShape);
  EXPECT_EQ(t.config, KernelConfig(tiled(64, 8)));
}

// Of two tuned shapes as near as each other, the faster per flop: 256^3 in 0.25 ms beats 64^3 in
// 0.05 ms (134 against 10.5 GFLOPS), though its milliseconds are more.
TEST(Lookup, OfShapesAsNearTheFasterPerFlopIsChosen) {
  test::TempDir dir;
  const DeviceInfo& dev = test::pocl_device().info;
  {
    Store store(dir / "t.db");
    store_best(store, dev, 64, tiled(64, 16), 0.05);
    store_best(store, dev, 256, tiled(32, 8), 0.25);
  }
  const ParameterLookup lookup(dir / "t.db");
  const auto t = lookup.lookup(dev, square(128));
  EXPECT_EQ(t.source, LookupSource::kNearestShape);
  EXPECT_EQ(t.m, 256u);
  EXPECT_EQ(t.config, KernelConfig(tiled(32, 8)));
}

TEST(Lookup, TamperedRowsNeverReachTheCompiler) {
  test::TempDir dir;
  const DeviceInfo& dev = test::pocl_device("pthread").info;
  {
    Store store(dir / "t.db");
    store_best(store, dev, 256, tiled(64, 16), 2.0);
    store.db().exec("UPDATE best SET config = config || ' -DEVIL=1'");
  }
  const ParameterLookup lookup(dir / "t.db");
  EXPECT_EQ(lookup.entries(), 0u);
  EXPECT_EQ(lookup.lookup(dev, square(256)).source, LookupSource::kDefault);
}

// The default for devices that want explicit vectors keeps its accumulators in registers: two
// preferred vectors of m by four columns where a vector is 32 bytes (8 accumulators: AVX2 has 16
// registers), by eight where it is 64 bytes (16 of AVX-512's 32), in either precision.
TEST(Lookup, TheWideDefaultsAccumulatorsFollowTheVectorBytes) {
  struct Case {
    Precision precision;
    unsigned width;
    int accumulators;
  };
  for (const Case c : {Case{Precision::kSingle, 8, 8}, Case{Precision::kSingle, 16, 16},
                       Case{Precision::kDouble, 4, 8}, Case{Precision::kDouble, 8, 16}}) {
    DeviceInfo d = test::pocl_device("pthread").info;
    d.preferred.float_ = d.native.float_ = c.precision == Precision::kSingle ? c.width : 8;
    d.preferred.double_ = d.native.double_ = c.precision == Precision::kDouble ? c.width : 4;
    GemmProblem p = square(1024);
    p.precision = c.precision;
    const auto t = get<TiledConfig>(default_parameters(d, p).config);
    SCOPED_TRACE(to_string(KernelConfig(t)));
    EXPECT_EQ(t.VWM, int(c.width));
    EXPECT_EQ(t.MWG / t.MDIMC, 2 * t.VWM) << "two vectors of m per work-item";
    EXPECT_EQ(t.MWG / t.MDIMC / t.VWM * (t.NWG / t.NDIMC), c.accumulators);
    EXPECT_EQ(t.NWG / t.NDIMC, t.VWN) << "one vector of n per work-item";
  }
}

// Devices that prefer scalars read images where their local memory is global and the problem's
// operands fit the device's images one item at a time; otherwise they stage through local memory.
TEST(Lookup, ScalarDevicesWithoutAScratchpadReadImagesWhereTheyFit) {
  DeviceInfo d = test::pocl_device("pthread").info;
  d.preferred.float_ = d.native.float_ = d.preferred.double_ = d.native.double_ = 1;
  d.local_mem_dedicated = false, d.image_support = true;
  d.image_max_buffer_texels = 2048 * 512;
  const auto image = [&](const DeviceInfo& dev, const GemmProblem& p) {
    const auto t = get<TiledConfig>(default_parameters(dev, p).config);
    EXPECT_EQ(t.SA + t.SB, t.IMG ? 0 : 2) << to_string(KernelConfig(t));
    return t.IMG == 1;
  };
  // 16x16 of C per work-item where each compute unit gets 8 work-groups of them, else 8x8.
  const auto per_item = [&](const GemmProblem& p) {
    const auto t = get<TiledConfig>(default_parameters(d, p).config);
    EXPECT_EQ(t.IMG, 1) << describe(p);
    EXPECT_EQ(t.PACK, 0) << "images over the caller's buffers where the layout allows";
    return t.MWG / t.MDIMC * (t.NWG / t.NDIMC);
  };
  d.compute_units = 2;
  EXPECT_EQ(per_item(square(512)), 256);
  EXPECT_EQ(per_item(square(256)), 64);
  d.compute_units = 1;
  EXPECT_EQ(per_item(square(384)), 256);
  GemmProblem p = square(512);
  EXPECT_TRUE(image(d, p));
  p.m = 4 * 2048;  // A's image would be 2048 texels wide, 512 rows: the limit
  EXPECT_TRUE(image(d, p));
  p.m += 1;
  EXPECT_FALSE(image(d, p));
  p = square(512), p.k = 8193;  // 128 texels wide, 8224 rows (k padded)
  EXPECT_FALSE(image(d, p));
  p = square(512), p.batch = 2;  // images hold one item
  EXPECT_FALSE(image(d, p));
  p = square(512), p.precision = Precision::kDouble;  // fp32 texels only
  EXPECT_FALSE(image(d, p));
  DeviceInfo scratchpad = d;  // GPUs: staging in local memory is what it is for
  scratchpad.local_mem_dedicated = true;
  EXPECT_FALSE(image(scratchpad, square(512)));
  DeviceInfo no_images = d;
  no_images.image_support = false;
  EXPECT_FALSE(image(no_images, square(512)));
}

// A stored image configuration is handed out only where its images fit the device at the asked
// shape: past the limits the routine would fail (CL_INVALID_IMAGE_SIZE), so the lookup goes on.
TEST(Lookup, ImageBestsAreSkippedWhereTheirImagesWouldNotFit) {
  test::TempDir dir;
  DeviceInfo d = test::pocl_device("pthread").info;
  d.image_support = true;
  d.image_max_buffer_texels = 64 * 64;  // 256 values of m or n by 64 of k
  TiledConfig img;
  img.KWG = 32, img.VWM = 8, img.VWN = 4, img.SA = 0, img.SB = 0, img.IMG = 1;
  ASSERT_TRUE(constraint_violations(img).empty());
  ASSERT_TRUE(limit_violations(img, d, Precision::kSingle).empty());
  {
    Store store(dir / "t.db");
    test::store_best(store, d, 64, img, 2.0);
  }
  const ParameterLookup lookup(dir / "t.db");
  GemmProblem p = square(64);
  EXPECT_EQ(lookup.lookup(d, p).config, KernelConfig(img));
  EXPECT_TRUE(images_fit(img, d, p));
  p.m = p.n = 256;
  EXPECT_EQ(lookup.lookup(d, p).config, KernelConfig(img)) << "64 texels wide: the limit";
  p.n = 257;
  EXPECT_FALSE(images_fit(img, d, p));
  const TunedParameters past = lookup.lookup(d, p);
  EXPECT_NE(past.config, KernelConfig(img));
  EXPECT_EQ(past.source, LookupSource::kDefault);
  p = square(64), p.k = 257;  // 16 texels wide, 288 rows of k: past the limit
  EXPECT_NE(lookup.lookup(d, p).config, KernelConfig(img));
}

// A skinny C gets the nearest best's tile shrunk along its short side, halving the work-items
// with it, down to the smallest tile that still covers that side (the 8x4096x4096 tune: its
// best was this shrunk form of the 1024 tune's best).
TEST(Lookup, ASkinnyCsTileShrinksToItsShortSideWithItsWorkItems) {
  TiledConfig best;
  best.MWG = 32, best.NWG = 64, best.KWG = 32, best.MDIMC = 1, best.NDIMC = 8, best.VWM = 16;
  best.VWN = 8, best.KWI = 8, best.SA = 0, best.SB = 0, best.MDIMA = 1, best.NDIMB = 8;
  best.PACK = 0;
  ASSERT_TRUE(constraint_violations(best).empty());
  GemmProblem p;
  p.m = 8, p.n = p.k = 4096;  // row-major: the kernel's n is 8
  const auto fitted = [&](std::size_t m) {
    p.m = m;
    const auto v = narrower_variant(best, p);
    return v ? std::optional(*v->as<TiledConfig>()) : std::nullopt;
  };
  TiledConfig want = best;
  want.NWG = 16, want.NDIMC = 2, want.NDIMB = 2;  // each work-item keeps 8 columns
  EXPECT_EQ(fitted(8), want);
  EXPECT_EQ(fitted(16), want);
  want.NWG = 32, want.NDIMC = want.NDIMB = 4;
  EXPECT_EQ(fitted(24), want) << "16 would not cover 24";
  EXPECT_EQ(fitted(40), std::nullopt);
  EXPECT_EQ(fitted(4096), std::nullopt);
  // GEMV-like 4096x1: the kernel's m is 1; MDIMC is already 1, so the work-item's share halves,
  // down to 16, the smallest MWG of the space.
  p.m = 4096, p.n = 1;
  const auto gemv = narrower_variant(best, p);
  ASSERT_TRUE(gemv);
  want = best;
  want.MWG = 16;
  EXPECT_EQ(*gemv->as<TiledConfig>(), want);
  ASSERT_TRUE(constraint_violations(*gemv).empty());
  // Strided vectors with one vector per work-item left are the contiguous kernel.
  best.STRM = 1;
  ASSERT_TRUE(constraint_violations(best).empty());
  const auto strided = narrower_variant(best, p);
  ASSERT_TRUE(strided);
  EXPECT_EQ(*strided->as<TiledConfig>(), want);
}

TEST(SpecLookup, OnlyTheVersionTunedLastIsUsed) {
  // A spec edited after a tune (tile = [8, 16] instead of [64]) is another version. The old
  // version's exact sizes must not win over the new version's nearest: -Dtile=64 is a value
  // the current spec no longer lists.
  test::TempDir dir;
  const DeviceInfo dev = test::pocl_device("pthread").info;
  {
    Store store(dir / "t.db");
    store.upsert_device(dev);
    const auto put = [&](const char* kernel, const char* config, std::size_t n, const char* when) {
      MeasurementRecord r;
      r.device_key = dev.key, r.kernel = kernel, r.config = config;
      r.problem.m = n, r.problem.n = 64, r.problem.k = 1;
      r.result.median_ms = r.result.min_ms = r.result.max_ms = 1.0;
      r.result.routine_ms = r.result.kernel_ms = {1.0};
      store.add_measurement(r);
      auto q = store.db().prepare("UPDATE best SET updated_at = ? WHERE kernel = ?");
      q.bind(1, std::string(when)).bind(2, std::string(kernel));
      q.run();
    };
    put("spec:transpose:7d34aa", "tile=64", 96, "2026-01-01T00:00:00Z");
    put("spec:transpose:b5cfbb", "tile=8", 128, "2026-02-01T00:00:00Z");
  }
  const auto t = best_defines(dir / "t.db", "transpose", dev, {96, 64});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->kernel, "spec:transpose:b5cfbb");
  EXPECT_EQ(t->build_options(), "-Dtile=8");
  EXPECT_EQ(t->source, LookupSource::kNearestShape);

  // A similar device's later tune of another version (a host with a stale checkout, a late
  // import) does not hide this device's own: it took the other host's -Dtile=32.
  DeviceInfo sibling = dev;
  sibling.name = "sibling-model";
  sibling.key = device_key(sibling.vendor, sibling.name, sibling.driver_version);
  {
    Store store(dir / "t.db");
    store.upsert_device(sibling);
    MeasurementRecord r;
    r.device_key = sibling.key, r.kernel = "spec:transpose:0ld0ld", r.config = "tile=32";
    r.problem.m = 4096, r.problem.n = 4096, r.problem.k = 1;
    r.result.median_ms = r.result.min_ms = r.result.max_ms = 1.0;
    r.result.routine_ms = r.result.kernel_ms = {1.0};
    store.add_measurement(r);
    store.db().exec(
        "UPDATE best SET updated_at = '2026-03-01T00:00:00Z' WHERE kernel = "
        "'spec:transpose:0ld0ld'");
  }
  const auto own = best_defines(dir / "t.db", "transpose", dev, {128, 64});
  ASSERT_TRUE(own);
  EXPECT_EQ(own->build_options(), "-Dtile=8");
  EXPECT_EQ(own->source, LookupSource::kExact);
  DeviceInfo cousin = dev;  // never tuned: the similar devices' last version
  cousin.name = "cousin-model";
  cousin.key = device_key(cousin.vendor, cousin.name, cousin.driver_version);
  const auto other = best_defines(dir / "t.db", "transpose", cousin, {128, 64});
  ASSERT_TRUE(other);
  EXPECT_EQ(other->build_options(), "-Dtile=32");
  EXPECT_EQ(other->source, LookupSource::kSimilarDevice);
}

// A library caller catches mmtune::Error: a database that fails after it opened (a column an
// older program dropped, a role without SELECT) threw the SQL layer's own exception, and the
// CLBlast-style SetTuningDatabase let it out of the program (std::terminate).
TEST(Lookup, AFailureToReadIsAnMmtuneError) {
  test::TempDir dir;
  const DeviceInfo& dev = test::pocl_device("pthread").info;
  {
    Store store(dir / "t.db");
    store_best(store, dev, 256, tiled(64, 16), 2.0);
    store.db().exec("ALTER TABLE best RENAME COLUMN config TO cfg");
  }
  EXPECT_THROW(ParameterLookup(dir / "t.db"), Error);
  EXPECT_THROW(best_defines(dir / "t.db", "transpose", dev, {64, 64}), Error);
  EXPECT_EQ(clblast_compat::SetTuningDatabase(dir / "t.db"),
            clblast_compat::StatusCode::kDatabaseError);
}

class ReadyGemm : public ::testing::Test {
 protected:
  const Device& dev = test::pocl_device("pthread");
  cl::Context context{dev.device};
  cl::CommandQueue queue{context, dev.device};

  // Runs the problem through Gemm and compares with the CPU reference.
  void check(Gemm& gemm, const GemmProblem& p) {
    EXPECT_EQ(test::gemm_mismatch(gemm, context, queue, p, 11), "");
  }
};

TEST_F(ReadyGemm, IrregularShapesWithDefaultsAndTunedParameters) {
  test::TempDir dir;
  {
    Store store(dir / "t.db");
    store_best(store, dev.info, 128, tiled(64, 16), 1.0);
    DirectConfig d;
    store_best(store, dev.info, 20, d, 0.01);
  }
  Gemm with_defaults(context, queue);
  Gemm tuned(context(), queue(), std::make_shared<const ParameterLookup>(dir / "t.db"));
  for (auto layout : {Layout::kRowMajor, Layout::kColMajor}) {
    for (int t = 0; t < 4; ++t) {
      for (auto [m, n, k] :
           {std::tuple{100, 70, 33}, std::tuple{17, 129, 65}, std::tuple{1, 5, 300}}) {
        GemmProblem p;
        p.m = m, p.n = n, p.k = k, p.layout = layout, p.trans_a = t & 1, p.trans_b = t & 2;
        p.alpha = 1.5, p.beta = t == 3 ? 0.0 : -0.5;
        check(with_defaults, p);
        check(tuned, p);
      }
    }
  }
  GemmProblem p;
  p.m = 100, p.n = 70, p.k = 33;
  EXPECT_EQ(tuned.parameters(p).source, LookupSource::kNearestShape);
  EXPECT_EQ(with_defaults.parameters(p).source, LookupSource::kDefault);
  p.m = p.n = p.k = 20;
  EXPECT_EQ(tuned.parameters(p).source, LookupSource::kExact);
  EXPECT_EQ(kind_of(tuned.parameters(p).config), KernelKind::kDirect);
  check(tuned, p);
  p.precision = Precision::kDouble;  // PoCL has fp64
  check(tuned, p);
}

// Tuned parameters that do not build here (a database from another driver or a similar device)
// give way to the built-in defaults, as a BLAS would run: every call of the shape threw.
TEST_F(ReadyGemm, ATunedKernelThatDoesNotBuildHereGivesWayToTheDefaults) {
  test::TempDir dir;
  {
    Store store(dir / "t.db");
    store_best(store, dev.info, 20, DirectConfig{}, 0.01);
  }
  // A driver that cannot build the direct kernel: its options name its parameters (WGD).
  const test::ScopedEnv env(
      {{"MMTUNE_TEST_BUILD_FAILS", " -DWGD="}, {"XDG_CACHE_HOME", dir / "cache"}});
  Gemm gemm(context, queue, std::make_shared<const ParameterLookup>(dir / "t.db"));
  GemmProblem p;
  p.m = p.n = p.k = 20;
  EXPECT_EQ(kind_of(gemm.parameters(p).config), KernelKind::kDirect);
  check(gemm, p);
  EXPECT_EQ(gemm.parameters(p).source, LookupSource::kDefault);
  EXPECT_NE(kind_of(gemm.parameters(p).config), KernelKind::kDirect);
  check(gemm, p);  // the shape keeps the defaults
}

// A tuned kernel that builds but does not launch here (more registers or local memory than its
// work-group leaves: CL_OUT_OF_RESOURCES on a GPU) gives way to the defaults at its first launch,
// C read and written once: a kernel that reads packed copies and one that reads in place.
TEST_F(ReadyGemm, ATunedKernelThatDoesNotLaunchHereGivesWayToTheDefaults) {
  const std::pair<KernelConfig, std::string> cases[] = {{tiled(64, 8), " -DMWG=64 "},
                                                        {DirectConfig{}, " -DWGD="}};
  for (const auto& [config, options] : cases) {
    SCOPED_TRACE(to_string(config));
    test::TempDir dir;
    {
      Store store(dir / "t.db");
      store_best(store, dev.info, 20, config, 0.01);
    }
    const test::ScopedEnv env(
        {{"MMTUNE_TEST_LAUNCH_FAILS", options}, {"XDG_CACHE_HOME", dir / "cache"}});
    Gemm gemm(context, queue, std::make_shared<const ParameterLookup>(dir / "t.db"));
    GemmProblem p;
    p.m = p.n = p.k = 20;
    p.alpha = 1.5, p.beta = -0.5;
    ASSERT_EQ(gemm.parameters(p).config, config);
    check(gemm, p);
    EXPECT_EQ(gemm.parameters(p).source, LookupSource::kDefault);
    EXPECT_NE(gemm.parameters(p).config, config);
    check(gemm, p);
  }
}

TEST_F(ReadyGemm, TheShapesHeldAreBounded) {
  // A program that calls with ever new shapes (a growing sequence length) must not grow the
  // per-shape cache without bound.
  Gemm gemm(context, queue);
  GemmProblem kept;
  kept.m = kept.n = kept.k = 48;
  check(gemm, kept);
  for (std::size_t m = 1; m <= Gemm::kShapesHeld + 300; ++m) {
    GemmProblem p;
    p.m = m, p.n = 7, p.k = 5;
    gemm.parameters(p);
    if (m % 100 == 0) gemm.parameters(kept);
  }
  EXPECT_EQ(gemm.shapes_held(), Gemm::kShapesHeld);
  GemmProblem first;  // dropped long ago: looked up again, and runs as before
  first.m = 1, first.n = 7, first.k = 5;
  check(gemm, first);
  check(gemm, kept);
  EXPECT_EQ(gemm.shapes_held(), Gemm::kShapesHeld);
}

TEST_F(ReadyGemm, ErrorsAreClearExceptions) {
  Gemm gemm(context, queue);
  GemmProblem p;
  p.m = p.n = p.k = 64;
  cl::Buffer small(context, CL_MEM_READ_WRITE, 64 * 64 * 4 - 4);
  cl::Buffer ok(context, CL_MEM_READ_WRITE, 64 * 64 * 4);
  try {
    gemm(p, small, ok, ok);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("buffer A"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gemm(p, ok, ok, ok, 1), UsageError);  // the offset pushes A past the end
  GemmProblem empty = p;  // BLAS: k = 0 is C = beta C, not an error (test_consumer_safety.cpp)
  empty.k = 0;
  EXPECT_NO_THROW(gemm(empty, ok, ok, ok).wait());
  GemmProblem bad_ld = p;
  bad_ld.lda = 10;
  EXPECT_THROW(gemm(bad_ld, ok, ok, ok), UsageError);
  GemmProblem half = p;
  half.precision = Precision::kHalf;
  if (!dev.info.fp16) {
    EXPECT_THROW(gemm(half, ok, ok, ok), NoDeviceError);
  }
}

}  // namespace
}  // namespace mmtune
