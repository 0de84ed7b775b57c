// The second OpenCL implementation: Mesa rusticl's llvmpipe beside PoCL. Timing that checks
// itself (event clocks judged against the wall clock, figures bounded by the measured peak), the
// stable device order, and the CLI's main paths on llvmpipe. Suites named Llvmpipe* need the
// device (the sanitizer stage leaves them out: Mesa is not built for it).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/bench.hpp"
#include "mmtune/lookup.hpp"
#include "opencl/calibration.hpp"
#include "opencl/gemm_routine.hpp"
#include "opencl/host_data.hpp"
#include "opencl/program_cache.hpp"
#include "opencl/reference.hpp"
#include "opencl/runner.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

// Three 20 ms commands run one after another, as calibrate() times them.
std::vector<EventSample> good_samples() {
  std::vector<EventSample> s;
  std::uint64_t t = 1'000'000'000;
  for (int i = 0; i < 3; ++i) {
    s.push_back({t, t + 1000, t + 50'000, t + 20'050'000, 20.2});
    t += 21'000'000;
  }
  return s;
}

TEST(EventClock, PlausibleTimestampsAreUsable) {
  const EventClockVerdict v = judge_event_clock(good_samples());
  EXPECT_TRUE(v.usable) << v.reason;
}

// A fake device whose timestamps are zero, equal, decreasing, count commands (rusticl: 0, 1, 2,
// 3) or run faster than the wall clock allows.
TEST(EventClock, BrokenTimestampsAreUnusable) {
  auto zero = good_samples();
  zero[1] = {0, 0, 0, 0, 20.0};
  auto equal = good_samples();
  equal[2].end = equal[2].start;
  auto decreasing = good_samples();
  decreasing[1].end = decreasing[1].start - 5;
  auto counting = good_samples();
  for (auto& s : counting) s.queued = 0, s.submit = 1, s.start = 2, s.end = 3;
  auto behind = good_samples();  // the second command starts before the first ended
  behind[1].start = behind[0].end - 10, behind[1].queued = behind[1].submit = behind[1].start;
  auto too_long = good_samples();  // 20 ms of events inside 2 ms of wall clock
  too_long[0].wall_ms = 2.0;
  auto out_of_order = good_samples();
  out_of_order[0].submit = out_of_order[0].start + 1;
  for (const auto& [name, samples] :
       std::vector<std::pair<std::string, std::vector<EventSample>>>{{"zero", zero},
                                                                     {"equal", equal},
                                                                     {"decreasing", decreasing},
                                                                     {"counting", counting},
                                                                     {"behind", behind},
                                                                     {"too long", too_long},
                                                                     {"out of order", out_of_order},
                                                                     {"none", {}}}) {
    const EventClockVerdict v = judge_event_clock(samples);
    EXPECT_FALSE(v.usable) << name;
    EXPECT_FALSE(v.reason.empty()) << name;
  }
}

TEST(EventClock, FiguresAboveThePeakAreMeasurementErrors) {
  Calibration c;
  c.peak_gflops = 100.0;
  EXPECT_EQ(implausible_gflops(109.9, c), "");
  EXPECT_NE(implausible_gflops(110.1, c).find("measurement error: 110.1 GFLOPS"),
            std::string::npos);
  EXPECT_NE(implausible_gflops(268435456.0, c), "");
  EXPECT_NE(implausible_gflops(std::numeric_limits<double>::infinity(), c), "");
  EXPECT_NE(implausible_gflops(std::nan(""), c), "");
  EXPECT_EQ(implausible_gflops(1e12, Calibration{}), "");  // no peak known: no bound
  EXPECT_EQ(parse_status("MeasurementError"), Status::kMeasurementError);
}

// A peak measured while another process was busy is too low; the peak measured again, as often
// as it takes within the limit, keeps the highest figure, and only a figure above every one of
// them is an error (the CI failure this guards: a 162 GFLOPS GEMM against a 122 GFLOPS peak
// measured while a parallel test held one of two cores).
TEST(EventClock, AFigureAboveThePeakMeasuresThePeakAgainAndKeepsTheHighest) {
  Calibration c;
  c.peak_gflops = 100.0;
  c.events = {true, ""};
  std::vector<double> peaks = {80.0, 150.0, 120.0};
  int calls = 0;
  const auto busy_then_quiet = [&] {
    Calibration again;
    again.peak_gflops = peaks.at(std::size_t(calls++));
    again.events = {false, "judged on a busy machine"};
    return again;
  };
  EXPECT_EQ(judge_gflops(160.0, c, busy_then_quiet, std::chrono::milliseconds(0)), "");
  EXPECT_EQ(calls, 2);  // stops once the figure is plausible
  EXPECT_EQ(c.peak_gflops, 150.0);
  EXPECT_TRUE(c.events.usable);  // the tune keeps timing as it began

  calls = 0;
  const auto always_busy = [&] {
    ++calls;
    Calibration again;
    again.peak_gflops = 90.0;
    return again;
  };
  EXPECT_NE(judge_gflops(1000.0, c, always_busy, std::chrono::milliseconds(0)), "");
  EXPECT_EQ(calls, Calibration::kRemeasures);
  EXPECT_EQ(c.peak_gflops, 150.0);  // never lowered
  EXPECT_EQ(judge_gflops(140.0, c, always_busy, std::chrono::milliseconds(0)), "");
  EXPECT_EQ(calls, Calibration::kRemeasures);  // a plausible figure measures nothing
  EXPECT_NE(judge_gflops(1000.0, c, {}), "");  // assumed calibration: judged as given

  // Before each try after the first it waits, twice as long each time (a busy spell passes).
  std::vector<std::chrono::steady_clock::time_point> at;
  const auto timed = [&] {
    at.push_back(std::chrono::steady_clock::now());
    return Calibration{};
  };
  EXPECT_NE(judge_gflops(1000.0, c, timed, std::chrono::milliseconds(5)), "");
  ASSERT_EQ(at.size(), std::size_t(Calibration::kRemeasures));
  for (std::size_t i = 1; i < at.size(); ++i) {
    EXPECT_GE(at[i] - at[i - 1], std::chrono::milliseconds(5) * (1 << (i - 1))) << "pause " << i;
  }
}

// The peak kernel's work-groups: 64 items, or the largest power of two the device allows, so that
// every launch (a power-of-two multiple of 1024) divides into them.
TEST(EventClock, PeakWorkGroupsAreSmallPowersOfTwoWithinTheDeviceLimit) {
  DeviceInfo d;
  for (const auto& [limit, local] : std::vector<std::pair<std::size_t, std::size_t>>{
           {4096, 64}, {1024, 64}, {64, 64}, {48, 32}, {3, 2}, {1, 1}}) {
    d.max_work_group_size = limit;
    EXPECT_EQ(peak_local_size(d), local) << limit;
  }
}

// Each implementation's clock is judged on the device: PoCL's events are usable, rusticl's are
// not; either way a measurement is timed, below the measured peak, and says how.
class DeviceTiming : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceTiming, KernelTimesArePlausible) {
  const Device& dev = test::device_named(GetParam());
  const KernelSources sources;
  test::TempDir dir;
  Runner runner(dev, sources, dir / "programs");
  GemmProblem p;
  p.m = p.n = p.k = 128;
  runner.set_problem(p);
  const bool llvmpipe = GetParam() == "llvmpipe";
  EXPECT_EQ(runner.calibration().events.usable, !llvmpipe) << runner.calibration().events.reason;
  EXPECT_GT(runner.calibration().peak_gflops, 1.0);
  const Measurement m = runner.evaluate(TiledConfig{});
  ASSERT_EQ(m.status, Status::kOk) << m.message;
  EXPECT_EQ(m.kernel_wall_clock, llvmpipe);
  EXPECT_GT(m.kernel_median_ms, 0.0);
  EXPECT_LE(m.gflops, runner.calibration().plausible_gflops());
  EXPECT_LE(m.kernel_gflops, runner.calibration().plausible_gflops());
  // The calibration is cached with the device key; the peak never goes down.
  Calibration cached;
  ASSERT_TRUE(cached_calibration(dir / "programs", dev.info, Precision::kSingle, cached));
  EXPECT_EQ(cached.events.usable, !llvmpipe);
  EXPECT_GE(cached.peak_gflops, runner.calibration().peak_gflops);
}

// Evaluates the default tiled configuration at n = 64 after telling the runner that the device's
// peak is 1 MFLOPS, so that every real GEMM is "too fast"; `remeasure`: as a busy machine's
// calibration would be (measured again), or as given (assumed).
Measurement evaluate_under_a_tiny_peak(Runner& runner, bool remeasure) {
  GemmProblem p;
  p.m = p.n = p.k = 64;
  runner.set_problem(p);
  Calibration tiny = runner.calibration();
  tiny.peak_gflops = 0.001;
  runner.assume_calibration(tiny, remeasure);
  return runner.evaluate(TiledConfig{});
}

// A figure above the device's peak is recorded as a measurement error, never as a result. On
// llvmpipe the kernel is timed by the wall clock (events unusable) and is judged the same way.
TEST_P(DeviceTiming, FiguresAboveTheMeasuredPeakAreMeasurementErrors) {
  const KernelSources sources;
  Runner runner(test::device_named(GetParam()), sources);
  const Measurement m = evaluate_under_a_tiny_peak(runner, /*remeasure=*/false);
  EXPECT_EQ(m.status, Status::kMeasurementError) << m.message;
  EXPECT_NE(m.message.find("measurement error"), std::string::npos) << m.message;
  runner.assume_calibration(Calibration{});  // no peak known: no bound
  EXPECT_EQ(runner.evaluate(TiledConfig{}).status, Status::kOk);
}

// A peak measured while the machine was busy is too low: a faster GEMM makes the runner measure
// the peak again, and the GEMM is a result after all.
TEST_P(DeviceTiming, AFigureAboveAPeakMeasuredTooLowMakesTheRunnerMeasureItAgain) {
  const KernelSources sources;
  Runner runner(test::device_named(GetParam()), sources);
  const Measurement m = evaluate_under_a_tiny_peak(runner, /*remeasure=*/true);
  EXPECT_EQ(m.status, Status::kOk) << m.message;
  EXPECT_GT(runner.calibration().peak_gflops, 1.0);
  EXPECT_LE(m.gflops, runner.calibration().plausible_gflops());
}

// An image larger than the device allows fails at enqueue (CL_INVALID_IMAGE_SIZE from the
// routine's own check): a failing variant, recorded as LaunchFailed, not an abort of the tune.
TEST_P(DeviceTiming, AnImageAboveTheDeviceLimitIsALaunchFailure) {
  Device small = test::device_named(GetParam());
  ASSERT_TRUE(small.info.image_support);
  small.info.image_max_buffer_texels = 8;  // 128 columns are 32 texels a row
  const KernelSources sources;
  GemmProblem p;
  p.m = p.n = p.k = 128;
  TiledConfig image;
  image.MWG = image.NWG = 32, image.KWG = 16, image.MDIMC = image.NDIMC = 4, image.VWM = 4,
  image.VWN = 4, image.SA = image.SB = 0, image.MDIMA = image.NDIMB = 4, image.IMG = 1;
  Runner runner(small, sources);
  runner.set_problem(p);
  const Measurement m = runner.evaluate(image);
  EXPECT_EQ(m.status, Status::kLaunchFailed) << m.message;
  EXPECT_NE(m.message.find("texels, more than the device's 8"), std::string::npos) << m.message;
  // The same configuration within the real limits runs.
  Runner real(test::device_named(GetParam()), sources);
  real.set_problem(p);
  EXPECT_EQ(real.evaluate(image).status, Status::kOk);
}

// An image kernel only stores C (-DCBETA=0, without the beta code that cost llvmpipe its
// registers); with beta != 0 on whole tiles the routine adds beta C in its unpad copy instead.
// Other kernels build the beta code unless beta is 0 and no later k slice adds to C.
TEST_P(DeviceTiming, AnImageKernelOnlyStoresCAndBetaCIsAddedAfterIt) {
  TiledConfig image;
  image.MWG = image.NWG = 32, image.KWG = 16, image.MDIMC = image.NDIMC = 4, image.VWM = 4,
  image.VWN = 4, image.SA = image.SB = 0, image.MDIMA = image.NDIMB = 4, image.IMG = 1;
  TiledConfig sliced;
  sliced.PACK = 1, sliced.KC = 1024;
  ASSERT_TRUE(constraint_violations(image).empty() && constraint_violations(sliced).empty());
  GemmProblem p;
  p.m = p.n = p.k = 64;  // whole tiles: C is the caller's buffer where beta is 0
  const auto only_stores = [&](const TiledConfig& t, double beta) {
    p.beta = beta;
    const KernelConfig c(t);
    return c.kind()->extra_build_options(c, to_col_major(p)).find("-DCBETA=0") != std::string::npos;
  };
  EXPECT_TRUE(only_stores(image, 0.25));
  EXPECT_TRUE(only_stores(TiledConfig{}, 0.0));
  EXPECT_FALSE(only_stores(TiledConfig{}, 0.25));
  EXPECT_FALSE(only_stores(sliced, 0.0)) << "a later slice adds to C";

  const KernelSources sources;
  Runner runner(test::device_named(GetParam()), sources);
  for (const auto& [alpha, beta] : {std::pair{1.0, 0.0}, {-1.5, 0.25}}) {
    p.alpha = alpha, p.beta = beta;
    runner.set_problem(p, 7);
    const Measurement m = runner.evaluate(image, TimingOptions::verify_only());
    EXPECT_EQ(m.status, Status::kOk) << "beta " << beta << ": " << m.message;
  }
}

// IMG=1 with PACK=0 reads an operand where the caller keeps it, through a buffer image over the
// caller's buffer, when its rows already are the image's (the column-major form's A with m
// contiguous; its B either way: k-contiguous B builds -DBK=1) and its offset and leading
// dimension are multiples of 4, and its own dimensions are whole tiles; otherwise it packs it. Each
// packed operand is one command before the kernel; every result is checked against the reference.
TEST_P(DeviceTiming, ImagesReadOperandsWhereTheCallerKeepsThem) {
  const Device& dev = test::device_named(GetParam());
  cl::Context context(dev.device);
  cl::CommandQueue queue(context, dev.device);
  ProgramCache cache(context, dev.device, dev.info.key, "");
  const KernelSources sources;
  GemmRoutine routine(sources, cache, dev.info);
  TiledConfig image;
  image.MWG = image.NWG = 32, image.KWG = 16, image.MDIMC = image.NDIMC = 4, image.VWM = 8,
  image.VWN = 4, image.SA = image.SB = 0, image.MDIMA = image.NDIMB = 4, image.IMG = 1,
  image.PACK = 0;
  ASSERT_TRUE(constraint_violations(image).empty());
  struct Variant {
    std::size_t m, a_offset, extra_ldb;  // m = 60: partial tiles
  };
  int in_place_reads = 0;
  for (const Variant v : {Variant{64, 0, 0}, Variant{64, 2, 0}, Variant{64, 0, 2}, {60, 0, 0}}) {
    for (const Layout layout : {Layout::kRowMajor, Layout::kColMajor}) {
      for (int t = 0; t < 4; ++t) {
        GemmProblem p;
        p.m = v.m, p.n = p.k = 64, p.layout = layout, p.trans_a = t & 1, p.trans_b = t & 2;
        p.ldb = p.min_ld(p.b_rows(), p.b_cols()) + v.extra_ldb;
        const ColMajorProblem cp = to_col_major(p);
        const std::string what = describe(p) + " A offset " + std::to_string(v.a_offset);
        const Operands o = random_operands(p, 11);
        std::vector<double> a = o.a;
        a.insert(a.begin(), v.a_offset, 0.0);
        const cl::Buffer ab = test::upload(context, a, p.precision),
                         bb = test::upload(context, o.b, p.precision),
                         cb = test::upload(context, o.c, p.precision);
        ASSERT_TRUE(routine.prepare(image, p).ok) << what;
        const RoutineEvents ev = routine.enqueue(queue, p, image, {&ab, v.a_offset}, {&bb}, {&cb});
        cl::Event::waitForEvents(ev.events);
        const Verdict verdict = verify(p, reference_gemm(p, o),
                                       test::download(queue, cb, o.c.size(), p.precision), o.c);
        EXPECT_TRUE(verdict.ok) << what << ": " << verdict.message;
        // The column-major form swaps the operands of a row-major problem.
        const bool caller_a_fits = v.a_offset % 4 == 0, caller_b_fits = v.extra_ldb % 4 == 0;
        // Each operand needs only its own dimensions in whole tiles (k = 64 is).
        const bool m_whole = cp.m % 32 == 0, n_whole = cp.n % 32 == 0;
        const bool a_in_place =
            m_whole && !cp.trans_a && (cp.swapped ? caller_b_fits : caller_a_fits);
        const bool b_in_place = n_whole && (cp.swapped ? caller_a_fits : caller_b_fits);
        in_place_reads += a_in_place + b_in_place;
        const std::size_t unpad = m_whole && n_whole ? 0 : 1;
        EXPECT_EQ(ev.events.size(), 1 + !a_in_place + !b_in_place + unpad) << what;
        // The call holds its views of the caller's buffers: its kernel runs again alone.
        EXPECT_EQ(ev.views.size(), std::size_t(a_in_place + b_in_place)) << what;
        EXPECT_GT(rerun_main_ms(queue, ev), 0.0) << what;
      }
    }
  }
  EXPECT_GT(in_place_reads, 16);

  // A kept in C's buffer (after C): writing a buffer while a view of it is read is undefined,
  // so that operand is packed; B is still read in place.
  GemmProblem p;
  p.m = p.n = p.k = 64, p.layout = Layout::kColMajor, p.beta = 0.5;
  const Operands o = random_operands(p, 12);
  std::vector<double> shared = o.c;
  shared.insert(shared.end(), o.a.begin(), o.a.end());
  const cl::Buffer cab = test::upload(context, shared, p.precision),
                   bb = test::upload(context, o.b, p.precision);
  const RoutineEvents ev = routine.enqueue(queue, p, image, {&cab, o.c.size()}, {&bb}, {&cab});
  cl::Event::waitForEvents(ev.events);
  const Verdict verdict =
      verify(p, reference_gemm(p, o), test::download(queue, cab, o.c.size(), p.precision), o.c);
  EXPECT_TRUE(verdict.ok) << verdict.message;
  EXPECT_EQ(ev.views.size(), 1u) << "B only";
  EXPECT_EQ(ev.events.size(), 3u) << "pack A, the kernel (into scratch: beta), unpad";
}

INSTANTIATE_TEST_SUITE_P(Pocl, DeviceTiming, ::testing::Values("pthread"));
INSTANTIATE_TEST_SUITE_P(Llvmpipe, DeviceTiming, ::testing::Values("llvmpipe"));

// Platforms without devices (Mesa's Clover; rusticl without RUSTICL_ENABLE) do not move PoCL's
// devices, and each device names its implementation.
TEST(LlvmpipeCli, DeviceOrderIsStableAndNamesTheImplementation) {
  const auto with = test::run_mmtune({"devices", "--json"});
  const auto without = test::run_mmtune({"devices", "--json"}, {{"RUSTICL_ENABLE", ""}});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  ASSERT_EQ(without.exit_code, 0) << without.err;
  const auto a = nlohmann::json::parse(with.out), b = nlohmann::json::parse(without.out);
  ASSERT_EQ(a.size(), b.size() + 1);
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(a[i]["key"], b[i]["key"]) << i;
  EXPECT_NE(a.back()["name"].get<std::string>().find("llvmpipe"), std::string::npos);
  const auto text = test::run_mmtune({"devices"});
  EXPECT_NE(text.out.find("llvmpipe (LLVM"), std::string::npos);
  EXPECT_NE(text.out.find("implementation  rusticl"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("implementation  Portable Computing Language"), std::string::npos);
}

// The lookup's "similar device" fallback stays within an implementation: PoCL's bests are for
// PoCL's compiler, and another implementation of the same CPU gets its own default instead.
TEST(LlvmpipeLookup, AnotherImplementationOfTheSameHardwareIsNotSimilar) {
  test::TempDir dir;
  const DeviceInfo& pthread = test::pocl_device("pthread").info;
  const DeviceInfo& basic = test::pocl_device("basic").info;
  DeviceInfo twin = test::llvmpipe_device().info;  // as if it reported PoCL's vendor
  twin.vendor = pthread.vendor;
  TiledConfig wide;
  wide.MWG = 32, wide.NWG = 64, wide.KWG = 32, wide.MDIMC = 1, wide.NDIMC = 8, wide.VWM = 8,
  wide.VWN = 8, wide.KWI = 8, wide.SA = 0, wide.SB = 0, wide.MDIMA = 1, wide.NDIMB = 8;
  {
    Store store(dir / "t.db");
    test::store_best(store, pthread, 256, wide, 2.0);
  }
  const ParameterLookup lookup(dir / "t.db");
  GemmProblem p;
  p.m = p.n = p.k = 256;
  const TunedParameters same_implementation = lookup.lookup(basic, p);
  EXPECT_EQ(same_implementation.source, LookupSource::kSimilarDevice);
  EXPECT_EQ(same_implementation.config, KernelConfig(wide));
  const TunedParameters other = lookup.lookup(twin, p);
  EXPECT_EQ(other.source, LookupSource::kDefault);
  EXPECT_EQ(other.config, default_parameters(twin, p).config);
  // The default follows the device's preferred vector width, not its type: llvmpipe is a CPU
  // device that prefers scalars (work-items on SIMD lanes), and its local memory is global, so
  // it reads images.
  EXPECT_EQ(get<TiledConfig>(other.config).IMG, 1);
  EXPECT_EQ(get<TiledConfig>(default_parameters(pthread, p).config).VWM,
            int(pthread.preferred.float_));
}

// The speed-ups a tune prints, e.g. "1.25x faster than the default tiled configuration" (read
// without std::regex: GCC 12's sanitizer build warns inside it).
std::vector<double> speedups(const std::string& out) {
  std::vector<double> v;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const auto x = line.find("x faster than the ");
    if (x == std::string::npos) continue;
    const std::string what = line.substr(x + 18, 7);
    if (what != "default" && what != "library") continue;
    // "over 12.00x": a default stopped at its limit, a lower bound of the speed-up.
    std::string figure = line.substr(0, x);
    if (const auto over = figure.find("over "); over != std::string::npos) {
      figure = figure.substr(over + 5);
    }
    v.push_back(std::stod(figure));
  }
  return v;
}

// A short tune, its resume, a bench with CLBlast, the roofline and the report, on llvmpipe.
TEST(LlvmpipeCli, TuneResumeBenchRooflineReport) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  const std::vector<std::string> tune = {
      "tune", "--device", "llvmpipe", "--n", "96", "--budget", "10", "--db", db, "--no-baselines"};
  const auto first = test::run_mmtune(tune);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("event timestamps are unusable"), std::string::npos) << first.out;
  const auto ups = speedups(first.out);
  ASSERT_GE(ups.size(), 2u) << first.out;
  for (double u : ups) EXPECT_GE(u, 1.0) << first.out;
  EXPECT_EQ(first.out.find("MeasurementError"), std::string::npos) << first.out;

  const auto again = test::run_mmtune(tune);  // resume: what is stored is not measured again
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("reused from the database"), std::string::npos);
  EXPECT_EQ(again.out.find(" 0 reused"), std::string::npos) << again.out;
  // The same defaults are compared: the library's went missing where nothing was measured again.
  EXPECT_NE(again.out.find("faster than the library's default"), std::string::npos) << again.out;

  const auto roof = test::run_mmtune({"roofline", "--device", "llvmpipe", "--db", db, "--json"});
  ASSERT_EQ(roof.exit_code, 0) << roof.err;
  const auto r = nlohmann::json::parse(roof.out);
  EXPECT_GT(r["peak_gflops"].get<double>(), 1.0);
  EXPECT_LT(r["peak_gflops"].get<double>(), 1e5);  // not 2^30: the events are not used
  EXPECT_LT(r["bandwidth_gbs"].get<double>(), 1e4);
  EXPECT_NE(r["timing"].get<std::string>().find("wall clock"), std::string::npos);

  const auto bench =
      test::run_mmtune({"bench", "--device", "llvmpipe", "--n", "96", "--db", db, "--json"});
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  bool clblast = false, peak = false;
  const auto rows = nlohmann::json::parse(bench.out);
  // The GEMMs' bound: the higher of the roofline's peak and the peak timed beside them.
  double peak_gflops = r["peak_gflops"].get<double>();
  for (const auto& row : rows) {
    if (row["subject"] == "fma-peak" && row["status"] == "Ok") {
      peak_gflops = std::max(peak_gflops, row["gflops"].get<double>());
    }
  }
  for (const auto& row : rows) {
    const std::string subject = row["subject"];
    if (subject == "fma-peak") {  // timed beside the GEMMs by the wall clock, as they are
      // Ok: within 10 % of the device's peak, measured again by the bench where it was above.
      EXPECT_EQ(row["status"], "Ok") << row.dump();
      // The roofline above may have run beside another test on these two cores (a half or
      // less of the peak): this compares orders of magnitude, not 2^30 from the events.
      EXPECT_LE(row["gflops"].get<double>(), 2.5 * r["peak_gflops"].get<double>());
      peak = true;
    }
    if (subject == "clblast" && have_clblast()) {
      EXPECT_EQ(row["status"], "Ok") << row.dump();
      clblast = true;
    }
    if (subject == "tuned" || subject == "default") {
      EXPECT_EQ(row["status"], "Ok") << row.dump();
      EXPECT_LE(row["kernel_gflops"].get<double>(), 1.1 * peak_gflops) << row.dump();
      EXPECT_NE(row["note"].get<std::string>().find("wall clock"), std::string::npos);
      // The routine contains its main kernel: its time cannot be a fraction of the kernel's
      // alone (rusticl's clFinish returned before the GEMM was done: a tenth of it).
      EXPECT_GE(row["median_ms"].get<double>(), 0.5 * row["kernel_median_ms"].get<double>())
          << row.dump();
    }
  }
  EXPECT_EQ(clblast, have_clblast());
  EXPECT_TRUE(peak);

  const auto report = test::run_mmtune({"report", "--db", db, "--out", dir / "report"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
}

}  // namespace
}  // namespace mmtune
