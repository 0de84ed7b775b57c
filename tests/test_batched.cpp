// Strided-batched and batched GEMM: every family against the CPU reference (in one launch or one
// launch per item), the consumer's calls and their misuse, and batches as problems of their own
// in the store, the lookup and the CLI.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "mmtune/error.hpp"
#include "mmtune/gemm.hpp"
#include "opencl/host_data.hpp"
#include "opencl/reference.hpp"
#include "opencl/runner.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

// Global-memory operands, 8-wide vectors (every device allows 8: typed_family.hpp); PACK=0
// reads A and B in place on whole tiles, PACK=2 B alone (untransposed).
TiledConfig wide(int pack) {
  TiledConfig c;
  c.MWG = 32, c.NWG = 32, c.KWG = 16, c.MDIMC = 2, c.NDIMC = 4, c.VWM = 8, c.VWN = 8, c.KWI = 8;
  c.SA = 0, c.SB = 0, c.MDIMA = 2, c.NDIMB = 4, c.PACK = pack;
  return c;
}

TiledConfig image() {
  TiledConfig c = wide(1);
  c.VWM = 8, c.VWN = 4, c.IMG = 1;
  return c;
}

GemmProblem batch_of(std::size_t m, std::size_t n, std::size_t k, std::size_t batch) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k, p.batch = batch;
  return p;
}

TEST(Batched, EveryFamilyMatchesTheReferenceItemByItem) {
  const Device& dev = test::pocl_device("pthread");
  const KernelSources sources;  // the runner keeps a reference
  Runner runner(dev, sources);
  DirectConfig direct;
  direct.WGD = 32, direct.MDIMCD = 4, direct.NDIMCD = 8, direct.VWMD = 4, direct.VWND = 2;
  direct.KWID = 8, direct.MDIMAD = 16, direct.NDIMBD = 2, direct.PADA = 0;
  const std::vector<KernelConfig> configs = {TiledConfig{}, wide(0),       wide(1),
                                             wide(2),       image(),       DirectConfig{},
                                             direct,        NaiveConfig{}, ClassicConfig{8}};
  // Irregular (padded per item), whole tiles (read in place), every layout and transposition,
  // gaps between the items, scalars with beta = 0 (C holds NaN) and beta != 0.
  std::vector<GemmProblem> problems;
  int variant = 0;
  for (auto [m, n, k] : {std::tuple{33, 17, 9}, std::tuple{64, 32, 32}, std::tuple{1, 7, 64}}) {
    for (auto layout : {Layout::kRowMajor, Layout::kColMajor}) {
      for (int t = 0; t < 4; ++t) {
        GemmProblem p = batch_of(m, n, k, 3 + variant % 3);
        p.layout = layout, p.trans_a = t & 1, p.trans_b = t & 2;
        p.alpha = variant % 2 ? -1.5 : 1.0, p.beta = variant % 4 == 1 ? 0.0 : 0.5;
        if (variant % 3 == 1) {  // padded leading dimensions and gaps after each item
          p.lda = p.min_ld(p.a_rows(), p.a_cols()) + 3;
          p.ldc = p.min_ld(p.m, p.n) + 2;
          p.stride_a = p.a_elements() + 5, p.stride_b = p.b_elements() + 64;
          p.stride_c = p.c_elements() + 7;
        }
        problems.push_back(p);
        ++variant;
      }
    }
  }
  for (const KernelConfig& c : configs) {
    for (const GemmProblem& p : problems) {
      runner.set_problem(p, p.m * 7 + p.batch);
      const Measurement m = runner.evaluate(c, TimingOptions::verify_only());
      ASSERT_EQ(m.status, Status::kOk) << describe(p) << " stride_c=" << p.stride_c << " ["
                                       << to_string(c) << "]: " << m.message;
    }
  }
}

// A routine on PoCL's pthread device, with its own queue.
struct PthreadRoutine {
  const Device& dev = test::pocl_device("pthread");
  cl::Context context{dev.device};
  cl::CommandQueue queue{context, dev.device};
  ProgramCache cache{context, dev.device, dev.info.key, ""};
  const KernelSources sources;
  GemmRoutine routine{sources, cache, dev.info};
};

TEST(Batched, BothFamiliesRunABatchInOneLaunch) {
  PthreadRoutine r;
  auto& [dev, context, queue, cache, sources, routine] = r;
  const GemmProblem p = batch_of(64, 64, 64, 5);
  const Operands o = random_operands(p, 3);
  const auto bytes = [&](const std::vector<double>& v) { return to_bytes(v, p.precision); };
  auto ab = bytes(o.a), bb = bytes(o.b), cb = bytes(o.c);
  cl::Buffer a(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, ab.size(), ab.data());
  cl::Buffer b(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bb.size(), bb.data());
  cl::Buffer c(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, cb.size(), cb.data());
  // Commands per call: a batch is one launch (the tiled kernel packs both operands first, A
  // alone, or reads them in place); images and naive run item by item.
  const std::vector<std::pair<KernelConfig, std::size_t>> expected = {
      {TiledConfig{}, 3},  {wide(0), 1},  {wide(2), 2},
      {DirectConfig{}, 1}, {image(), 15}, {NaiveConfig{}, 5}};
  for (const auto& [config, commands] : expected) {
    ASSERT_TRUE(routine.prepare(config, p).ok) << to_string(config);
    const RoutineEvents ev = routine.enqueue(queue, p, config, {&a}, {&b}, {&c});
    cl::Event::waitForEvents(ev.events);
    EXPECT_EQ(ev.events.size(), commands) << to_string(config);
    EXPECT_EQ(ev.item_loop, commands == 15 || commands == 5) << to_string(config);
  }
}

// KC: the kernel runs once per slice of k, each adding to C; padded shapes (C through scratch),
// beta = 0 (C holds NaN) and beta != 0, single and batched, the last slice shorter.
TEST(Batched, KInSlicesAddsEverySliceToC) {
  const Device& dev = test::pocl_device("pthread");
  const KernelSources sources;
  Runner runner(dev, sources);
  // PACK=2 reads B in place, each slice k0 into its columns, where k = 1104 and n whole.
  for (int pack : {1, 2}) {
    TiledConfig packed = wide(pack);
    packed.KC = 512;
    for (auto [m, n, k, batch] : {std::tuple{33, 17, 1100, 1}, std::tuple{64, 32, 1100, 2},
                                  std::tuple{33, 64, 1104, 1}, std::tuple{32, 64, 1104, 2}}) {
      for (double beta : {0.0, 0.5}) {
        GemmProblem p = batch_of(m, n, k, batch);  // k padded to 1104: slices 512, 512, 80
        // A transposed B where k is padded keeps the transposing pack covered; where k = 1104
        // B stays untransposed (k-contiguous), the case PACK=2 reads in place.
        p.beta = beta, p.trans_b = beta != 0 && k == 1100;
        runner.set_problem(p, 5);
        const Measurement r = runner.evaluate(packed, TimingOptions::verify_only());
        ASSERT_EQ(r.status, Status::kOk) << describe(p) << " PACK=" << pack << ": " << r.message;
      }
    }
  }
  TiledConfig sliced = wide(1);
  sliced.KC = 512;
  // Three launches of the kernel between the packing and the unpadding; its time is theirs.
  cl::Context context(dev.device);
  cl::CommandQueue queue(context, dev.device, CL_QUEUE_PROFILING_ENABLE);
  ProgramCache cache(context, dev.device, dev.info.key, "");
  GemmRoutine routine(sources, cache, dev.info);
  const GemmProblem p = batch_of(33, 17, 1100, 1);
  const Operands o = random_operands(p, 3);
  cl::Buffer a = test::upload(context, o.a, p.precision),
             b = test::upload(context, o.b, p.precision);
  cl::Buffer c = test::upload(context, o.c, p.precision);
  ASSERT_TRUE(routine.prepare(sliced, p).ok);
  const RoutineEvents ev = routine.enqueue(queue, p, sliced, {&a}, {&b}, {&c});
  cl::Event::waitForEvents(ev.events);
  EXPECT_EQ(ev.events.size(), 6u);
  EXPECT_EQ(ev.main, 2u);
  EXPECT_EQ(ev.main_launches, 3u);
  double sum = 0;
  for (std::size_t i = 2; i < 5; ++i) {
    sum += double(ev.events[i].getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                  ev.events[i].getProfilingInfo<CL_PROFILING_COMMAND_START>()) *
           1e-6;
  }
  EXPECT_DOUBLE_EQ(main_kernel_ms(queue, ev, true), sum);
  EXPECT_GT(rerun_main_ms(queue, ev), 0.0);
  // Run k whole, the same configuration is one launch.
  sliced.KC = 0;
  const RoutineEvents whole = routine.enqueue(queue, p, sliced, {&a}, {&b}, {&c});
  cl::Event::waitForEvents(whole.events);
  EXPECT_EQ(whole.events.size(), 4u);
  EXPECT_EQ(whole.main_launches, 1u);
}

// C = beta C (alpha = 0 or k = 0) of a whole batch is one launch, not one per item.
TEST(Batched, ScalingABatchIsOneLaunch) {
  PthreadRoutine r;
  auto& [dev, context, queue, cache, sources, routine] = r;
  GemmProblem p = batch_of(5, 3, 4, 1000);
  p.stride_c = p.c_span() + 2;  // gaps between the items stay as they are
  const Operands o = random_operands(p, 4);
  cl::Buffer a = test::upload(context, o.a, p.precision),
             b = test::upload(context, o.b, p.precision);
  for (auto [alpha, k] : {std::pair{0.0, 4}, std::pair{1.0, 0}}) {
    p.alpha = alpha, p.k = std::size_t(k), p.beta = 2.0;
    cl::Buffer c = test::upload(context, o.c, p.precision);
    const RoutineEvents ev = routine.enqueue(queue, p, NaiveConfig{}, {&a}, {&b}, {&c});
    cl::Event::waitForEvents(ev.events);
    EXPECT_EQ(ev.events.size(), 1u);
    const std::vector<double> got = test::download(queue, c, o.c.size(), p.precision);
    for (std::size_t e = 0; e < got.size(); ++e) {
      const bool in_item = e % p.stride_c < p.c_span();
      ASSERT_EQ(got[e], in_item ? 2.0 * o.c[e] : o.c[e]) << "element " << e;
    }
  }
}

// Slices of k after the first add to C, reading it: a write-only C (beta = 0) is written by
// the unpad copy from scratch instead, as OpenCL allows no kernel to read it.
TEST(Batched, AWriteOnlyCIsNotReadBySlicesOfK) {
  PthreadRoutine r;
  auto& [dev, context, queue, cache, sources, routine] = r;
  TiledConfig sliced = wide(1);
  sliced.KC = 512;
  const GemmProblem p = batch_of(32, 32, 1100, 1);  // whole tiles: C could be written in place
  const Operands o = random_operands(p, 8);
  const Reference want = reference_gemm(p, o);
  cl::Buffer a = test::upload(context, o.a, p.precision),
             b = test::upload(context, o.b, p.precision);
  ASSERT_TRUE(routine.prepare(sliced, p).ok);
  std::size_t in_place = 0;
  for (const cl_mem_flags flags : {CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY}) {
    cl::Buffer c(context, flags, o.c.size() * sizeof(float));
    const RoutineEvents ev = routine.enqueue(queue, p, sliced, {&a}, {&b}, {&c});
    cl::Event::waitForEvents(ev.events);
    EXPECT_EQ(ev.main_launches, 3u);
    if (flags == CL_MEM_READ_WRITE) {
      in_place = ev.events.size();
      continue;
    }
    EXPECT_EQ(ev.events.size(), in_place + 1) << "no unpad copy after the slices";
    const std::vector<double> got = test::download(queue, c, o.c.size(), p.precision);
    for (std::size_t e = 0; e < got.size(); ++e) {
      ASSERT_NEAR(got[e], want.c[e], 1e-3 * (1.0 + want.bound[e])) << "element " << e;
    }
  }
}

class BatchedGemm : public ::testing::Test {
 protected:
  const Device& dev = test::pocl_device("pthread");
  cl::Context context{dev.device};
  cl::CommandQueue queue{context, dev.device};

  cl::Buffer upload(const std::vector<double>& v) {
    return test::upload(context, v, Precision::kSingle);
  }
  std::vector<double> download(const cl::Buffer& buf, std::size_t elements) {
    return test::download(queue, buf, elements, Precision::kSingle);
  }
};

TEST_F(BatchedGemm, StridedCallsMatchTheReference) {
  Gemm gemm(context, queue);
  for (auto [m, n, k] : {std::tuple{64, 64, 64}, std::tuple{20, 9, 70}}) {
    GemmProblem p = batch_of(m, n, k, 10);
    p.alpha = 0.5, p.beta = -1.0;
    EXPECT_EQ(test::gemm_mismatch(gemm, context, queue, p, 5), "");
    p.layout = Layout::kColMajor, p.trans_b = true, p.stride_c = p.c_elements() + 3;
    EXPECT_EQ(test::gemm_mismatch(gemm, context, queue, p, 6), "");
  }
  // Nothing to do: batch 0, as m = 0 is.
  GemmProblem none = batch_of(8, 8, 8, 0);
  cl::Buffer tiny(context, CL_MEM_READ_WRITE, 4);
  const cl::Event nothing = gemm(none, tiny, tiny, tiny);
  nothing.wait();
  EXPECT_EQ(nothing.getInfo<CL_EVENT_COMMAND_TYPE>(), cl_command_type(CL_COMMAND_MARKER));
}

// CLBlast's GemmBatched: each item at its own offsets with its own scalars.
TEST_F(BatchedGemm, BatchedCallsWithOwnOffsetsAndScalars) {
  Gemm gemm(context, queue);
  GemmProblem item = batch_of(24, 16, 40, 1);
  const std::size_t count = 4;
  GemmProblem whole = item;  // the buffers hold `count` items back to back, and some slack
  whole.batch = count + 2;
  const Operands o = random_operands(whole, 9);
  cl::Buffer a = upload(o.a), b = upload(o.b);
  const auto run = [&](const std::vector<double>& alphas, const std::vector<double>& betas,
                       const std::vector<std::size_t>& ao, const std::vector<std::size_t>& bo,
                       const std::vector<std::size_t>& co) {
    cl::Buffer c = upload(o.c);
    gemm.batched(item, alphas, betas, a, ao, b, bo, c, co).wait();
    const std::vector<double> got = download(c, o.c.size());
    std::vector<double> want = o.c;
    for (std::size_t i = 0; i < count; ++i) {  // each item by the single-GEMM reference
      GemmProblem one = item;
      one.alpha = alphas[i], one.beta = betas[i];
      Operands x{{o.a.begin() + long(ao[i]), o.a.begin() + long(ao[i] + item.a_elements())},
                 {o.b.begin() + long(bo[i]), o.b.begin() + long(bo[i] + item.b_elements())},
                 {want.begin() + long(co[i]), want.begin() + long(co[i] + item.c_elements())}};
      const Reference r = reference_gemm(one, x);
      std::copy(r.c.begin(), r.c.end(), want.begin() + long(co[i]));
    }
    for (std::size_t e = 0; e < want.size(); ++e) {
      ASSERT_NEAR(got[e], want[e], 1e-4 * (1.0 + std::fabs(want[e]))) << "element " << e;
    }
  };
  const std::size_t sa = item.a_elements(), sb = item.b_elements(), sc = item.c_elements();
  // Evenly spaced with equal scalars (one strided batch), then scattered with own scalars and a
  // shared A (one routine per item).
  run({1.0, 1.0, 1.0, 1.0}, {0.5, 0.5, 0.5, 0.5}, {0, sa, 2 * sa, 3 * sa},
      {sb, 2 * sb, 3 * sb, 4 * sb}, {0, sc, 2 * sc, 3 * sc});
  run({1.0, -2.0, 0.0, 0.5}, {0.0, 1.0, 2.0, -1.0}, {sa, sa, 0, 4 * sa}, {0, 3 * sb, sb, 5 * sb},
      {5 * sc, 0, 2 * sc, sc});

  cl::Buffer c = upload(o.c);
  // Misuse: lists of different lengths, overlapping C matrices, a batch in the problem.
  EXPECT_THROW(gemm.batched(item, {1.0}, {}, a, {0}, b, {0}, c, {0}), UsageError);
  try {
    gemm.batched(item, {1.0, 1.0}, {0.0, 0.0}, a, {0, sa}, b, {0, sb}, c, {0, sc - 1});
    FAIL() << "overlapping C matrices were accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("within each other's span"), std::string::npos)
        << e.what();
  }
  GemmProblem batched = item;
  batched.batch = 2;
  EXPECT_THROW(gemm.batched(batched, {1.0}, {0.0}, a, {0}, b, {0}, c, {0}), UsageError);
  // An offset past the buffer's end is caught before anything runs, evenly spaced or not.
  EXPECT_THROW(gemm.batched(item, {1.0, 1.0}, {0.0, 0.0}, a, {0, 6 * sa}, b, {0, sb}, c, {0, sc}),
               UsageError);
  EXPECT_THROW(gemm.batched(item, {1.0, 2.0}, {0.0, 0.0}, a, {0, 6 * sa}, b, {0, sb}, c, {0, sc}),
               UsageError);
  queue.finish();
  EXPECT_EQ(download(c, o.c.size()), download(upload(o.c), o.c.size())) << "a refused call ran";
}

// Each item of a list is checked where it lies: many items sharing one wide A are not refused
// as if they were a tight strided batch (160 x 14.7 M elements would pass 2^31).
TEST_F(BatchedGemm, ItemsSharingAWideAAreCheckedWhereTheyLie) {
  Gemm gemm(context, queue);
  GemmProblem item = batch_of(8, 8, 8, 1);
  item.lda = std::size_t(1) << 21;
  const std::size_t count = 160;
  ASSERT_GT(double(count) * double(item.a_span()), double(kMaxKernelElements));
  std::vector<double> a(item.a_span(), 0.0), b(item.b_span());
  for (std::size_t r = 0; r < item.m; ++r) {
    for (std::size_t e = 0; e < item.k; ++e) a[r * item.lda + e] = double(r + 2 * e) / 16.0;
  }
  for (std::size_t e = 0; e < b.size(); ++e) b[e] = double(e % 7) - 3.0;
  cl::Buffer da = upload(a), db = upload(b);
  cl::Buffer dc(context, CL_MEM_READ_WRITE, count * item.c_span() * sizeof(float));
  std::vector<double> alphas(count), betas(count, 0.0);
  std::vector<std::size_t> zeros(count, 0), c_offsets(count);
  for (std::size_t i = 0; i < count; ++i) {
    alphas[i] = double(i % 5) - 2.0;
    c_offsets[i] = i * item.c_span();
  }
  gemm.batched(item, alphas, betas, da, zeros, db, zeros, dc, c_offsets).wait();
  const std::vector<double> got = download(dc, count * item.c_span());
  Operands one{a, b, std::vector<double>(item.c_span(), 0.0)};
  const std::vector<double> unit = reference_gemm(item, one).c;  // alpha 1
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t e = 0; e < unit.size(); ++e) {
      ASSERT_NEAR(got[c_offsets[i] + e], alphas[i] * unit[e], 1e-4 * (1.0 + std::fabs(unit[e])))
          << "item " << i << " element " << e;
    }
  }
}

TEST_F(BatchedGemm, BadStridesAndSmallBuffersAreUsageErrors) {
  Gemm gemm(context, queue);
  GemmProblem p = batch_of(16, 16, 16, 4);
  cl::Buffer enough(context, CL_MEM_READ_WRITE, 4 * 16 * 16 * 4);
  cl::Buffer one(context, CL_MEM_READ_WRITE, 16 * 16 * 4);
  try {
    gemm(p, enough, enough, one);
    FAIL() << "a C buffer of one item was accepted for four";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("buffer C"), std::string::npos) << e.what();
  }
  p.stride_c = 100;  // items 256 elements long, 100 apart
  EXPECT_THROW(gemm(p, enough, enough, enough), UsageError);
  p.stride_c = 0;
  p.stride_a = std::size_t(1) << 30;  // the last item lies beyond 32-bit indexing
  EXPECT_THROW(gemm(p, enough, enough, enough), UsageError);
  GemmProblem empty = batch_of(16, 16, 16, 0);
  EXPECT_THROW(validate(empty), UsageError);  // tuning a batch of nothing means nothing
  // The device's memory holds the items their strides apart, not back to back.
  DeviceInfo small = dev.info;
  small.max_alloc_bytes = 1 << 20;
  GemmProblem spread = batch_of(16, 16, 16, 3);
  EXPECT_NO_THROW(check_fits(spread, small));
  spread.stride_b = 200000;  // 0.8 MB apart: 1.6 MB for B
  try {
    check_fits(spread, small);
    FAIL() << "B's items 0.8 MB apart fit a 1 MiB allocation";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("allocates at most"), std::string::npos) << e.what();
  }
}

TEST(Batched, StoreAndLookupKeepBatchesApart) {
  test::TempDir dir;
  const DeviceInfo& dev = test::pocl_device("pthread").info;
  GemmProblem single = batch_of(64, 64, 64, 1), many = batch_of(64, 64, 64, 1000);
  {
    Store store(dir / "t.db");
    test::store_best(store, dev, single, TiledConfig{}, 1.0);
    test::store_best(store, dev, many, wide(0), 100.0);  // slower in ms: still its own best
    ASSERT_TRUE(store.best(dev.key, single, "tiled"));
    ASSERT_TRUE(store.best(dev.key, many, "tiled"));
    EXPECT_EQ(store.best(dev.key, single, "tiled")->config, to_string(KernelConfig(TiledConfig{})));
    EXPECT_EQ(store.best(dev.key, many, "tiled")->config, to_string(KernelConfig(wide(0))));
    EXPECT_EQ(store.measurements(dev.key, many, "").size(), 1u);
  }
  const ParameterLookup lookup(dir / "t.db");
  const TunedParameters s = lookup.lookup(dev, single), b = lookup.lookup(dev, many);
  EXPECT_EQ(s.source, LookupSource::kExact);
  EXPECT_EQ(s.config, KernelConfig(TiledConfig{}));
  EXPECT_EQ(b.source, LookupSource::kExact);
  EXPECT_EQ(b.batch, 1000u);
  EXPECT_EQ(b.config, KernelConfig(wide(0)));
  // A batch of 800 is nearer to the batch of 1000 than to the single GEMM.
  EXPECT_EQ(lookup.lookup(dev, batch_of(64, 64, 64, 800)).batch, 1000u);
  // Without a database, a batch reads its operands in place (PoCL prefers 16-wide vectors, so
  // the default is the wide tiled configuration); a single GEMM packs them.
  const auto batched = default_parameters(dev, many).config.as<TiledConfig>();
  const auto one = default_parameters(dev, single).config.as<TiledConfig>();
  ASSERT_TRUE(batched && one);
  EXPECT_EQ(batched->PACK, 0);
  EXPECT_EQ(one->PACK, 1);
}

// A tiled best that reads images runs a batch item by item: a batch takes another shape's best.
TEST(Batched, LookupSkipsImageBestsForABatch) {
  test::TempDir dir;
  const DeviceInfo& dev = test::pocl_device("pthread").info;
  {
    Store store(dir / "t.db");
    test::store_best(store, dev, batch_of(64, 64, 64, 1), image(), 1.0);
    test::store_best(store, dev, batch_of(256, 256, 256, 1), wide(0), 1.0);
  }
  const ParameterLookup lookup(dir / "t.db");
  EXPECT_EQ(lookup.lookup(dev, batch_of(64, 64, 64, 1)).config, KernelConfig(image()));
  const TunedParameters b = lookup.lookup(dev, batch_of(64, 64, 64, 1000));
  EXPECT_EQ(b.config, KernelConfig(wide(0)));
  EXPECT_EQ(b.m, 256u);
}

TEST(BatchedCli, TuneBestAndBenchABatch) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  const auto tuned = test::run_mmtune({"--device", "pthread", "--n", "32", "--batch", "50",
                                       "--space", "quick", "--budget", "6", "--db", db, "-q"});
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  // The baselines run item by item: their kernel-alone times are unknown, stored as NULL, not 0.
  EXPECT_GT(test::count_rows(db,
                             "SELECT COUNT(*) FROM measurements WHERE status = 'Ok' AND "
                             "kernel_median_ms IS NULL AND kernel = 'naive'"),
            0);
  EXPECT_EQ(test::count_rows(db,
                             "SELECT COUNT(*) FROM measurements WHERE kernel_median_ms = 0 "
                             "OR kernel_gflops = 0 OR gflops = 0"),
            0);
  const auto naive = test::run_mmtune(
      {"best", "--n", "32", "--batch", "50", "--kernel", "naive", "--db", db, "--json"});
  ASSERT_EQ(naive.exit_code, 0) << naive.err;
  // Without --device an array, even of one device (its shape followed the database's contents).
  const auto bests = nlohmann::json::parse(naive.out);
  ASSERT_TRUE(bests.is_array() && bests.size() == 1) << naive.out;
  EXPECT_TRUE(bests[0].at("kernel_gflops").is_null()) << naive.out;
  // An unknown --platform is refused, not taken as "the only stored device".
  EXPECT_EQ(
      test::run_mmtune({"best", "--n", "32", "--batch", "50", "--platform", "nowhere", "--db", db})
          .exit_code,
      3);
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM best WHERE batch = 50"),
            test::count_rows(db, "SELECT COUNT(*) FROM best"));
  const auto best = test::run_mmtune({"best", "--n", "32", "--batch", "50", "--db", db});
  ASSERT_EQ(best.exit_code, 0) << best.err;
  const auto none = test::run_mmtune({"best", "--n", "32", "--db", db});
  EXPECT_EQ(none.exit_code, 2) << "the single GEMM was never tuned: " << none.out;
  const auto bench = test::run_mmtune({"bench", "--device", "pthread", "--n", "32", "--batch", "50",
                                       "--no-baselines", "--db", db, "--json"});
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  const auto rows = nlohmann::json::parse(bench.out);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0]["subject"], "tuned");
  EXPECT_EQ(rows[0]["status"], "Ok") << rows[0]["note"];
  EXPECT_NE(rows[0]["note"].get<std::string>().find("exact"), std::string::npos) << rows[0]["note"];
  for (const auto& row : rows) {
    EXPECT_EQ(row["batch"], 50) << row;
    EXPECT_NE(row["status"], "WrongResult") << row;
  }
  EXPECT_EQ(
      test::run_mmtune({"bench", "--device", "pthread", "--n", "32", "--batch", "0"}).exit_code, 2);
}

}  // namespace
}  // namespace mmtune
