// The tuning engine's warm start on PoCL: the nearest shape's best first, its in-place, narrower
// and k-sliced forms where the shape calls for them, and the drift reference that keeps the
// seeds comparable with the search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "mmtune/lookup.hpp"
#include "tuner_fixture.hpp"

namespace mmtune {
namespace {

using namespace tuner_test;

// A tuning database with this host's PoCL pthread device in it, and the small space.
class TunerWithADevice : public ::testing::Test {
 protected:
  void SetUp() override { store.upsert_device(dev.info); }
  test::TempDir dir;
  Store store{dir / "tuning.db"};
  const Device& dev = test::pocl_device("pthread");
  const std::vector<KernelConfig> space = small_space();

  // The first `n` configurations a tune of `req` measured after the kernel's default.
  std::vector<std::string> first_searched(const TuneRequest& req, int n) {
    const TuneSummary s = tune(dev, store, req, environment(dir), {}, kNoStop);
    auto q = store.db().prepare(
        "SELECT config FROM measurements WHERE session_id = ? AND config != ? ORDER BY id LIMIT ?");
    q.bind(1, s.session_id).bind(2, to_string(default_config(KernelKind::kTiled))).bind(3, n);
    std::vector<std::string> out;
    while (q.step()) out.push_back(q.text(0));
    return out;
  }
};

// An Ok row that holds no time (an import of a verification alone) is no best time: taken as
// 0 ms, it showed "best inf GFLOPS" for the whole tune and turned its early stop off.
TEST_F(TunerWithADevice, AnOkRowWithoutATimeIsNoBestTime) {
  MeasurementRecord untimed;
  untimed.device_key = dev.info.key;
  untimed.kernel = "tiled";
  untimed.config = to_string(space[0]);
  untimed.problem = small_problem();
  store.add_measurement(untimed);
  TuneRequest req = small_request("random");
  req.budget = 4;
  const TuneSummary s = tune(dev, store, req, environment(dir), {}, kNoStop);
  ASSERT_FALSE(s.best_gflops_by_evaluation.empty());
  for (const double g : s.best_gflops_by_evaluation) EXPECT_TRUE(std::isfinite(g)) << g;
  ASSERT_TRUE(s.best);
  EXPECT_GT(s.best->result.median_ms, 0.0);
}

// A tune of the direct kernel neither measures nor confirms the tiled rows stored at its problem:
// the fastest of them became its drift reference and a finalist, and tiled's best was set again.
TEST_F(TunerWithADevice, ATuneOfOneKernelLeavesAnothersRowsAndBestAlone) {
  MeasurementRecord fast = store_measurement(store, dev.info.key, space[0], small_problem(), 500);
  fast.id = store.measurements(dev.info.key, small_problem(), "tiled").back().id;
  store.set_best(fast);
  store_measurement(store, dev.info.key, space[1], small_problem(), 400);
  TuneRequest req = small_request("random");
  req.kernels = {KernelKind::kDirect};
  req.candidates.reset();
  req.budget = 3;
  req.finalists = 3;
  req.drift = true;
  const TuneSummary s = tune(dev, store, req, environment(dir), {}, kNoStop);
  auto q = store.db().prepare(
      "SELECT COUNT(*) FROM measurements WHERE session_id = ? AND kernel = 'tiled'");
  q.bind(1, s.session_id);
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.integer(0), 0);
  const auto best = store.best(dev.info.key, small_problem(), "tiled");
  ASSERT_TRUE(best);
  EXPECT_EQ(best->measurement_id, fast.id);
  ASSERT_TRUE(s.best);
  EXPECT_EQ(s.best->kernel, "direct");
}

// The search re-times a reference during the search (drift.hpp); the warm start's seeds (here
// a configuration that ran fast at another shape) face the finalists side by side, whatever the
// search saw of them.
TEST_F(TunerWithADevice, TheSearchFollowsDriftAndKnownGoodSeedsReachTheConfirmation) {
  GemmProblem other = small_problem();  // an earlier measurement of another shape
  other.m = 96;
  const MeasurementRecord elsewhere =
      store_measurement(store, dev.info.key, space.back(), other, other.flops() / 1e4);
  TuneRequest req = small_request("exhaustive");
  req.drift = true;
  req.finalists = 2;
  req.confirm_rounds = 2;
  const TuneSummary s = tune(dev, store, req, environment(dir), {}, kNoStop);
  EXPECT_GE(s.drift_evaluations, 1u) << "the origin, timed after the warm start";
  EXPECT_GE(s.slowest, s.fastest);
  EXPECT_GT(s.fastest, 0.0);
  // The seed's measurements in order: the warm start's, then the confirmation's.
  auto q = store.db().prepare(
      "SELECT status FROM measurements WHERE session_id = ? AND kernel = 'tiled' AND config = ? "
      "ORDER BY id");
  q.bind(1, s.session_id).bind(2, elsewhere.config);
  std::vector<std::string> statuses;
  while (q.step()) statuses.push_back(q.text(0));
  ASSERT_FALSE(statuses.empty()) << "the warm start measures the seed";
  if (statuses[0] == "Ok") {
    EXPECT_GE(statuses.size(), 3u) << "searched once, then in both confirmation rounds";
  } else {
    // A load spike during its run (seen on a busy 2-core machine) stopped it early as slower:
    // only seeds that ran Ok stay in play, and the search does not propose a seed again.
    EXPECT_EQ(statuses[0], "SlowerEarlyStop");
    EXPECT_EQ(statuses.size(), 1u);
  }
  auto all = store.db().prepare("SELECT COUNT(*) FROM measurements WHERE session_id = ?");
  all.bind(1, s.session_id);
  ASSERT_TRUE(all.step());
  EXPECT_EQ(std::size_t(all.integer(0)), s.evaluations) << "every re-timing is stored";
}

// A time limit reached during the warm start (at 4096^3 on a CPU each seed takes seconds; a
// 3-minute tune spent all of it there) ends it after its first batch, and what it measured still
// faces the defaults side by side: the stored best is never one lucky measurement.
TEST_F(TunerWithADevice, ATimeLimitReachedInTheWarmStartEndsItAndTheConfirmationStillRuns) {
  ASSERT_GE(space.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {  // eight known-good seeds: two batches of four
    GemmProblem p = small_problem();
    p.m = 32 * (i + 5);
    store_measurement(store, dev.info.key, space[i], p, 10.0 + double(i));
  }
  TuneRequest req = small_request("random");
  req.budget = 0;
  req.time_limit_s = 0.01;  // reached before the warm start begins
  req.finalists = 2;
  req.confirm_rounds = 2;
  const TuneSummary s = tune(dev, store, req, environment(dir), {}, kNoStop);
  EXPECT_EQ(s.outcome, TuneOutcome::kTimeLimit);
  EXPECT_EQ(s.confirm_rounds, 1u) << "one round even past the limit, no more";
  ASSERT_TRUE(s.best);
  // Besides the kernel's default and the confirmation: the warm start's first batch (two builds
  // in parallel, two variants each).
  const std::size_t warm = s.evaluations - s.confirm_evaluations - 1;
  EXPECT_GE(warm, 1u);
  EXPECT_LE(warm, 4u);
}

// A new shape on a device with other shapes tuned starts from the nearest tuned shape's best (what
// the consumer lookup would hand a program), not only from the fastest configurations stored,
// which come from other, larger shapes.
TEST_F(TunerWithADevice, TheWarmStartMeasuresTheNearestShapesBestFirst) {
  ASSERT_GE(space.size(), 7u);
  const auto stored = [&](const KernelConfig& c, std::size_t n, double gflops) {
    GemmProblem p = small_problem();
    p.m = p.n = p.k = n;
    store_measurement(store, dev.info.key, c, p, gflops);
  };
  // Six configurations ran fast at a large shape (the warm start's six fastest elsewhere); the
  // nearest shape's best ran slower there.
  for (std::size_t i = 1; i < 7; ++i) stored(space[i], 1024, 100.0 + double(i));
  stored(space[0], 112, 5.0);
  TuneRequest req = small_request("random");
  req.budget = 3;
  EXPECT_EQ(first_searched(req, 1), std::vector<std::string>{to_string(space[0])});
}

// The budget is a maximum for the warm start too: of many known-good seeds only as many as the
// budget allows are measured (the best bets first, as above).
TEST_F(TunerWithADevice, TheWarmStartKeepsToTheBudget) {
  ASSERT_GE(space.size(), 7u);
  GemmProblem large = small_problem();
  large.m = large.n = large.k = 1024;
  for (std::size_t i = 0; i < 7; ++i)
    store_measurement(store, dev.info.key, space[i], large, 100.0);
  TuneRequest req = small_request("random");
  req.budget = 2;
  EXPECT_EQ(first_searched(req, 10).size(), 2u);
}

// Where packing would cost about as much as the product (one dimension of C under about 64), the
// nearest shape's best is tried in place (PACK=0) first, and before that with its tile shrunk
// along C's short side, which is mostly padding: it was tuned where packing paid, on a square
// shape.
TEST_F(TunerWithADevice, ASkinnyShapeTriesTheNearestBestInPlaceFirst) {
  GemmProblem square = small_problem();
  square.m = square.n = square.k = 128;
  store_measurement(store, dev.info.key, space[0], square, 50.0);
  const auto in_place = in_place_variant(space[0]);
  ASSERT_TRUE(in_place);
  EXPECT_FALSE(in_place_variant(*in_place)) << "already in place";
  TuneRequest req = small_request("random");
  req.problem.m = 4;  // 2mn / (m + n) = 8: copy-bound
  ASSERT_TRUE(copies_dominate(req.problem));
  ASSERT_FALSE(copies_dominate(square));
  const auto narrower = narrower_variant(*in_place, req.problem);
  ASSERT_TRUE(narrower);
  const TiledConfig n = *narrower->as<TiledConfig>(), t = *in_place->as<TiledConfig>();
  // Row-major: the kernel computes the transpose, whose n is m = 4; 16, the space's smallest
  // NWG, is as narrow as it gets.
  EXPECT_EQ(n.NWG * 2, t.NWG) << "m = 4 is C's short side";
  EXPECT_EQ(n.NDIMC * 2, t.NDIMC) << "each work-item keeps its share";
  EXPECT_EQ(n.MWG, t.MWG);
  GemmProblem col = req.problem;
  col.layout = Layout::kColMajor;
  const auto narrower_col = narrower_variant(*in_place, col);
  ASSERT_TRUE(narrower_col);
  EXPECT_EQ(narrower_col->as<TiledConfig>()->MWG * 4, t.MWG) << "column-major: the kernel's m";
  EXPECT_EQ(narrower_col->as<TiledConfig>()->MDIMC, 1);
  EXPECT_EQ(narrower_col->as<TiledConfig>()->NWG, t.NWG);
  req.candidates->push_back(*in_place);
  req.candidates->push_back(*narrower);
  req.budget = 4;
  // Narrower in place, then in place as it was, then as it was stored.
  EXPECT_EQ(
      first_searched(req, 3),
      (std::vector<std::string>{to_string(*narrower), to_string(*in_place), to_string(space[0])}));
}

// A nearest best that already reads in place (tuned at another skinny shape) is narrowed too.
TEST_F(TunerWithADevice, ASkinnyShapeNarrowsANearestBestThatIsAlreadyInPlace) {
  const auto in_place = in_place_variant(space[0]);
  ASSERT_TRUE(in_place);
  GemmProblem other = small_problem();
  other.m = 8;
  store_measurement(store, dev.info.key, *in_place, other, 50.0);
  TuneRequest req = small_request("random");
  req.problem.m = 4;
  const auto narrower = narrower_variant(*in_place, req.problem);
  ASSERT_TRUE(narrower);
  req.candidates->push_back(*in_place);
  req.candidates->push_back(*narrower);
  req.budget = 3;
  EXPECT_EQ(first_searched(req, 2),
            (std::vector<std::string>{to_string(*narrower), to_string(*in_place)}));
}

// At a large k the nearest best, tuned running k whole, is also tried in slices of k (KC) right
// after the stored forms: its panels may outgrow a core's cache there.
TEST_F(TunerWithADevice, ALargeKTriesTheNearestBestInKSlicesToo) {
  store_measurement(store, dev.info.key, space[0], small_problem(), 50.0);
  TuneRequest req = small_request("random");
  req.problem.k = 2 * kSliceK;
  EXPECT_FALSE(k_sliced_variant(space[0], small_problem())) << "k = 128 is one slice";
  const auto sliced = k_sliced_variant(space[0], req.problem);
  ASSERT_TRUE(sliced);
  EXPECT_EQ(sliced->as<TiledConfig>()->KC, kSliceK);
  EXPECT_FALSE(k_sliced_variant(*sliced, req.problem)) << "already in slices";
  req.candidates->push_back(*sliced);
  req.budget = 3;
  // As it was stored, then in slices of k.
  EXPECT_EQ(first_searched(req, 2),
            (std::vector<std::string>{to_string(space[0]), to_string(*sliced)}));
}

// The best of a shape with more work a call is also tried in place, right after its stored (and
// k-sliced) forms, where packing pays on the whole: its launches weigh more in a shorter call
// (at 1000x700x333 the 1024^3 best ran 234 GFLOPS packed, 364 in place, and the search had found
// that form only after the first ten evaluations). From a smaller shape it is not.
TEST_F(TunerWithADevice, TheBestOfALargerShapeIsTriedInPlaceAfterItsStoredForms) {
  GemmProblem larger = small_problem();
  larger.m = larger.n = 512;
  store_measurement(store, dev.info.key, space[0], larger, 50.0);
  const auto in_place = in_place_variant(space[0]);
  ASSERT_TRUE(in_place);
  TuneRequest req = small_request("exhaustive");
  req.problem.m = req.problem.n = 256;  // less work, and packing pays
  ASSERT_FALSE(copies_dominate(req.problem));
  req.candidates->push_back(*in_place);  // last in the exhaustive order
  req.budget = 3;
  EXPECT_EQ(first_searched(req, 2),
            (std::vector<std::string>{to_string(space[0]), to_string(*in_place)}));
}

TEST_F(TunerWithADevice, TheBestOfASmallerShapeIsNotTriedInPlace) {
  store_measurement(store, dev.info.key, space[0], small_problem(), 50.0);
  const auto in_place = in_place_variant(space[0]);
  ASSERT_TRUE(in_place);
  TuneRequest req = small_request("exhaustive");
  req.problem.m = req.problem.n = 256;  // more work than where it was the best
  req.candidates->push_back(*in_place);
  req.budget = 3;
  const auto firsts = first_searched(req, 2);
  ASSERT_EQ(firsts.size(), 2u);
  EXPECT_EQ(firsts[0], to_string(space[0]));
  EXPECT_NE(firsts[1], to_string(*in_place));
}

// The reverse: the best of a shape with less work a call, read in place there, is also tried
// packed (at 1024^3 the 512^3 best ran 210 GFLOPS in place and 352 with PACK=2, the tune's best
// 347, side by side).
TEST_F(TunerWithADevice, TheInPlaceBestOfASmallerShapeIsTriedPacked) {
  const auto in_place = in_place_variant(space[0]);
  ASSERT_TRUE(in_place);
  const auto packed = packed_variant(*in_place);
  ASSERT_TRUE(packed);
  EXPECT_EQ(packed->as<TiledConfig>()->PACK, 2) << "A packed, B in place";
  EXPECT_FALSE(packed_variant(*packed)) << "already packed";
  EXPECT_FALSE(packed_variant(default_config(KernelKind::kDirect))) << "not the tiled kernel";
  TiledConfig staged = *in_place->as<TiledConfig>();
  staged.SB = 1;  // B staged in local memory cannot also be read in place
  EXPECT_FALSE(packed_variant(KernelConfig(staged)));
  store_measurement(store, dev.info.key, *in_place, small_problem(), 50.0);
  TuneRequest req = small_request("exhaustive");
  req.problem.m = req.problem.n = 256;  // more work a call
  req.candidates->push_back(*in_place);
  req.candidates->push_back(*packed);  // last in the exhaustive order
  req.budget = 3;
  EXPECT_EQ(first_searched(req, 2),
            (std::vector<std::string>{to_string(*in_place), to_string(*packed)}));
}

// A k slice as long as k is the launch of k whole: the full space's KC=1024 half is searched only
// where k needs more than one slice. (Exhaustive order reaches a KC=1024 twin within its first
// three configurations.)
TEST_F(TunerWithADevice, KSlicesAsLongAsKAreNotSearchedAgain) {
  TuneRequest req = small_request("exhaustive");
  req.candidates.reset();
  req.space = SpaceSize::kFull;
  req.problem.k = kSliceK;
  req.budget = 10;
  const TuneSummary s = tune(dev, store, req, environment(dir), {}, kNoStop);
  ASSERT_GE(s.evaluations, 8u);
  EXPECT_EQ(test::count_rows(dir / "tuning.db",
                             "SELECT COUNT(*) FROM measurements WHERE config LIKE '%KC=1024%'"),
            0);
}

// A best stored in slices of k, at a shape where k needed them, is tried k whole where one slice
// covers k: that form is the one the space holds.
TEST_F(TunerWithADevice, ABestStoredInKSlicesIsTriedKWholeWhereOneSliceCoversK) {
  TiledConfig sliced = *space[0].as<TiledConfig>();
  sliced.KC = kSliceK;
  ASSERT_TRUE(constraint_violations(sliced).empty());
  TuneRequest req = small_request("exhaustive");
  req.candidates.reset();
  req.space = SpaceSize::kFull;
  req.problem.m = req.problem.n = 256;  // packing pays: the stored best comes first as it is
  ASSERT_FALSE(copies_dominate(req.problem));
  GemmProblem deep = req.problem;
  deep.k = 2 * kSliceK;
  store_measurement(store, dev.info.key, sliced, deep, 50.0);
  EXPECT_EQ(whole_k_variant(sliced, req.problem), space[0]);
  EXPECT_FALSE(whole_k_variant(sliced, deep)) << "two slices";
  const auto in_place = in_place_variant(sliced);
  ASSERT_TRUE(in_place);
  EXPECT_TRUE(constraint_violations(*in_place).empty()) << "in place runs k whole";
  req.budget = 2;
  EXPECT_EQ(first_searched(req, 1), std::vector<std::string>{to_string(space[0])});
}

// A best carries over to another precision with its vectors and tile along m kept in bytes.
TEST_F(TunerWithADevice, APrecisionVariantKeepsTheBytesOfItsVectorsAndTile) {
  const TiledConfig fp32 = *space[0].as<TiledConfig>();
  const auto fp64 = precision_variant(space[0], Precision::kSingle, Precision::kDouble, dev.info);
  ASSERT_TRUE(fp64);
  const TiledConfig t = *fp64->as<TiledConfig>();
  EXPECT_EQ(t.VWM, fp32.VWM / 2);
  EXPECT_EQ(t.MWG, fp32.MWG / 2);
  EXPECT_EQ(t.NWG, fp32.NWG) << "n is not where its vectors run";
  EXPECT_EQ(precision_variant(*fp64, Precision::kDouble, Precision::kSingle, dev.info), space[0]);
  TiledConfig scalar = fp32;  // vectors of one element: only the tile narrows
  scalar.VWM = 1;
  const auto narrow = precision_variant(scalar, Precision::kSingle, Precision::kDouble, dev.info);
  ASSERT_TRUE(narrow);
  EXPECT_EQ(narrow->as<TiledConfig>()->VWM, 1);
  EXPECT_EQ(narrow->as<TiledConfig>()->MWG, fp32.MWG / 2);
  TiledConfig thin = fp32;  // half the tile would hold fewer than its work-items' vectors
  thin.MWG = 16, thin.VWM = 1, thin.MDIMC = thin.MDIMA = 16;
  // Values in their sets too: an MDIMC of 64 passed as valid while the rules alone were checked.
  ASSERT_EQ(constraint_violations(KernelConfig(thin)), std::vector<std::string>{});
  EXPECT_FALSE(precision_variant(thin, Precision::kSingle, Precision::kDouble, dev.info));
  EXPECT_FALSE(precision_variant(default_config(KernelKind::kDirect), Precision::kSingle,
                                 Precision::kDouble, dev.info));
  EXPECT_FALSE(precision_variant(space[0], Precision::kSingle, Precision::kSingle, dev.info));
}

// The first tune of a precision starts from another precision's best (at the same shape here),
// carried over; a best of its own precision would come first and keep the other's out.
TEST_F(TunerWithADevice, TheFirstTuneOfAPrecisionStartsFromAnotherPrecisionsBest) {
  store_measurement(store, dev.info.key, space[0], small_problem(), 50.0);
  const auto fp64 = precision_variant(space[0], Precision::kSingle, Precision::kDouble, dev.info);
  ASSERT_TRUE(fp64);
  TuneRequest req = small_request("exhaustive");
  req.problem.precision = Precision::kDouble;
  req.candidates->push_back(*fp64);  // last in the exhaustive order
  req.budget = 2;
  EXPECT_EQ(first_searched(req, 1), std::vector<std::string>{to_string(*fp64)});
  GemmProblem other = req.problem;  // now an fp64 best of another shape
  other.m = 96;
  store_measurement(store, dev.info.key, space.back(), other, 50.0);
  req.problem.m = 64;  // a new shape
  const auto firsts = first_searched(req, 1);
  EXPECT_EQ(firsts, std::vector<std::string>{to_string(space.back())});
}

// Once a precision has a best of its own, another precision's is not carried over.
TEST_F(TunerWithADevice, AnotherPrecisionsBestIsLeftOutOnceThisPrecisionHasOne) {
  store_measurement(store, dev.info.key, space[0], small_problem(), 50.0);
  const auto fp64 = precision_variant(space[0], Precision::kSingle, Precision::kDouble, dev.info);
  ASSERT_TRUE(fp64);
  ASSERT_NE(*fp64, space.back());
  TuneRequest req = small_request("exhaustive");
  req.problem.precision = Precision::kDouble;
  GemmProblem other = req.problem;
  other.m = 96;
  store_measurement(store, dev.info.key, space.back(), other, 50.0);
  req.candidates->push_back(*fp64);  // last in the exhaustive order: never reached
  req.budget = 2;
  const auto measured = first_searched(req, 100);
  ASSERT_FALSE(measured.empty());
  EXPECT_EQ(measured[0], to_string(space.back()));
  EXPECT_EQ(std::count(measured.begin(), measured.end(), to_string(*fp64)), 0)
      << "fp32's best is carried over only while fp64 has none";
}

}  // namespace
}  // namespace mmtune
