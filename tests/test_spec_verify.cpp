// How a user's kernel's outputs are compared with the reference: exactly where the tolerance
// asks for it, 64-bit integers included.
#include <gtest/gtest.h>

#include <fstream>

#include "family/spec.hpp"
#include "mmtune/device.hpp"
#include "opencl/spec_runner.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

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

const char* const kBigSpec = R"(name = "big"
source = "big.cl"
kernel = "big"
sizes = ["n"]
[parameters]
off = [0, 1]
[launch]
problem = ["n"]
local = [8]
[[arguments]]
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
  std::ofstream(dir / "big.toml") << kBigSpec;
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

}  // namespace
}  // namespace mmtune
