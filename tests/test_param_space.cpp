#include <gtest/gtest.h>

#include <random>
#include <set>

#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "tune/warm_start.hpp"

namespace mmtune {
namespace {

const KernelKind kAllKinds[] = {KernelKind::kTiled, KernelKind::kDirect, KernelKind::kNaive,
                                KernelKind::kClassic};

TEST(ParamSpace, EnumeratedConfigurationsSatisfyEveryConstraint) {
  const auto& space = tiled_space(SpaceSize::kFull);
  const auto all = space.enumerate();
  EXPECT_GT(space.product_size(), all.size());
  EXPECT_GE(all.size(), 10000u);
  for (std::size_t i = 0; i < all.size(); i += 97) {
    EXPECT_TRUE(space.violations(all[i]).empty());
    EXPECT_TRUE(space.in_value_sets(all[i]));
  }
  // Brute force over a small product: the pruned enumeration finds exactly the valid ones.
  const auto& quick = direct_space(SpaceSize::kQuick);
  std::size_t brute = 0;
  DirectConfig c;
  const auto& p = quick.parameters();
  std::vector<std::size_t> idx(p.size(), 0);
  for (std::uint64_t n = 0; n < quick.product_size(); ++n) {
    std::uint64_t r = n;
    for (std::size_t i = 0; i < p.size(); ++i) {
      c.*(p[i].field) = p[i].values[r % p[i].values.size()];
      r /= p[i].values.size();
    }
    brute += quick.violations(c).empty();
  }
  EXPECT_EQ(brute, quick.enumerate().size());
}

TEST(ParamSpace, QuickSpacesAreSmallSubsets) {
  const auto quick = tiled_space(SpaceSize::kQuick).enumerate();
  EXPECT_GE(quick.size(), 100u);
  EXPECT_LE(quick.size(), 1000u);
  for (const auto& c : quick) EXPECT_TRUE(tiled_space(SpaceSize::kFull).in_value_sets(c));
  const auto dq = direct_space(SpaceSize::kQuick).enumerate();
  EXPECT_GE(dq.size(), 20u);
  EXPECT_LE(dq.size(), 1000u);
}

TEST(ParamSpace, DefaultsAreValid) {
  for (auto k : kAllKinds) {
    const auto c = default_config(k);
    EXPECT_EQ(kind_of(c), k);
    EXPECT_TRUE(constraint_violations(c).empty()) << kernel_name(k);
  }
}

TEST(ParamSpace, TextRoundTripsAndRejectsBadInput) {
  std::mt19937 rng(7);
  const auto all = enumerate(KernelKind::kTiled, SpaceSize::kFull, nullptr, Precision::kSingle);
  for (int i = 0; i < 200; ++i) {
    const auto& c = all[rng() % all.size()];
    EXPECT_EQ(parse_config(KernelKind::kTiled, to_string(c)), c);
  }
  for (auto k : kAllKinds) {
    EXPECT_EQ(parse_config(k, to_string(default_config(k))), default_config(k));
  }
  const std::string good = to_string(default_config(KernelKind::kTiled));
  EXPECT_THROW(parse_config(KernelKind::kTiled, good + " MWG=64"), UsageError);  // repeated
  EXPECT_THROW(parse_config(KernelKind::kTiled, "MWG=64"), UsageError);          // incomplete
  EXPECT_THROW(parse_config(KernelKind::kTiled, good + " FOO=1"), UsageError);   // unknown
  EXPECT_THROW(parse_config(KernelKind::kTiled, good + " -DX=1"), UsageError);   // injection
  EXPECT_THROW(parse_config(KernelKind::kNaive, "-cl-opt-disable"), UsageError);
  std::string bad = good;
  bad.replace(bad.find("MWG=64"), 6, "MWG=6x");
  EXPECT_THROW(parse_config(KernelKind::kTiled, bad), UsageError);
  bad = good;
  bad.replace(bad.find("MWG=64"), 6, "MWG=48");  // not in the value set
  EXPECT_THROW(parse_config(KernelKind::kTiled, bad), UsageError);
  bad = good;
  bad.replace(bad.find("KWI=2"), 5, "KWI=8");  // breaks KWG % KWI (KWG=16 is fine) -> valid
  EXPECT_NO_THROW(parse_config(KernelKind::kTiled, bad));
  bad.replace(bad.find("VWM=4"), 5, "VWM=16");  // MWG % (MDIMC*VWM) == 64 % 128 != 0
  EXPECT_THROW(parse_config(KernelKind::kTiled, bad), UsageError);
}

TEST(ParamSpace, BuildOptionsNameEveryParameterTheKernelReads) {
  const auto c = default_config(KernelKind::kTiled);
  const std::string o = build_options(c, Precision::kDouble);
  EXPECT_EQ(o.rfind("-DPRECISION=64 ", 0), 0u) << o;
  int host_only = 0;
  for (const auto& p : tiled_space(SpaceSize::kFull).parameters()) {
    EXPECT_EQ(o.find(" -D" + p.name + "=") == std::string::npos, p.host_only) << p.name;
    host_only += p.host_only;
  }
  // k slices are the host's: both forms of one tile share one binary.
  EXPECT_EQ(host_only, 1);
  TiledConfig sliced;
  sliced.KC = 1024;
  ASSERT_TRUE(constraint_violations(sliced).empty());
  EXPECT_EQ(build_options(sliced, Precision::kSingle),
            build_options(TiledConfig{}, Precision::kSingle));
  EXPECT_NE(to_string(KernelConfig(sliced)), to_string(KernelConfig(TiledConfig{})));
  EXPECT_EQ(build_options(default_config(KernelKind::kNaive), Precision::kSingle),
            "-DPRECISION=32");
}

TEST(ParamSpace, DeviceLimitsComeFromTheDeviceInfo) {
  DeviceInfo small;
  small.max_work_group_size = 64;
  small.max_work_item_sizes = {64, 64, 64};
  small.local_mem_bytes = 4096;
  small.preferred.float_ = 1;
  small.preferred.double_ = 1;
  small.fp64 = false;
  TiledConfig t;
  t.MDIMC = 16, t.NDIMC = 8;  // 128 work-items
  EXPECT_FALSE(limit_violations(t, small, Precision::kSingle).empty());
  t = TiledConfig{};  // 64 work-items, local (16*64 + 16*64) * 4 = 8 KiB > 4 KiB
  EXPECT_FALSE(limit_violations(t, small, Precision::kSingle).empty());
  t.SA = 0;  // 4 KiB: fits exactly
  EXPECT_TRUE(limit_violations(t, small, Precision::kSingle).empty());
  t.VWM = 16;  // wider than max(8, preferred 1)
  EXPECT_FALSE(limit_violations(t, small, Precision::kSingle).empty());
  EXPECT_FALSE(limit_violations(NaiveConfig{}, small, Precision::kDouble).empty());  // no fp64
  const auto all = enumerate(KernelKind::kTiled, SpaceSize::kQuick, nullptr, Precision::kSingle);
  const auto fit = enumerate(KernelKind::kTiled, SpaceSize::kQuick, &small, Precision::kSingle);
  EXPECT_LT(fit.size(), all.size());
  for (const auto& c : fit) {
    const auto& tc = get<TiledConfig>(c);
    EXPECT_LE(tc.MDIMC * tc.NDIMC, 64);
    EXPECT_LE(local_memory_bytes(c, Precision::kSingle), 4096u);
  }
}

// IMG was added after configurations were stored: texts without it are IMG=0 and stay as they
// were; IMG=1 needs images, fp32, no local-memory staging and whole texels.
TEST(ParamSpace, ImageParameterKeepsStoredTextsAndItsRules) {
  const std::string old_text =
      "MWG=64 NWG=64 KWG=16 MDIMC=8 NDIMC=8 VWM=4 VWN=4 KWI=2 SA=1 SB=1 MDIMA=8 NDIMB=8 STRM=0 "
      "STRN=0";
  const auto old = parse_config(KernelKind::kTiled, old_text);
  EXPECT_EQ(get<TiledConfig>(old).IMG, 0);
  EXPECT_EQ(to_string(old), old_text);
  EXPECT_EQ(old, KernelConfig(TiledConfig{}));
  EXPECT_EQ(parse_config(KernelKind::kTiled, old_text + " IMG=0"), old);

  TiledConfig img;
  img.SA = img.SB = 0, img.MDIMA = img.MDIMC, img.NDIMB = img.NDIMC, img.IMG = 1;
  EXPECT_TRUE(constraint_violations(img).empty());
  EXPECT_NE(to_string(img).find(" IMG=1"), std::string::npos);
  EXPECT_EQ(parse_config(KernelKind::kTiled, to_string(img)), KernelConfig(img));
  EXPECT_NE(build_options(img, Precision::kSingle).find("-DIMG=1"), std::string::npos);
  TiledConfig staged = img;
  staged.SA = 1;
  EXPECT_FALSE(constraint_violations(staged).empty());
  TiledConfig narrow = img;
  narrow.VWN = 2;
  EXPECT_FALSE(constraint_violations(narrow).empty());

  DeviceInfo d;
  d.max_work_group_size = 1024;
  d.max_work_item_sizes = {1024, 1024, 1024};
  d.local_mem_bytes = 32768;
  d.preferred.float_ = 1;
  d.fp64 = true;
  EXPECT_FALSE(limit_violations(img, d, Precision::kSingle).empty()) << "no image support";
  d.image_support = true;
  EXPECT_TRUE(limit_violations(img, d, Precision::kSingle).empty());
  EXPECT_FALSE(limit_violations(img, d, Precision::kDouble).empty()) << "fp32 texels only";
  // The quick space leaves images out; the full one has them.
  for (const auto& c :
       enumerate(KernelKind::kTiled, SpaceSize::kQuick, nullptr, Precision::kSingle)) {
    EXPECT_EQ(get<TiledConfig>(c).IMG, 0);
  }
}

// The warm start measures each code path once: for every two-valued parameter, the nearest
// configuration to the default with the other value, however rare that path is.
TEST(WarmStart, OneVariantPerSwitchNearestToTheBase) {
  const std::vector<std::vector<int>> points = {{1, 0, 5}, {1, 1, 5}, {2, 0, 5},
                                                {2, 1, 7}, {3, 0, 7}, {3, 1, 5}};
  // Base {1, 0, 5}: dimension 0 has three values (not a switch); 1 and 2 are switches.
  EXPECT_EQ(switch_variants(points, {1, 0, 5}), (std::vector<std::size_t>{1, 4}));
  // Modes 0, 1, 2 are a switch: one variant per other mode (1 and 4), besides the flip of
  // dimension 1 (2, the first of the two nearest).
  const std::vector<std::vector<int>> modes = {{0, 4}, {1, 4}, {1, 8}, {2, 8}, {2, 4}};
  EXPECT_EQ(switch_variants(modes, {0, 4}), (std::vector<std::size_t>{1, 2, 4}));

  const auto configs = enumerate(KernelKind::kTiled, SpaceSize::kFull, nullptr, Precision::kSingle);
  std::vector<std::vector<int>> all;
  for (const auto& c : configs) all.push_back(parameter_values(c));
  const auto base = parameter_values(TiledConfig{});
  const auto picks = switch_variants(all, base);
  const auto names = parameter_names(KernelKind::kTiled);
  std::set<std::string> flipped;
  for (std::size_t i : picks) {
    for (std::size_t d = 0; d < names.size(); ++d) {
      if (all[i][d] != base[d]) flipped.insert(names[d]);
    }
  }
  for (const char* name : {"KWG", "SA", "SB", "STRM", "STRN", "IMG", "PACK", "KC"}) {
    EXPECT_TRUE(flipped.count(name)) << name;
  }
  EXPECT_FALSE(flipped.count("KWI")) << "1, 2 or 8: a size, left to the search";
  EXPECT_LE(picks.size(), 10u);  // one per other value of a switch (PACK has two)
  bool image = false;
  for (std::size_t i : picks) image = image || get<TiledConfig>(configs[i]).IMG == 1;
  EXPECT_TRUE(image) << "IMG=1 is under 2 % of the space, yet measured";
}

}  // namespace
}  // namespace mmtune
