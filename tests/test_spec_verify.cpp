// A user's kernel's inputs and outputs: outputs compared with the reference exactly where the
// tolerance asks for it (64-bit integers included), inputs made once per size; and its first
// run's time.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "family/spec.hpp"
#include "family/spec_space.hpp"
#include "mmtune/device.hpp"
#include "mmtune/error.hpp"
#include "opencl/spec_kernel.hpp"
#include "opencl/spec_runner.hpp"
#include "spec_fixture.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

using spec_test::kYAndN;
using spec_test::one_dimensional;

// ulong outputs above 2^53, where doubles are 2 apart: 2^53 + 4i + 1 (the bug) and 2^53 + 4i
// are the same double.
const char* const kBigSource = R"cl(
#ifndef off
#define off 0  // added to every element: 1 is a wrong result
#endif
__kernel void big(__global ulong* y, __global long* z, const int n) {
  const int i = get_global_id(0);
  if (i < n) {
    y[i] = ((ulong)1 << 53) + 4 * (ulong)i + off;
    z[i] = -(((long)1 << 53) + 4 * (long)i + off);
  }
}
__kernel void big_reference(__global ulong* y, __global long* z, const int n) {
  const int i = get_global_id(0);
  if (i < n) {
    y[i] = ((ulong)1 << 53) + 4 * (ulong)i;
    z[i] = -(((long)1 << 53) + 4 * (long)i);
  }
}
)cl";

const char* const kBigArguments = R"([[arguments]]
name = "y"
type = "ulong"
size = "n"
output = true
[[arguments]]
name = "z"
type = "long"
size = "n"
output = true
[[arguments]]
name = "n"
kind = "scalar"
type = "int"
value = "n"
[metrics]
bytes = "16 * n"
[verification]
reference = "kernel"
kernel = "big_reference"
global = ["n"]
absolute = 0
relative = 0
)";

TEST(SpecVerify, SixtyFourBitIntegersAreComparedExactly) {
  test::TempDir dir;
  std::ofstream(dir / "big.cl") << kBigSource;
  std::ofstream(dir / "big.toml") << one_dimensional("big", "off = [0, 1]", kBigArguments);
  const KernelSpec spec = parse_spec_file(dir / "big.toml");
  SpecRunner runner(test::pocl_device("pthread"), spec, {64});
  const Measurement right = runner.evaluate(runner.instance().parse("off=0"));
  EXPECT_EQ(right.status, Status::kOk) << right.message;
  EXPECT_EQ(right.max_error, 0.0);
  const Measurement wrong = runner.evaluate(runner.instance().parse("off=1"));
  EXPECT_EQ(wrong.status, Status::kWrongResult);
  EXPECT_EQ(wrong.max_error, 1.0);
  // The message shows the integers as they are.
  EXPECT_NE(wrong.message.find("y[0] = 9007199254740993, expected 9007199254740992"),
            std::string::npos)
      << wrong.message;
}

TEST(SpecVerify, IntegersAreExactUnlessTheSpecStatesATolerance) {
  // The default tolerances (1e-5 + 1e-4 |ref|) are for floating point: at 2^53 they let any
  // integer kernel off by up to 9e11 pass.
  test::TempDir dir;
  std::string arguments = kBigArguments;
  arguments = arguments.substr(0, arguments.find("absolute = 0"));
  std::ofstream(dir / "big.cl") << kBigSource;
  std::ofstream(dir / "big.toml") << one_dimensional("big", "off = [0, 1]", arguments);
  const KernelSpec exact = parse_spec_file(dir / "big.toml");
  SpecRunner runner(test::pocl_device("pthread"), exact, {64});
  EXPECT_EQ(runner.evaluate(runner.instance().parse("off=0")).status, Status::kOk);
  EXPECT_EQ(runner.evaluate(runner.instance().parse("off=1")).status, Status::kWrongResult);
  // A stated tolerance applies as stated.
  std::ofstream(dir / "big.toml") << one_dimensional("big", "off = [0, 1]",
                                                     arguments + "absolute = 1\nrelative = 0\n");
  const KernelSpec stated = parse_spec_file(dir / "big.toml");
  SpecRunner tolerant(test::pocl_device("pthread"), stated, {64});
  EXPECT_EQ(tolerant.evaluate(tolerant.instance().parse("off=1")).status, Status::kOk);
}

TEST(SpecVerify, EqualInfinitiesAgree) {
  test::TempDir dir;
  std::ofstream(dir / "inf.cl") << R"cl(
#ifndef s
#define s 1  // the infinity's scale: any positive one is the same infinity
#endif
__kernel void inf(__global float* y, const int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = s * INFINITY;
}
)cl";
  std::ofstream(dir / "inf.toml") << one_dimensional("inf", "s = [1, 2]", kYAndN);
  const KernelSpec spec = parse_spec_file(dir / "inf.toml");
  SpecRunner runner(test::pocl_device("pthread"), spec, {64});
  const Measurement m = runner.evaluate(runner.instance().parse("s=2"));
  EXPECT_EQ(m.status, Status::kOk) << m.message;  // inf - inf is NaN, yet inf is inf
}

// A kernel that writes past n checked on `device` ("pthread" or "llvmpipe").
void expect_tail_overrun_caught(const std::string& device) {
  // Work-items rounded up to the work-group size write past n unless the kernel checks; such a
  // kernel gave the right outputs and passed (and corrupted whatever lay beyond on a GPU).
  test::TempDir dir;
  std::ofstream(dir / "tail.cl") << R"cl(
#ifndef checked
#define checked 1  // 0: the tail of the last work-group writes past n
#endif
__kernel void tail(__global float* y, const int n) {
  const int i = get_global_id(0);
  if (!checked || i < n) y[i] = 2.0f * i;
}
)cl";
  std::ofstream(dir / "tail.toml") << one_dimensional("tail", "checked = [1, 0]", kYAndN);
  const KernelSpec spec = parse_spec_file(dir / "tail.toml");
  SpecRunner runner(test::device_named(device), spec, {61});  // 64 work-items for 61
  EXPECT_EQ(runner.evaluate(runner.instance().parse("checked=1")).status, Status::kOk) << device;
  const Measurement m = runner.evaluate(runner.instance().parse("checked=0"));
  EXPECT_EQ(m.status, Status::kWrongResult) << device;
  EXPECT_NE(m.message.find("wrote past the end of y (61 elements), 0 bytes beyond it"),
            std::string::npos)
      << device << ": " << m.message;
}

TEST(SpecVerify, AWritePastABuffersEndIsAWrongResult) {
  expect_tail_overrun_caught("pthread");
}

// Llvmpipe*: the sanitizer build runs without rusticl (scripts/sanitize.sh).
TEST(LlvmpipeSpecVerify, AWritePastABuffersEndIsAWrongResult) {
  expect_tail_overrun_caught("llvmpipe");
}

TEST(SpecVerify, ValuesOutsideTheirTypeAreRefusedNotWrapped) {
  // n = 40000 as a short wrapped to a negative n: kernel and reference both wrote nothing and
  // "agreed".
  test::TempDir dir;
  std::ofstream(dir / "s.cl") << R"cl(
__kernel void s(__global float* y, const short n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = 1.0f;
}
)cl";
  std::string arguments = kYAndN;
  const std::string int_type = "type = \"int\"";
  arguments.replace(arguments.find(int_type), int_type.size(), "type = \"short\"");
  std::ofstream(dir / "s.toml") << one_dimensional("s", "u = [1]", arguments);
  const KernelSpec spec = parse_spec_file(dir / "s.toml");
  SpecRunner small(test::pocl_device("pthread"), spec, {32000});
  EXPECT_EQ(small.evaluate(small.instance().parse("u=1")).status, Status::kOk);
  SpecRunner big(test::pocl_device("pthread"), spec, {40000});
  const Measurement m = big.evaluate(big.instance().parse("u=1"));
  EXPECT_NE(m.status, Status::kOk);
  EXPECT_NE(m.message.find("n = 40000 is outside short's range"), std::string::npos) << m.message;
  // A long beyond 2^53: computed in doubles, its value reached the kernel rounded (n * n * n *
  // n + 1 at n = 40000 came as n^4), a wrong result the kernel was blamed for.
  std::ofstream(dir / "w.cl") << R"cl(
__kernel void w(__global float* y, const long n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = 1.0f;
}
)cl";
  std::string wide = kYAndN;
  wide.replace(wide.find(int_type), int_type.size(), "type = \"long\"");
  wide.replace(wide.find("value = \"n\""), 11, "value = \"n * n * n * n + 1\"");
  std::ofstream(dir / "w.toml") << one_dimensional("w", "u = [1]", wide);
  const KernelSpec wide_spec = parse_spec_file(dir / "w.toml");
  SpecRunner beyond(test::pocl_device("pthread"), wide_spec, {40000});
  const Measurement rounded = beyond.evaluate(beyond.instance().parse("u=1"));
  EXPECT_NE(rounded.status, Status::kOk);
  EXPECT_NE(rounded.message.find("n = 2560000000000000000 is beyond 2^53"), std::string::npos)
      << rounded.message;
  SpecRunner below(test::pocl_device("pthread"), wide_spec, {9000});
  EXPECT_EQ(below.evaluate(below.instance().parse("u=1")).status, Status::kOk);
  // A buffer's constant initial value must be one of its type's values.
  std::string uchar = arguments;
  uchar.replace(uchar.find("type = \"float\""), 14, "type = \"uchar\"\ninit = 300");
  std::ofstream(dir / "s.toml") << one_dimensional("s", "u = [1]", uchar);
  try {
    parse_spec_file(dir / "s.toml");
    ADD_FAILURE() << "init = 300 accepted for a uchar buffer";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("300 is outside uchar's range"), std::string::npos)
        << e.what();
  }
  // Nor can an integer a double does not hold ("expected a finite number" said nothing).
  std::string wide_init = arguments;
  wide_init.replace(wide_init.find("type = \"float\""), 14,
                    "type = \"long\"\ninit = 9007199254740993");
  std::ofstream(dir / "s.toml") << one_dimensional("s", "u = [1]", wide_init);
  try {
    parse_spec_file(dir / "s.toml");
    ADD_FAILURE() << "init = 2^53 + 1 accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("init: an integer beyond 2^53"), std::string::npos)
        << e.what();
  }
}

TEST(SpecVerify, AReferenceKernelBuildsWithTheParametersDefined) {
  // Kernel Tuner's sources have no #ifndef defaults: the tuner always defines the parameters,
  // and a reference kernel in the same file does not compile without them.
  test::TempDir dir;
  std::ofstream(dir / "kt.cl") << R"cl(
__kernel __attribute__((reqd_work_group_size(block_size_x, 1, 1)))
void kt(__global float* y, const int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = 3.0f * i;
}
__kernel void kt_reference(__global float* y, const int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = 3.0f * i;
}
)cl";
  std::ofstream(dir / "kt.toml") << "name = \"kt\"\nsource = \"kt.cl\"\nkernel = \"kt\"\n"
                                    "sizes = [\"n\"]\n[parameters]\nblock_size_x = [8, 16]\n"
                                    "[launch]\nproblem = [\"n\"]\nlocal = [\"block_size_x\"]\n"
                                 << kYAndN + R"([verification]
reference = "kernel"
kernel = "kt_reference"
global = ["n"]
)";
  const KernelSpec spec = parse_spec_file(dir / "kt.toml");
  SpecRunner runner(test::pocl_device("pthread"), spec, {64});
  const Measurement m = runner.evaluate(runner.instance().parse("block_size_x=16"));
  EXPECT_EQ(m.status, Status::kOk) << m.message;
}

TEST(SpecVerify, AVerifiedOutputIsNotSizedByAParameter) {
  // Padded to the work-group, y had 4096 bytes at w = 64 and the reference's 4000: every
  // configuration but the reference's was a WrongResult.
  test::TempDir dir;
  const std::string arguments = R"([[arguments]]
name = "y"
type = "float"
size = "ceil_div(n, w) * w"
output = true
)";
  std::ofstream(dir / "pad.cl") << "__kernel void pad(__global float* y) { y[0] = 1.0f; }\n";
  std::ofstream(dir / "pad.toml") << one_dimensional("pad", "w = [1, 64]", arguments);
  try {
    parse_spec_file(dir / "pad.toml");
    ADD_FAILURE() << "an output sized by a parameter was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("a verified output's size may use the sizes"),
              std::string::npos)
        << e.what();
  }
  // Unverified, nothing is compared.
  std::ofstream(dir / "pad.toml") << one_dimensional(
      "pad", "w = [1, 64]", arguments + "[verification]\nreference = \"none\"\n");
  EXPECT_NO_THROW(parse_spec_file(dir / "pad.toml"));
}

TEST(SpecVerify, AMetricIsACount) {
  // A negative flops expression was stored as a negative GFLOPS figure.
  test::TempDir dir;
  std::ofstream(dir / "m.cl") << "__kernel void m(__global float* y) { y[0] = 1.0f; }\n";
  std::ofstream(dir / "m.toml") << one_dimensional("m", "u = [1]", R"([[arguments]]
name = "y"
type = "float"
size = "n"
output = true
[metrics]
flops = "1000 - n"
)");
  const KernelSpec spec = parse_spec_file(dir / "m.toml");
  const DeviceInfo& d = test::pocl_device("pthread").info;
  EXPECT_EQ(spec_metric(spec, spec.flops, {10}, d), 990.0);
  EXPECT_THROW(spec_metric(spec, spec.flops, {2000}, d), UsageError);
  EXPECT_THROW(spec_metric(spec, spec.flops, {1000}, d), UsageError);
}

TEST(SpecTuneValues, ValuesBeyondIntAreSearchedAsRunTakesThem) {
  // run took scale = 3000000000; tune refused it as "too large to search over".
  test::TempDir dir;
  std::ofstream(dir / "v.cl") << R"cl(
__kernel void v(__global float* y, const int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = (float)(scale % 7L);
}
)cl";
  std::ofstream(dir / "v.toml") << one_dimensional("v", "scale = [1, 3000000000, 5]",
                                                   kYAndN + R"([verification]
reference = "none"
)");
  const auto r = test::run_mmtune({"tune", "--spec", dir / "v.toml", "--size", "64", "--device",
                                   "pthread", "--db", dir / "v.db", "--budget", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Each ran (a slow one under a sanitizer may be stopped early: it ran all the same).
  EXPECT_EQ(test::count_rows(dir / "v.db",
                             "SELECT COUNT(DISTINCT config) FROM measurements "
                             "WHERE status IN ('Ok', 'SlowerEarlyStop')"),
            3);
}

// y[i] = x[i * w]: x is sized by the parameter w, y is not.
const char* const kStrideSource = R"cl(
#ifndef w
#define w 1  // x's elements per element of y
#endif
__kernel void pick(__global float* y, __global const float* x, const int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = x[i * w];
}
)cl";

const char* const kPickArguments = R"([[arguments]]
name = "y"
type = "float"
size = "n"
output = true
[[arguments]]
name = "x"
type = "float"
size = "n * w"
init = "random"
[[arguments]]
name = "n"
kind = "scalar"
type = "int"
value = "n"
[verification]
reference = "none"
)";

// A tune over a space whose buffers' sizes depend on the parameters keeps one size of initial
// contents per argument, not every size it met (which grew without bound).
TEST(SpecInputs, InitialContentsAreHeldForOneSizePerArgument) {
  test::TempDir dir;
  std::ofstream(dir / "pick.cl") << kStrideSource;
  std::ofstream(dir / "pick.toml") << one_dimensional("pick", "w = [1, 2, 3]", kPickArguments);
  const KernelSpec spec = parse_spec_file(dir / "pick.toml");
  const std::size_t n = 4096;
  SpecRunner runner(test::pocl_device("pthread"), spec, {static_cast<long long>(n)});
  for (const char* w : {"w=1", "w=2", "w=3"}) {
    const Measurement m = runner.evaluate(runner.instance().parse(w), TimingOptions::verify_only());
    ASSERT_EQ(m.status, Status::kOk) << w << ": " << m.message;
  }
  EXPECT_EQ(runner.held_bytes(), (n + 3 * n) * sizeof(float));  // y, and x at w = 3
  const Measurement again = runner.evaluate(runner.instance().parse("w=1"));
  EXPECT_EQ(again.status, Status::kOk) << again.message;
  EXPECT_EQ(runner.held_bytes(), (n + n) * sizeof(float));
}

// A first run that decides the outcome (early stop) is its kernel's event time where events
// are usable, not its wall time, which includes PoCL's compilation at the first launch.
TEST(SpecInputs, AnEarlyStoppedFirstRunIsTheKernelsTime) {
  test::TempDir dir;
  std::ofstream(dir / "pick.cl") << kStrideSource;
  std::ofstream(dir / "pick.toml") << one_dimensional("pick", "w = [1, 2, 3]", kPickArguments);
  const KernelSpec spec = parse_spec_file(dir / "pick.toml");
  SpecRunner runner(test::pocl_device("pthread"), spec, {4096});
  ASSERT_TRUE(runner.calibration().events.usable);
  TimingOptions stop_at_once;
  stop_at_once.early_stop_ms = 1e-9;
  const Measurement stopped = runner.evaluate(runner.instance().parse("w=2"), stop_at_once);
  ASSERT_EQ(stopped.status, Status::kSlowerEarlyStop) << stopped.message;
  const Measurement timed = runner.evaluate(runner.instance().parse("w=2"));
  ASSERT_EQ(timed.status, Status::kOk) << timed.message;
  EXPECT_EQ(stopped.median_ms, stopped.kernel_median_ms);
  // Every configuration is ranked by its kernel's time, not by the wall time around each launch
  // (which adds the host's overhead: 0.07 ms against 0.007 ms), kept as the routine's.
  EXPECT_EQ(timed.median_ms, median(timed.kernel_ms));
  EXPECT_LT(timed.median_ms, median(timed.routine_ms));
  // First runs measured 0.037-0.039 ms against 0.007-0.020 ms later; the wall time 0.36-0.46.
  EXPECT_LT(stopped.median_ms, 5 * timed.kernel_median_ms + 0.1)
      << "the first launch's compilation was stored as the kernel's time";
}

// A __constant argument gets no guard zone: the kernel cannot write it, and 64 KiB more would
// pass a GPU's constant-buffer limit (64 KiB on NVIDIA's), the convolution example's 900-byte
// weights with it. Both implementations here tell each argument's qualifier.
void expect_constant_argument_is_read_only(const Device& device) {
  const cl::Context context(device.device);
  cl::Program program(context,
                      "__kernel void k(__global float* a, __constant float* w, "
                      "const __global float* r, int n) { a[0] = w[0] + r[0] + n; }");
  program.build();
  const cl::Kernel kernel(program, "k");
  EXPECT_TRUE(argument_may_be_written(kernel, 0));
  EXPECT_FALSE(argument_may_be_written(kernel, 1));
  EXPECT_TRUE(argument_may_be_written(kernel, 2));  // const: a promise, not a qualifier
}

TEST(SpecInputs, AConstantArgumentIsNoneTheKernelWrites) {
  expect_constant_argument_is_read_only(test::pocl_device("pthread"));
}

// Apart: the sanitizer build runs without rusticl (scripts/sanitize.sh leaves out Llvmpipe*).
TEST(LlvmpipeSpecInputs, AConstantArgumentIsNoneTheKernelWrites) {
  expect_constant_argument_is_read_only(test::llvmpipe_device());
}

}  // namespace
}  // namespace mmtune
