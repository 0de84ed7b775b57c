// A kernel family: one OpenCL GEMM kernel with its parameter space, constraints, build options,
// launch geometry and device limits. The engine (space -> build -> run -> verify -> time ->
// search -> store -> lookup -> report) knows families only through this interface; the built-in
// ones (tiled, direct, naive, classic) are declared in src/family/, one small file each, and a
// program may add its own through a FamilyRegistry.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "mmtune/device_info.hpp"
#include "mmtune/problem.hpp"

namespace mmtune {

class KernelFamily;

enum class SpaceSize { kFull, kQuick };

// A handle to a family, compared by identity. The built-in GEMM families have names here.
class KernelKind {
 public:
  constexpr KernelKind(const KernelFamily& f) : family_(&f) {}  // NOLINT: a handle converts
  const KernelFamily& family() const { return *family_; }
  const KernelFamily* operator->() const { return family_; }
  bool operator==(const KernelKind&) const = default;

  static const KernelKind kTiled, kDirect, kNaive, kClassic;

 private:
  const KernelFamily* family_;
};

// A configuration of one family: its parameter values in the family's parameter order. Valid
// by construction wherever it comes from the family (enumeration, parse_config); typed structs
// of the built-in families (TiledConfig, ...) convert both ways.
template <class Config>
struct ConfigTraits;  // specialised per typed configuration: kind() and space()

class KernelConfig {
 public:
  KernelConfig();  // the tiled kernel's defaults
  // Throws std::logic_error when `values` is not one value per parameter of the family.
  KernelConfig(KernelKind kind, std::vector<int> values);
  template <class C, class T = ConfigTraits<C>>
  KernelConfig(const C& typed) : kind_(T::kind()) {  // NOLINT: typed configurations convert
    if constexpr (!std::is_empty_v<C>) {
      for (const auto& p : T::space().parameters()) values_.push_back(typed.*(p.field));
    }
  }

  KernelKind kind() const { return kind_; }
  const std::vector<int>& values() const { return values_; }

  // The typed form, when this configuration is of C's family.
  template <class C>
  std::optional<C> as() const {
    if (!(kind_ == ConfigTraits<C>::kind())) return std::nullopt;
    C c{};
    if constexpr (!std::is_empty_v<C>) {
      std::size_t i = 0;
      for (const auto& p : ConfigTraits<C>::space().parameters()) c.*(p.field) = values_[i++];
    }
    return c;
  }

  bool operator==(const KernelConfig&) const = default;

 private:
  KernelKind kind_;
  std::vector<int> values_;
};

// The typed form of a configuration known to be of C's family; throws std::logic_error if not.
template <class C>
C get(const KernelConfig& c) {
  if (auto t = c.as<C>()) return *t;
  throw std::logic_error("configuration of another kernel family");
}

// One parameter of a family's space.
struct ParameterInfo {
  std::string name;         // also the kernel's -D define
  std::string help;         // one line
  std::vector<int> values;  // the values this space allows
  // For a parameter added after configurations were stored: the value older texts meant by
  // leaving it out (the canonical text omits it at that value).
  std::optional<int> absent;
  bool host_only = false;  // left out of the build options (the kernel never reads it)
};

// How the routine calls a family's kernel (kernels/*.cl document each signature).
enum class KernelArguments {
  // (M, N, K, alpha, beta, A image/buffer, offset, panel, panel stride, B ..., C, offset, ldc)
  // on A and B packed into panels (copy.cl), C padded to the launch's tile multiples.
  kPackedPanels,
  // (M, N, K, alpha, beta, A, offset, lda, B, offset, ldb, C, offset, ldc); the transpositions
  // are build options (-DTRANS_A, -DTRANS_B).
  kBuffers,
  // (M, N, K, alpha, beta, A, offset, lda, a_trans, B, offset, ldb, b_trans, C, offset, ldc).
  kBuffersAndTranspositions,
};

// The launch of one configuration on one column-major problem.
struct KernelLaunch {
  std::array<std::size_t, 2> global{}, local{};  // local {0, 0}: the implementation chooses
  // kPackedPanels: the multiples m, n and k are padded to, and whether A and B are read as
  // images of float4 texels instead of buffers.
  std::size_t pad_m = 1, pad_n = 1, pad_k = 1;
  bool images = false;
  // kPackedPanels: the kernel reads A and B where they are, without copies (A untransposed; B
  // read as it is stored; partial tiles guarded): A as K x M with lda and panels MWG apart, B
  // likewise or, untransposed, column by column. C is written in place too.
  bool in_place = false;
  // kPackedPanels: A is packed, B (untransposed: k-contiguous, whole tiles of n and k) is read
  // where it is, column by column, its panels NWG columns apart.
  bool b_in_place = false;
  // kPackedPanels with images: each operand whose layout is its image's (a row of texels per k,
  // m or n contiguous; or per n where B is k-contiguous) is read where the caller keeps it,
  // through a buffer image over the caller's buffer, when its own dimensions are whole tiles
  // and its leading dimension and offset are multiples of 4; otherwise it is packed. With
  // b_k_texels, B's texels hold four k of one column (B k-contiguous, built -DBK=1), packed or
  // in place.
  bool images_in_place = false;
  bool b_k_texels = false;
  // kPackedPanels: the kernel only stores C, whatever beta (built -DCBETA=0): where beta is not
  // 0 it writes a scratch C and the routine adds beta C in its unpad copy.
  bool stores_c_only = false;
  // kPackedPanels from packed buffers: k per launch (0: all of it). The host launches the
  // kernel once per slice of the padded k, in order, each adding to C (beta = 1 after the
  // first), so that a work-group's panels of A and B stay in cache while the next reuse them.
  std::size_t k_slice = 0;
};

enum class FamilyRole {
  kSearched,   // tuned; its best is a routine's best
  kReference,  // a baseline the summary and reports compare against
  kRecorded,   // a landscape measured elsewhere: stored and replayed, never built
};

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;

  // Its name in the store, the CLI and files; also the kernel's entry point "gemm_<name>".
  virtual std::string_view name() const = 0;
  virtual FamilyRole role() const { return FamilyRole::kSearched; }
  // The share of a budget this family's search gets, relative to the other searched families.
  virtual double search_weight() const { return 1.0; }

  // The program: the kernels/ file it is built from, or (non-empty) its own OpenCL C text,
  // which is built after kernels/common.cl (the real/realN types, PRECISION).
  virtual std::string source_file() const = 0;
  virtual std::string source_text() const { return {}; }
  virtual KernelArguments arguments() const = 0;

  // The space. Parameters are listed in the order of a configuration's values; the full space
  // holds every value the kernel accepts (the gate for stored and typed text).
  virtual const std::vector<ParameterInfo>& parameters(SpaceSize s) const = 0;
  virtual std::vector<std::string> constraint_names() const = 0;
  // Every configuration of the space that satisfies the constraints, in a deterministic order.
  virtual std::vector<KernelConfig> enumerate(SpaceSize s) const = 0;
  virtual std::vector<std::string> constraint_violations(const KernelConfig& c) const = 0;
  virtual KernelConfig default_config() const = 0;  // the kernel's #ifndef defaults

  // The device: local memory one work-group uses, and why a configuration cannot run on it.
  virtual std::size_t local_memory_bytes(const KernelConfig& c, Precision p) const = 0;
  virtual std::vector<std::string> limit_violations(const KernelConfig& c, const DeviceInfo& d,
                                                    Precision p) const = 0;

  // The routine: build options beyond "-DPRECISION -D<param>=<value>" (e.g. the transpositions;
  // host-only parameters get no -D), and the launch for a column-major problem.
  virtual std::string extra_build_options(const KernelConfig&, const ColMajorProblem&) const {
    return {};
  }
  virtual KernelLaunch launch(const KernelConfig& c, const ColMajorProblem& p) const = 0;
  // Whether the kernel runs a whole strided batch in one launch: it takes the batch strides of
  // A, B and C (ints, in elements; of the packed copies for kPackedPanels) after its other
  // arguments and computes item get_group_id(2) of a 3-D launch. The routine runs other
  // families' batches one launch per item (and packed ones on images).
  virtual bool batches() const { return false; }
  // The block of C whose elements share each element of A and B read from memory: the
  // arithmetic intensity of the kernel (1 x 1: every product reads both operands).
  virtual std::array<double, 2> reuse_block(const KernelConfig&) const { return {1.0, 1.0}; }
};

// The families a program knows, by name. builtin() holds the four GEMM families; a program
// with its own family copies it and adds one.
class FamilyRegistry {
 public:
  static const FamilyRegistry& builtin();

  // Throws std::logic_error for a name already present.
  void add(KernelKind family);
  std::optional<KernelKind> find(std::string_view name) const;
  const std::vector<KernelKind>& all() const { return families_; }
  // Names of the searched families, in registration order.
  std::vector<std::string> searched_names() const;

 private:
  std::vector<KernelKind> families_;
};

}  // namespace mmtune
