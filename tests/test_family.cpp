// A fifth, test-only kernel family (tests/fifth_family/) plugs into the engine through
// KernelFamily and a FamilyRegistry: it is tuned by a worker that knows it, stored, looked up,
// run by the consumer's Gemm and replayed by every strategy, with no engine code naming it.
#include <gtest/gtest.h>

#include <set>

#include "fifth_family/rowwise.hpp"
#include "mmtune/error.hpp"
#include "mmtune/gemm.hpp"
#include "search/simulate.hpp"
#include "store/store.hpp"
#include "test_support.hpp"
#include "tune/replay.hpp"
#include "tune/tuner.hpp"

namespace mmtune {
namespace {

using test::rowwise_kind;

GemmProblem odd_problem() {
  GemmProblem p;
  p.m = 75, p.n = 33, p.k = 40, p.trans_a = true, p.alpha = 1.5, p.beta = -0.5;
  return p;
}

TEST(Family, RegistryKnowsWhatWasAddedAndNothingElse) {
  EXPECT_FALSE(parse_kernel_kind("rowwise"));
  const FamilyRegistry& with = test::families_with_rowwise();
  ASSERT_TRUE(parse_kernel_kind("rowwise", with));
  EXPECT_EQ(*parse_kernel_kind("rowwise", with), rowwise_kind());
  EXPECT_EQ(with.searched_names(), (std::vector<std::string>{"tiled", "direct", "rowwise"}));
  FamilyRegistry twice = with;
  EXPECT_THROW(twice.add(rowwise_kind()), std::logic_error);

  // The generic operations: text, parsing, constraints, build options, enumeration.
  const KernelConfig c = test::RowwiseConfig{4, 16};
  EXPECT_EQ(to_string(c), "WPT=4 WGM=16");
  EXPECT_EQ(parse_config(rowwise_kind(), "WGM=16 WPT=4"), c);
  EXPECT_EQ(get<test::RowwiseConfig>(c).WGM, 16);
  EXPECT_FALSE(c.as<TiledConfig>());
  EXPECT_THROW(parse_config(rowwise_kind(), "WPT=8 WGM=16"), UsageError);  // breaks WPT*WGM
  EXPECT_EQ(build_options(c, Precision::kSingle), "-DPRECISION=32 -DWPT=4 -DWGM=16");
  EXPECT_EQ(enumerate(rowwise_kind(), SpaceSize::kFull, nullptr, Precision::kSingle).size(), 13u);
  EXPECT_THROW(KernelConfig(rowwise_kind(), {4}), std::logic_error);  // one value per parameter
}

class FifthFamily : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    Store store(*dir_ / "tuning.db");
    TuneRequest r;
    r.problem = odd_problem();
    r.kernels = {rowwise_kind()};
    r.families = &test::families_with_rowwise();
    r.strategy = "exhaustive";
    r.baselines = false;
    TuneEnvironment env;
    env.worker_argv = {MMTUNE_FAMILY_WORKER};
    env.program_dir = *dir_ / "programs";
    env.scratch_dir = dir_->path;
    const std::atomic<bool> no_stop{false};
    summary_ = new TuneSummary(tune(dev(), store, r, env, {}, no_stop));
  }
  static void TearDownTestSuite() {
    delete summary_;
    delete dir_;
  }
  static const Device& dev() { return test::pocl_device("pthread"); }
  static std::string db() { return *dir_ / "tuning.db"; }

  static test::TempDir* dir_;
  static TuneSummary* summary_;
};
test::TempDir* FifthFamily::dir_ = nullptr;
TuneSummary* FifthFamily::summary_ = nullptr;

TEST_F(FifthFamily, TunedAndStoredLikeABuiltInFamily) {
  const auto space = enumerate(rowwise_kind(), SpaceSize::kFull, &dev().info, Precision::kSingle);
  Store store(db());
  std::set<std::string> configs;
  for (const auto& r : store.measurements(dev().info.key, odd_problem())) {
    EXPECT_EQ(r.kernel, "rowwise");
    // Verified and timed (a clearly slower one stops timing early).
    EXPECT_TRUE(r.result.status == Status::kOk || r.result.status == Status::kSlowerEarlyStop)
        << r.config << ": " << to_string(r.result.status) << " " << r.result.message;
    configs.insert(r.config);
  }
  EXPECT_EQ(configs.size(), space.size());  // the whole space, every variant verified
  ASSERT_TRUE(summary_->best);
  EXPECT_EQ(summary_->best->kernel, "rowwise");
  store.set_routine_kernels(test::families_with_rowwise().searched_names());
  const auto best = store.best(dev().info.key, odd_problem());
  ASSERT_TRUE(best);
  EXPECT_EQ(best->measurement_id, summary_->best->id);
  store.set_routine_kernels({});  // no searched family: no routine best, and no SQL error
  EXPECT_FALSE(store.best(dev().info.key, odd_problem()));
  EXPECT_TRUE(store.top_configs_elsewhere(dev().info.key, odd_problem(), 6).empty());
}

TEST_F(FifthFamily, LookedUpAndRunByTheConsumerGemm) {
  // A lookup that does not know the family skips its rows; one that does hands them out.
  EXPECT_EQ(ParameterLookup(db()).entries(), 0u);
  auto lookup = std::make_shared<const ParameterLookup>(db(), test::families_with_rowwise());
  ASSERT_EQ(lookup->entries(), 1u);
  const TunedParameters t = lookup->lookup(dev().info, odd_problem());
  EXPECT_EQ(t.source, LookupSource::kExact);
  EXPECT_EQ(to_string(t.config), summary_->best->config);

  cl::Context context(dev().device);
  cl::CommandQueue queue(context, dev().device);
  Gemm gemm(context, queue, lookup);
  for (double beta : {-0.5, 0.0}) {  // beta = 0: C is not read
    GemmProblem p = odd_problem();
    p.beta = beta;
    ASSERT_EQ(gemm.parameters(p).config.kind(), rowwise_kind());
    EXPECT_EQ(test::gemm_mismatch(gemm, context, queue, p, 5), "");
  }
}

TEST_F(FifthFamily, ReplayedByEveryStrategy) {
  Store store(db());
  const auto records = store.measurements(dev().info.key, odd_problem());
  const ReplayTable table = replay_table(rowwise_kind(), records);
  std::set<std::string> configs;
  for (const auto& r : records) configs.insert(r.config);
  ASSERT_EQ(table.space.size(), configs.size());
  for (const auto& name : strategy_names()) {
    const auto r =
        simulate(table.space, table.times, name,
                 {.budget = table.space.size(), .seeds = 3, .tolerance = 0.0, .settings = {}});
    EXPECT_EQ(r.reached, 3u) << name << " finds the best within the whole space's budget";
  }
}

}  // namespace
}  // namespace mmtune
