// Spec files of users' kernels (docs/spec.md): the parser's checks with their file:line
// messages, expressions, and the space a spec spans on a problem and a device.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "family/expression.hpp"
#include "family/spec.hpp"
#include "family/spec_space.hpp"
#include "mmtune/device.hpp"
#include "mmtune/device_info.hpp"
#include "mmtune/error.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

const std::string kExamples = MMTUNE_EXAMPLES_DIR "/kernels";

std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The shipped convolution spec with one edit, parsed from a file beside its source.
std::string parse_error(const test::TempDir& dir, const std::string& from, const std::string& to) {
  std::string text = read(kExamples + "/convolution.toml");
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  std::ofstream(dir / "bad.toml") << text;
  try {
    parse_spec_file(dir / "bad.toml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Expression, EvaluatesOverAScopeAndRefusesWhatIsNotAnExpression) {
  Scope scope({"a", "b"});
  const Expression e("ceil_div(a, b) * b + a % b", scope);
  scope.set(0, 10), scope.set(1, 4);
  EXPECT_EQ(e.evaluate(), 3 * 4 + 2);
  EXPECT_EQ(e.uses().size(), 2u);
  const Expression c("a >= 8 && b != 3", scope);
  EXPECT_TRUE(c.evaluate_condition());
  scope.set(0, 7);
  EXPECT_FALSE(c.evaluate_condition());
  const Expression d("a / (b - 4)", scope);
  EXPECT_THROW(d.evaluate(), EvaluationError);  // a division by zero is not a number
  const Expression half("a / 2", scope);
  EXPECT_THROW(half.evaluate_integer(1), EvaluationError);  // 3.5
  scope.set(0, 8);
  EXPECT_EQ(half.evaluate_integer(1), 4);
  EXPECT_THROW(Expression("a = 3", scope), ExpressionError);  // would assign
  EXPECT_THROW(Expression("a, b", scope), ExpressionError);
  EXPECT_THROW(Expression("c + 1", scope), ExpressionError);
  EXPECT_THROW(Expression("(a + 1", scope), ExpressionError);
  EXPECT_THROW(Expression("  ", scope), ExpressionError);
  // The names expressions give a meaning of their own: muParser's and ours.
  for (const char* name : {"sin", "min", "_pi", "ceil_div", "mod", "floor"}) {
    EXPECT_TRUE(is_expression_builtin(name)) << name;
  }
  for (const char* name : {"a", "wg", "width", "local_mem_size"}) {
    EXPECT_FALSE(is_expression_builtin(name)) << name;
  }
}

TEST(Spec, TheConvolutionExampleParsesIntoItsSpace) {
  const KernelSpec spec = parse_spec_file(kExamples + "/convolution.toml");
  EXPECT_EQ(spec.name, "convolution");
  EXPECT_EQ(spec.kernel, "convolution_kernel");
  ASSERT_EQ(spec.sizes, (std::vector<std::string>{"width", "height", "filter"}));
  ASSERT_EQ(spec.parameters.size(), 5u);
  EXPECT_EQ(spec.arguments.size(), 3u);
  EXPECT_EQ(spec.verification.kind, Verification::kReferenceKernel);
  EXPECT_EQ(spec.verification.kernel, "convolution_naive");

  // A 32 KiB local memory, as Mesa's llvmpipe has: the tile constraint removes large tiles.
  DeviceInfo small;
  small.local_mem_bytes = 32 * 1024, small.max_work_group_size = 1024;
  small.max_work_item_sizes = {1024, 1024, 1024}, small.max_alloc_bytes = 1ULL << 32;
  SpecInstance instance(spec, {1000, 700, 15}, &small);
  EXPECT_EQ(instance.product(), 9u * 6 * 8 * 8 * 2);
  const SpecPoint p = instance.parse(
      "block_size_x=16 block_size_y=4 tile_size_x=2 "
      "tile_size_y=3 use_padding=1");
  EXPECT_EQ(instance.violation(p), "");
  const SpecLaunchSizes l = instance.launch(p);
  // Kernel Tuner's rule: ceil(1000 / (16 * 2)) work-groups of 16 in x, ceil(700 / 12) of 4 in y.
  EXPECT_EQ(l.local, (std::vector<std::size_t>{16, 4}));
  EXPECT_EQ(l.global, (std::vector<std::size_t>{32 * 16, 59 * 4}));
  EXPECT_EQ(l.argument_sizes, (std::vector<long long>{1000 * 700, 1014 * 714, 225}));
  EXPECT_NE(std::find(l.defines.begin(), l.defines.end(),
                      std::make_pair(std::string("image_width"), std::string("1000"))),
            l.defines.end());
  EXPECT_EQ(instance.to_text(p),
            "block_size_x=16 block_size_y=4 tile_size_x=2 tile_size_y=3 use_padding=1");
  const SpecPoint big = instance.parse(
      "block_size_x=128 block_size_y=32 tile_size_x=8 "
      "tile_size_y=8 use_padding=0");
  EXPECT_EQ(instance.violation(big).rfind("constraint (block_size_y", 0), 0u);
  const SpecPoint wide = instance.parse(
      "block_size_x=128 block_size_y=16 tile_size_x=1 "
      "tile_size_y=1 use_padding=0");
  EXPECT_NE(instance.violation(wide).find("work-group of 2048"), std::string::npos);
  const auto valid = instance.enumerate();
  EXPECT_GT(valid.size(), 1000u);
  EXPECT_LT(valid.size(), instance.product());
  for (const auto& v : valid) ASSERT_EQ(instance.violation(v), "");
  // The first few only (a runner's reference, `mmtune run`): the same, without the rest.
  EXPECT_EQ(instance.enumerate(nullptr, 3),
            std::vector<SpecPoint>(valid.begin(), valid.begin() + 3));
  EXPECT_TRUE(instance.enumerate(nullptr, 0).empty());

  EXPECT_THROW(instance.parse("block_size_x=3"), UsageError);
  EXPECT_THROW(SpecInstance(spec, {1000, 700}, &small), UsageError);
}

// The shipped convolution spec with one edit, parsed from a file beside its source.
KernelSpec edited_convolution(const test::TempDir& dir, const std::string& from,
                              const std::string& to) {
  std::string text = read(kExamples + "/convolution.toml");
  EXPECT_NE(text.find(from), std::string::npos) << from;
  text.replace(text.find(from), from.size(), to);
  std::ofstream(dir / "conv.toml") << text;
  std::filesystem::copy(kExamples + "/convolution.cl", dir / "convolution.cl");
  return parse_spec_file(dir / "conv.toml");
}

// A device with room for the convolution's launches.
DeviceInfo roomy_device() {
  DeviceInfo dev;
  dev.local_mem_bytes = 1 << 20, dev.max_work_group_size = 4096;
  dev.max_work_item_sizes = {4096, 4096, 4096}, dev.max_alloc_bytes = 1ULL << 32;
  return dev;
}

TEST(Spec, AnExpressionThatIsNotANumberExcludesTheConfigurationNotTheSpec) {
  test::TempDir dir;
  const KernelSpec spec =
      edited_convolution(dir, "size = \"filter * filter\"",
                         "size = \"filter * filter / (use_padding * tile_size_x)\"");
  DeviceInfo dev = roomy_device();
  SpecInstance instance(spec, {64, 64, 3}, &dev);
  const auto zero = instance.parse(
      "block_size_x=16 block_size_y=4 tile_size_x=2 "
      "tile_size_y=3 use_padding=0");
  EXPECT_NE(instance.violation(zero).find("is not a finite number"), std::string::npos)
      << instance.violation(zero);
  const auto fraction = instance.parse(
      "block_size_x=16 block_size_y=4 tile_size_x=2 "
      "tile_size_y=3 use_padding=1");
  EXPECT_NE(instance.violation(fraction).find("is not a whole number"), std::string::npos);
  // All buffers at once must fit the device's memory, not only each alone.
  dev.global_mem_bytes = 4096;
  const auto fits =
      instance.parse("block_size_x=16 block_size_y=4 tile_size_x=1 tile_size_y=1 use_padding=1");
  EXPECT_NE(instance.violation(fits).find("together exceed the device's global memory"),
            std::string::npos)
      << instance.violation(fits);
}

// A grid divisor whose product wraps a 64-bit integer to 0 excludes the configuration; it
// divided by zero (SIGFPE) while the space was counted.
TEST(Spec, AGridDivisorBeyondRangeExcludesTheConfiguration) {
  test::TempDir dir;
  const KernelSpec spec =
      edited_convolution(dir, "grid_div_x = [\"block_size_x\", \"tile_size_x\"]",
                         "grid_div_x = [\"4294967296\", \"4294967296\"]");
  const DeviceInfo dev = roomy_device();
  SpecInstance instance(spec, {64, 64, 3}, &dev);
  const auto point =
      instance.parse("block_size_x=16 block_size_y=4 tile_size_x=2 tile_size_y=2 use_padding=1");
  EXPECT_NE(instance.violation(point).find("beyond 10^18"), std::string::npos)
      << instance.violation(point);
}

// A global size beyond 2^53 is refused (here 2^56). Computed in size_t it could wrap: with a local
// size of 4096 to 0 at a width of 2^52, a launch of nothing that would be timed.
TEST(Spec, AGlobalSizeBeyondRangeExcludesTheConfiguration) {
  test::TempDir dir;
  const KernelSpec spec = edited_convolution(
      dir, "grid_div_x = [\"block_size_x\", \"tile_size_x\"]", "grid_div_x = [\"1\"]");
  const DeviceInfo dev = roomy_device();
  SpecInstance instance(spec, {4503599627370496, 64, 3}, &dev);  // 2^52
  const auto point =
      instance.parse("block_size_x=16 block_size_y=4 tile_size_x=2 tile_size_y=2 use_padding=1");
  EXPECT_NE(instance.violation(point).find("beyond 2^53"), std::string::npos)
      << instance.violation(point);
}

TEST(Spec, MalformedSpecsAreOneLineNamingFileLineAndKey) {
  test::TempDir dir;
  std::filesystem::copy(kExamples + "/convolution.cl", dir / "convolution.cl");
  const std::string file = dir / "bad.toml";
  const auto expect = [&](const std::string& from, const std::string& to, const std::string& re) {
    const std::string what = parse_error(dir, from, to);
    EXPECT_TRUE(std::regex_search(what, std::regex(re))) << what << "\n  expected: " << re;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  };
  expect("kernel = \"convolution_kernel\"", "kernel = \"convolution_kernel\"\nkernell = 3",
         "bad.toml:6: kernell: unknown key");
  expect("\"block_size_x * block_size_y >= 16\"", "\"block_sz >= 16\"",
         "bad.toml:8: constraints\\[0\\]: .*unknown name 'block_sz'");
  expect("tile_size_y + filter - 1)", "tile_size_y + filter) - 1)",
         "bad.toml:9: constraints\\[1\\]: .*parenthesis");
  expect("source = \"convolution.cl\"", "source = \"missing.cl\"",
         "bad.toml:4: source: no such file: .*missing.cl");
  expect("grid_div_x = [\"block_size_x\", \"tile_size_x\"]",
         "grid_div_x = [\"block_size_x\", \"tile_size_x = 2\"]",
         "launch.grid_div_x\\[1\\]: .*'=' assigns");
  expect("use_padding = [0, 1]", "use_padding = [\"a b\", 1]",
         "parameters.use_padding\\[0\\]: 'a b' cannot be a define's value");
  expect("use_padding = [0, 1]", "use_padding = [0, 1, 1]",
         "use_padding\\[2\\]: 1 is listed twice");
  expect("tile_size_y = [", "min = [", "parameters.min: 'min' is a function");
  expect("use_padding = [0, 1]", "use_padding = [0, 1]\nwidth = [1]", "'width' is defined twice");
  expect("image_width = \"width\"", "use_padding = \"width\"",
         "defines.use_padding: 'use_padding' is defined twice \\(parameters and defines");
  expect("type = \"float\"\nsize = \"width * height\"", "type = \"float4\"\nsize = \"width\"",
         "arguments\\[0\\].type: unknown type 'float4'");
  expect("output = true", "output = 1", "arguments\\[0\\].output: expected true or false");
  expect("output = true", "", "no buffer is marked `output = true`");
  expect("reference = \"kernel\"", "reference = \"python\"", "verification.reference: 'python'");
  expect("local = [\"block_size_x\", \"block_size_y\"]", "local = []",
         "launch.local: expected 1 to 3 expressions");
  expect("problem = [\"width\", \"height\"]", "global = [\"width\", \"height\"]",
         "grid_div_x: only with 'problem'");
  expect("global = [\"width\", \"height\"]", "global = [\"width\", \"block_size_x\"]",
         "verification.global\\[1\\]: .*unknown name 'block_size_x'");
  expect("name = \"convolution\"", "name = \"convolution\"\nname = \"again\"",
         "bad.toml:4: .*cannot redefine");
  expect("[metrics]", "[metrics]\ngflops = \"1\"", "metrics.gflops: unknown key");
  expect("seed = 1", "seed = -1", "arguments\\[1\\].seed: -1 is outside");
  std::string many = "[0";
  for (int i = 1; i < 4096; ++i) many += ", " + std::to_string(i);
  many += "]";
  expect("use_padding = [0, 1]", "use_padding = [0, 1]\nmany_a = " + many + "\nmany_b = " + many,
         "parameters: their value lists make .* configurations, more than 10000000");
  // Parameters x expressions is the parse's cost: a hostile spec ran for minutes in gigabytes.
  std::string params = "use_padding = [0, 1]";
  for (int i = 0; i < 64; ++i) params += "\np" + std::to_string(i) + " = [1]";
  expect("use_padding = [0, 1]", params, "parameters: 69 parameters, more than 64");
  std::string constraints = "constraints = [\"1 > 0\"";
  for (int i = 0; i < 256; ++i) constraints += ", \"1 > 0\"";
  expect("constraints = [", constraints + ",", "constraints: more than 256");
  // Their text too: 256 of 4096 characters took 1.6 ms per configuration, hours over 10^7.
  std::string sum = "\"0";
  for (int i = 0; i < 990; ++i) sum += " + 0";
  sum += " >= 0\", ";
  expect(
      "constraints = [", "constraints = [" + sum + sum + sum + sum + sum,
      "bad.toml: the expressions evaluated for each configuration total 20[0-9]{3} bytes; at most "
      "16384");
  EXPECT_THROW(parse_spec_file(dir / "nothing.toml"), UsageError);
}

// docs/usage.md documents the format with the convolution example: its block must stay a spec
// that parses, beside the example's kernels.
TEST(Spec, TheDocumentedExampleParses) {
  const std::string readme = read(MMTUNE_EXAMPLES_DIR "/../docs/usage.md");
  const auto begin = readme.find("```toml\n");
  ASSERT_NE(begin, std::string::npos);
  const auto end = readme.find("```", begin + 8);
  test::TempDir dir;
  std::filesystem::copy(kExamples + "/convolution.cl", dir / "convolution.cl");
  const KernelSpec spec =
      parse_spec_text(readme.substr(begin + 8, end - begin - 8), dir / "readme.toml");
  EXPECT_EQ(spec.name, "convolution");
  EXPECT_EQ(spec.parameters.size(), 5u);
  EXPECT_FALSE(spec.default_config.empty());
}

// A spec's name holds the hash of its text, sources and data files, concatenated with \x1f
// between them; stored results are found by it. Data files are hashed a block at a time (a
// 200 MB file was read whole three times), to the same name: here one of several blocks.
TEST(Spec, ItsNameHashesTextSourcesAndDataFilesAsOneText) {
  test::TempDir dir;
  std::filesystem::copy(kExamples + "/convolution.cl", dir / "convolution.cl");
  std::string text = read(kExamples + "/convolution.toml");
  const std::string reference =
      "reference = \"kernel\"\nkernel = \"convolution_naive\"\nglobal = [\"width\", \"height\"]";
  ASSERT_NE(text.find(reference), std::string::npos);
  text.replace(text.find(reference), reference.size(), "reference = \"file\"\nfile = \"out.bin\"");
  std::string data(200'003, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = char(i * 7919 % 251);
  std::ofstream(dir / "out.bin", std::ios::binary) << data;
  std::ofstream(dir / "conv.toml") << text;
  const KernelSpec spec = parse_spec_file(dir / "conv.toml");
  const std::string all = text + '\x1f' + read(kExamples + "/convolution.cl") + '\x1f' + data;
  EXPECT_EQ(spec_kernel_name(spec), "spec:convolution:" + content_hash(all));
  data[150'000] ^= 1;  // a byte past the first blocks is part of the name too
  std::ofstream(dir / "out.bin", std::ios::binary) << data;
  EXPECT_NE(spec_kernel_name(parse_spec_file(dir / "conv.toml")), spec_kernel_name(spec));
}

TEST(SpecCli, SpaceCountsTheConfigurationsOnARealDevice) {
  auto r = test::run_mmtune({"space", "--spec", kExamples + "/convolution.toml", "--size",
                             "4096,4096,15", "--device", "pthread", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["configurations"], 9 * 6 * 8 * 8 * 2);
  // PoCL's work-groups go up to 4096 work-items: the spec's own lower bound on the work-group
  // excludes (block_size_x * block_size_y < 16), and its local-memory constraint the tiles larger
  // than the device's local memory (PoCL sizes it from the CPU's caches: none on some CPUs).
  const std::size_t local = test::pocl_device("pthread").info.local_mem_bytes;
  std::size_t too_large = 0;
  for (std::size_t bx : {1, 2, 4, 8, 16, 32, 48, 64, 128}) {
    for (std::size_t by : {1, 2, 4, 8, 16, 32}) {
      for (std::size_t tx = 1; tx <= 8; ++tx) {
        for (std::size_t ty = 1; ty <= 8; ++ty) {
          for (std::size_t pad : {0, 1}) {
            too_large += bx * by >= 16 && (by * ty + 14) * (bx * tx + 14 + pad) * 4 > local;
          }
        }
      }
    }
  }
  EXPECT_EQ(j["valid"], 6912 - 1280 - too_large);
  std::size_t excluded = 0;
  for (const auto& [why, n] : j["excluded"].items()) excluded += n.get<std::size_t>();
  EXPECT_EQ(excluded + j["valid"].get<std::size_t>(), 6912u);
  EXPECT_EQ(j["excluded"]["constraint block_size_x * block_size_y >= 16"], 1280);

  r = test::run_mmtune({"space", "--spec", kExamples + "/convolution.toml", "--size", "4096,0,15"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("--size: '0'"), std::string::npos) << r.err;
  r = test::run_mmtune({"space", "--spec", kExamples + "/convolution.toml", "--size", "4096,4096"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("needs 3 size(s) (width,height,filter)"), std::string::npos) << r.err;
  r = test::run_mmtune({"space", "--size", "4096"});
  EXPECT_EQ(r.exit_code, kExitUsage);
}

}  // namespace
}  // namespace mmtune
