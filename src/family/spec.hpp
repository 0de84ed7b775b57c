// A user's kernel described by a spec file (TOML) next to its OpenCL source: its parameters,
// constraints, problem sizes, launch geometry, arguments, verification and metrics, as a typed
// value. The file is read once, at the outer door (parse_spec_file); expressions stay text here
// and are compiled against a scope of names by spec_space.hpp. docs/spec.md has the format.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mmtune {

// An expression of the spec and where it was written ("conv.toml:12: launch.local[0]"), for
// messages about it.
struct SpecExpr {
  std::string text;
  std::string where;
};

struct SpecParameter {
  std::string name;
  std::vector<long long> values;    // numbers; empty for a parameter of strings
  std::vector<std::string> labels;  // strings (enumerations), passed as the define's text
  bool numeric() const { return labels.empty(); }
  std::size_t size() const { return numeric() ? values.size() : labels.size(); }
  std::string where;
};

enum class SpecType { kChar, kUchar, kShort, kUshort, kInt, kUint, kLong, kUlong, kFloat, kDouble };
std::size_t type_bytes(SpecType t);
const char* to_string(SpecType t);
// Why v cannot be a value of type t ("300 is outside uchar's range", "2.5 is not a whole number,
// as int needs"); "" when it can. A value converted regardless would wrap or be undefined.
// `computed`: v is an expression's value, computed in doubles, which from 2^53 on may be a
// rounded one; a long or ulong there is refused too.
std::string unrepresentable(SpecType t, double v, bool computed = true);

enum class ArgumentKind { kBuffer, kScalar, kLocal };
// How a buffer starts: uniform random numbers in [-1, 1) (or [0, 100) for integer types) from a
// seed, zeros, one constant, or the raw bytes of a file.
enum class BufferInit { kRandom, kZeros, kConstant, kFile };

struct SpecArgument {
  std::string name;
  ArgumentKind kind = ArgumentKind::kBuffer;
  SpecType type = SpecType::kFloat;
  SpecExpr size{};   // buffers and local memory: elements
  SpecExpr value{};  // scalars
  BufferInit init = BufferInit::kZeros;
  double constant = 0;
  std::uint64_t seed = 1;
  std::filesystem::path file{};  // kFile, resolved against the spec's directory
  bool output = false;           // compared by the verification
  std::string where;
};

// Launch geometry, 1 to 3 dimensions. Either Kernel Tuner's rule (`problem` sizes divided into
// work-groups by the products of `grid_div_*`: global[d] = ceil(problem[d] / div[d]) *
// local[d]) or explicit `global` sizes (each a multiple of its local size).
struct SpecLaunch {
  std::vector<SpecExpr> problem{}, global{}, local{};
  std::vector<std::vector<SpecExpr>> grid_div{};  // per dimension; empty: divide by local[d]
  std::string where;
};

enum class Verification { kNone, kReferenceKernel, kFile, kFirstConfiguration };

struct SpecVerification {
  Verification kind = Verification::kFirstConfiguration;
  std::string kernel;                       // kReferenceKernel: its name in the sources
  std::vector<SpecExpr> global{}, local{};  // its launch (over sizes only); local may be empty
  std::filesystem::path file{};             // kFile: the outputs' expected bytes, in order
  double absolute = 1e-5, relative = 1e-4;  // |x - ref| <= absolute + relative * |ref|
  bool tolerance_stated = false;  // integer outputs are compared exactly unless the spec says
  std::string where;
};

struct KernelSpec {
  std::filesystem::path path;  // the spec file
  std::string name;            // the store's key for this kernel (with the source hash)
  std::vector<std::filesystem::path> sources{};  // resolved against the spec's directory
  std::string kernel;                            // the function to tune
  std::string build_options;
  std::vector<std::string> sizes{};         // named problem sizes, given in this order
  std::vector<SpecParameter> parameters{};  // by name (TOML tables have no order)
  std::string default_config;  // [default]: "NAME=VALUE ..." in parameter order (empty: none)
  std::vector<SpecExpr> constraints{};
  std::vector<std::pair<std::string, SpecExpr>> defines{};  // extra -D NAME=value, computed
  SpecLaunch launch{};
  std::vector<SpecArgument> arguments{};
  SpecVerification verification{};
  std::optional<SpecExpr> flops{}, bytes{};  // per run, for GFLOPS and GB/s
  std::string text_hash;                     // of the spec file and its sources
};

// Reads and checks a spec. Throws UsageError with one line "FILE:LINE: KEY: what is wrong" for
// TOML errors, unknown or missing keys, values of the wrong type, names that are not
// identifiers or are defined twice, expressions that do not parse or use an unknown name, and
// source or data files that do not exist.
KernelSpec parse_spec_file(const std::filesystem::path& path);
// The same from text (`path` names it in messages and anchors relative files).
KernelSpec parse_spec_text(const std::string& text, const std::filesystem::path& path);

// The kernel's name in the store: "spec:NAME:HASH", HASH 16 hex digits of its sources' and spec
// file's text (editing either starts a new landscape).
std::string spec_kernel_name(const KernelSpec& spec);

// Whether a stored kernel name is a spec's ("spec:NAME:HASH"), and a spec configuration's text
// checked for the exchange formats: NAME=VALUE pairs of identifiers and define tokens (letters,
// digits, _ . -), each name once; returned unchanged, or UsageError.
bool is_spec_kernel(const std::string& kernel);
std::string canonical_spec_config(const std::string& config);

// The names an expression may use besides parameters and sizes: the device's limits.
const std::vector<std::string>& spec_device_names();

}  // namespace mmtune
