// Tuned parameters for library consumers: what the store holds for a device and problem, with a
// fallback chain when it holds nothing exact.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "mmtune/device_info.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/kernel_family.hpp"
#include "mmtune/problem.hpp"

namespace mmtune {

// Where the parameters came from, best first.
enum class LookupSource {
  kExact,          // this device, this problem
  kNearestShape,   // this device, the nearest tuned shape (same precision and transpositions)
  kSimilarDevice,  // another device of the same implementation, vendor and type, nearest shape
  kDefault,        // built-in defaults for the device type
};
const char* to_string(LookupSource s);

struct TunedParameters {
  KernelConfig config;
  LookupSource source = LookupSource::kDefault;
  std::string device_key;  // whose measurement it is (empty for defaults)
  std::string device_name;
  std::size_t m = 0, n = 0, k = 0;  // the tuned shape it came from
  std::size_t batch = 1;            // and its batch
  double gflops = 0.0;              // as measured there (0 for defaults)
  std::int64_t measurement_id = 0;
};

// Built-in defaults: reasonable configurations per device type, valid within its limits.
TunedParameters default_parameters(const DeviceInfo& device, const GemmProblem& problem);

// Whether the routine can run `config` on this problem as far as the device's images go: true
// when it reads no images, or reads one item at a time and each image fits the device's limit
// on 1-D buffer images (the routine would fail with CL_INVALID_IMAGE_SIZE otherwise); false for a
// configuration that breaks its rules.
bool images_fit(const KernelConfig& config, const DeviceInfo& device, const GemmProblem& problem);

// The configuration running k whole where `config`'s slices of k would cover all of it (the same
// launch, which a tune searches only in that form); std::nullopt otherwise.
std::optional<KernelConfig> whole_k_variant(const KernelConfig& config, const GemmProblem& problem);

// Whether packing A and B would cost about as much as the product: a GEMM does 2mnk flops on
// (mk + kn) copied elements per item, and below 128 flops per copied element (one dimension of C
// under about 64: GEMV-like and skinny shapes, small batched items) the copies, bounded by memory
// bandwidth, take a third of the kernel's time or more.
bool copies_dominate(const GemmProblem& problem);

// The configuration reading A and B where they are (tiled PACK=0) when `config` packs them and
// stages nothing in local memory; std::nullopt otherwise. Through images (IMG=1) an operand is
// then read in place where its layout, offset and leading dimension allow, else still packed.
std::optional<KernelConfig> in_place_variant(const KernelConfig& config);

// The reverse: the tiled configuration packing A and reading B in place (PACK=2) when `config`
// reads both in place and that form meets the constraints; std::nullopt otherwise.
std::optional<KernelConfig> packed_variant(const KernelConfig& config);

// The tiled configuration tuned for `from` carried over to `to` with the bytes of its vectors
// along m and of its macro tile along m kept (VWM and MWG scaled by the ratio of element sizes,
// VWM down to 1, then MWG alone): a device's vector registers and cache lines hold bytes, not
// elements. std::nullopt when not tiled or when that form breaks a constraint or the device's
// limits.
std::optional<KernelConfig> precision_variant(const KernelConfig& config, Precision from,
                                              Precision to, const DeviceInfo& device);

// The tiled configuration whose macro tile along C's shorter side as the kernel sees it
// (column-major: MWG when m <= n, else NWG) is halved, with its work-items along that side, for
// as long as half the tile still covers that side and the result is in the tiled space;
// std::nullopt when not even one step is. On a skinny C a square shape's tile is mostly
// padding: row-major 4096x1x4096 (the kernel's m is 1) ran 2x faster on PoCL at MWG 32 -> 16
// (5.5 -> 11.4 GFLOPS); at 8x4096x4096 (its n is 8) the tune's best was NWG=16 NDIMC=2, the
// nearest best's NWG=64 NDIMC=8 shrunk twice (before, the first 10 evaluations reached 0.33
// of the tune's best).
std::optional<KernelConfig> narrower_variant(const KernelConfig& config,
                                             const GemmProblem& problem);

// The packing tiled configuration with k run in slices of kSliceK (KC) when k holds two or more
// of them and `config` runs k whole; std::nullopt otherwise. With k whole a work-group's panels
// of A and B (MWG + NWG values per k row) outgrow a CPU core's L2 from k of a few thousand; in
// slices they stay cached for the next work-groups (2048x2048x4096 on PoCL, AMD EPYC, MWG=32
// NWG=64: 196 -> 199 and 172 -> 188 GFLOPS; slices of 512 and 256 were slower: C is read and
// written once per slice).
inline constexpr int kSliceK = 1024;
std::optional<KernelConfig> k_sliced_variant(const KernelConfig& config,
                                             const GemmProblem& problem);

// Reads every stored best once; lookups are then in-memory scans (microseconds). Immutable
// after construction, so one lookup may be shared by any number of threads and Gemm objects.
class ParameterLookup {
 public:
  ParameterLookup() = default;  // no database: defaults only
  // Reads the database without writing it (a read-only file or directory is fine), except that
  // an older schema is upgraded where it may be written. Throws UsageError when it does not
  // exist, is empty, is not a regular file or not an mmtune database, and an mmtune::Error for
  // any other failure to read it. Stored bests of the searched families of `families` are used;
  // rows of other kernels are skipped.
  explicit ParameterLookup(const std::string& db_path,
                           const FamilyRegistry& families = FamilyRegistry::builtin());

  // Never fails: falls back to defaults. Skips stored entries that the device cannot run.
  TunedParameters lookup(const DeviceInfo& device, const GemmProblem& problem) const;
  std::size_t entries() const { return count_; }

 private:
  struct Stored {
    std::string key, vendor, type, name, platform;
  };
  struct Entry {
    std::size_t device;  // index into devices_
    LogShape shape;      // for the distance
    std::size_t m, n, k, batch;
    bool batches;  // its family runs a batch in one launch
    KernelConfig config;
    double median_ms, gflops;
    std::int64_t measurement_id;
  };
  // Entries grouped by what must match exactly: precision, layout, transpositions.
  using Class = std::tuple<int, int, bool, bool>;
  std::vector<Stored> devices_;
  std::map<Class, std::vector<Entry>> entries_;
  std::size_t count_ = 0;
};

}  // namespace mmtune
