// Exchange formats: the whole database (or one device's part) as JSON and back, CLBlast's
// clblast_tuner_xgemm files in both directions, and a self-contained C++ header of the bests.
// Schemas and rules: docs/exchange.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "core/text.hpp"
#include "mmtune/device.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "store/import.hpp"
#include "store/store.hpp"

namespace mmtune {

inline constexpr const char* kExportFormat = "mmtune-export";
inline constexpr int kExportVersion = 1;
// Input limits: larger files and deeper nesting are refused before parsing.
inline constexpr std::uint64_t kMaxImportBytes = std::uint64_t(256) << 20;
inline constexpr int kMaxImportDepth = 64;
// No kernel launch completes in under a nanosecond: a shorter imported time is a broken one
// (a recorded kernel's time has no rate to bound it).
inline constexpr double kMinImportMs = 1e-6;
// No device reaches 10 PFLOPS: an imported figure above it is a broken time, not a result.
inline constexpr double kMaxImportGflops = 1e7;
// GB/s: only a bound against garbage (1 ZB/s), the one a spec's measurement has: its bytes may
// count traffic that caches serve.
inline constexpr double kMaxImportGbps = kMaxGbps;
// A GEMM result's GFLOPS and its time agree within this share (files written by hand round).
inline constexpr double kRateTolerance = 1e-3;
// The kernel name of CLBlast results that do not map onto the tiled kernel. Stored for
// reference only (config: the raw CLBlast parameters); never built.
inline constexpr const char* kClblastKernel = "clblast_xgemm";
inline constexpr const char* kClblastSource = "imported:clblast";
inline constexpr const char* kKernelTunerSource = "imported:kerneltuner";

// A recorded kernel's name: "kt:" and an identifier of at most 60 characters.
bool is_recorded_kernel(const std::string& kernel);
// Validates a recorded kernel's configuration text (NAME=INTEGER pairs, identifiers, no repeats)
// and returns it as it is; UsageError otherwise.
std::string canonical_recorded_config(const std::string& kernel, const std::string& config);

// The stored device that `spec` names: its key or a case-insensitive part of its name; the only
// stored device when `spec` is empty. Throws UsageError naming the stored devices otherwise.
DeviceInfo find_stored_device(Store& store, const std::string& spec);

// ---- export ---------------------------------------------------------------------------------

// Every device, session, measurement and best, or those of one device (non-empty key).
nlohmann::json export_json(Store& store, const std::string& device_key = "");

// The stored best tiled configuration of a device and problem in the layout of CLBlast's
// clblast_tuner_xgemm output (kernel family xgemm_1): the fastest CLBlast's Xgemm can run
// (IMG=0 PACK=1 KC=0), with a note for the user where the best is another routine. Throws
// UsageError when there is none.
struct ClblastExport {
  nlohmann::ordered_json file;
  std::string note;  // empty: the best itself was written
};
ClblastExport export_clblast(Store& store, const std::string& device_key,
                             const GemmProblem& problem);

// The measurements of one kernel (a searched family or a recorded kt:NAME one) for a device and
// problem as a Kernel Tuner cache file: the fastest time per configuration, failures as Kernel
// Tuner's failure strings. Throws UsageError when none are stored.
nlohmann::ordered_json export_kerneltuner(Store& store, const std::string& device_key,
                                          const GemmProblem& problem, const std::string& kernel);

// A C++17 header (only <cstddef>/<cstdint>) with a constexpr table of the bests and a lookup.
std::string export_header(Store& store, const std::string& device_key = "");

// ---- import ---------------------------------------------------------------------------------

// The problem a Kernel Tuner cache file was measured for, as its importer states it (the files
// name none). Only those files take one: mmtune exports and CLBlast files name their own, so a
// stated problem is refused there rather than ignored.
struct ImportProblem {
  // Implicit: a plain GemmProblem is one stated without its layout.
  ImportProblem(const GemmProblem& stated, bool stated_layout = false)
      : problem(stated), layout_stated(stated_layout) {}
  GemmProblem problem;
  // The layout or a transposition was given, not defaulted. An Xgemm file is always CLBlast's
  // layout, so a stated other one is refused; a defaulted one is replaced.
  bool layout_stated;
};

// Reads, validates and stores a file in one transaction: everything or nothing. Throws
// UsageError with a one-line reason for anything malformed, hostile or out of range.
ImportSummary import_file(Store& store, const std::string& path,
                          const std::optional<ImportProblem>& problem = std::nullopt);
// import_file's first half: reads and validates a file without touching any database, so that a
// refused file never creates one (store_import is the second half).
ImportData read_import_file(const std::string& path,
                            const std::optional<ImportProblem>& problem = std::nullopt);
// A regular file's text within the import size limit; UsageError otherwise.
std::string read_exchange_file(const std::string& path);
// The same for text already read. `name` names the input in messages and in the session of a
// CLBlast file; `timestamp` (ISO 8601) dates a CLBlast file's session and results, which carry no
// time of their own (import_file uses the file's modification time; empty: now).
ImportSummary import_text(Store& store, const std::string& text, const std::string& name,
                          const std::string& timestamp = "",
                          const std::optional<ImportProblem>& problem = std::nullopt);

// Parses JSON text with the size and depth limits above; UsageError when malformed.
nlohmann::json parse_exchange_json(const std::string& text);

// The validating readers behind import_text.
ImportData read_mmtune_export(const nlohmann::json& j);
bool is_clblast_tuner_file(const nlohmann::json& j);
ImportData read_clblast_tuner_file(const nlohmann::json& j, const std::string& name,
                                   const std::string& timestamp);
bool is_kerneltuner_cache(const nlohmann::json& j);
// Kernel Tuner's T4 results format (schema T4 1.0.0), as the cache file it amounts to: the kernel
// named after the file `name`, the device unknown.
bool is_t4_results(const nlohmann::json& j);
nlohmann::json t4_as_cache(const nlohmann::json& j, const std::string& name);
ImportData read_kerneltuner_cache(const nlohmann::json& j, const std::string& name,
                                  const std::string& timestamp,
                                  const std::optional<ImportProblem>& problem);

// The one session of a file written by another tuner (`tool`, e.g. "clblast_tuner_xgemm"): its
// command line names the file `name` (without its directory, so that another spelling of the
// path still matches), the importer is its mmtune version, the host is unknown.
ImportedSession foreign_session(const std::string& device_key, const std::string& tool,
                                const std::string& kernels, const std::string& space,
                                std::size_t results, const GemmProblem& problem,
                                const std::string& name, const std::string& timestamp);

// ---- CLBlast helpers ------------------------------------------------------------------------

// A driver version from an OpenCL platform version: the first token after "OpenCL x.y" that
// starts with a digit ("OpenCL 3.0 PoCL 3.1+debian Linux, ..." -> "3.1+debian"); the whole text
// when there is none.
std::string clblast_driver_version(const std::string& platform_version);

// CLBlast Xgemm parameters (name -> value) as a tiled configuration, when GEMMK=0, KREG=1 and
// the values lie in the tiled kernel's sets and constraints. Parameters that the configuration
// does not use (MDIMA without SA, ...) are pinned as the tiled space pins them.
std::optional<TiledConfig> tiled_from_clblast(const std::map<std::string, int>& params);

// Validates "NAME=value ..." with CLBlast Xgemm parameter names and returns it sorted by name
// (CLBlast's own order). Throws UsageError for unknown names, repeats or out-of-range values.
std::string canonical_clblast_parameters(const std::string& text);
std::map<std::string, int> clblast_parameter_map(const std::string& canonical);

// The best Xgemm parameters of one clblast_tuner_xgemm file, for clblast::OverrideParameters.
struct ClblastTunerBest {
  std::string family;  // xgemm_N
  int precision = 32;  // bits
  double time_ms = 0;  // CLBlast's best kernel time; NaN where the file gives none (or 0.00)
  std::map<std::string, int> parameters;  // validated names, PRECISION left out
};
// Validates the text like import does; UsageError when it is not a usable tuner file.
ClblastTunerBest read_clblast_tuner_best(const std::string& text, const std::string& name);

}  // namespace mmtune
