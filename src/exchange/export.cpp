// The mmtune JSON export and the generated C++ header (docs/exchange.md); the rows come from the
// store (store/export_rows.hpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/text.hpp"
#include "exchange/exchange.hpp"
#include "mmtune/error.hpp"
#include "store/export_rows.hpp"

namespace mmtune {
namespace {

using json = nlohmann::json;

// The parameter names and values of a stored configuration; nullopt when it does not validate.
std::optional<std::pair<std::vector<std::string>, std::vector<int>>> parameters_of(
    const std::string& kernel, const std::string& config) {
  try {
    if (const auto kind = parse_kernel_kind(kernel)) {
      return std::make_pair(parameter_names(*kind), parameter_values(parse_config(*kind, config)));
    }
    if (kernel == kClblastKernel) {
      std::pair<std::vector<std::string>, std::vector<int>> out;
      for (const auto& [name, value] :
           clblast_parameter_map(canonical_clblast_parameters(config))) {
        out.first.push_back(name);
        out.second.push_back(value);
      }
      return out;
    }
  } catch (const UsageError&) {
  }
  return std::nullopt;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A C++ string literal: printable ASCII as is, everything else (and '?', against trigraph
// warnings) as three-digit octal escapes, which unlike \x cannot run into the next character.
std::string cpp_literal(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c >= 0x20 && c < 0x7f && c != '?') {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  return out + "\"";
}

std::string cpp_double(double v) {
  if (!std::isfinite(v)) v = 0.0;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

// ---- devices --------------------------------------------------------------------------------

DeviceInfo find_stored_device(Store& store, const std::string& spec) {
  const std::vector<std::string> keys = rows::device_keys(store);
  if (keys.empty()) throw UsageError("the database holds no device yet");
  std::vector<DeviceInfo> matches;
  std::string all;
  for (const auto& k : keys) {
    const auto d = store.device(k);
    if (k == spec) return *d;  // a key wins over name matches
    all += (all.empty() ? "" : ", ") + d->name + " (" + k + ")";
    if (spec.empty() || lower(d->name).find(lower(spec)) != std::string::npos) {
      matches.push_back(*d);
    }
  }
  if (matches.size() == 1) return matches.front();
  if (spec.empty()) throw UsageError("several devices are stored: " + all + " (use --device)");
  throw UsageError(std::string(matches.empty() ? "no stored device matches '"
                                               : "several stored devices match '") +
                   spec + "': " + all + " (use --device with a key)");
}

// ---- JSON export ----------------------------------------------------------------------------

namespace {

// A session's command line as the import takes it: databases of older versions hold argv as
// typed, with newlines, escapes and invalid UTF-8, and of any length.
json export_sessions(Store& store, const std::string& device_key) {
  json sessions = rows::export_sessions(store, device_key);
  for (auto& s : sessions)
    s["command_line"] = single_line(s["command_line"].get<std::string>(), kMaxCommandLineBytes);
  return sessions;
}

}  // namespace

json export_json(Store& store, const std::string& device_key) {
  return {{"format", kExportFormat},
          {"version", kExportVersion},
          {"exported_at", now_utc()},
          {"mmtune_version", MMTUNE_VERSION},
          {"devices", rows::export_devices(store, device_key)},
          {"sessions", export_sessions(store, device_key)},
          {"measurements", rows::export_measurements(store, device_key)},
          {"best", rows::export_bests(store, device_key)}};
}

// ---- header export --------------------------------------------------------------------------

std::string export_header(Store& store, const std::string& device_key) {
  std::string rows;
  std::size_t count = 0, max_params = 1;
  for (const rows::HeaderBest& b : rows::header_bests(store, device_key)) {
    // Only configurations that validate reach the table (a tampered row is left out).
    const auto params = parameters_of(b.kernel, b.config);
    if (!params) continue;
    max_params = std::max(max_params, params->first.size());
    std::string plist;
    for (std::size_t i = 0; i < params->first.size(); ++i) {
      plist += (i ? ", " : "") + std::string("{") + cpp_literal(params->first[i]) + ", " +
               std::to_string(params->second[i]) + "}";
    }
    const GemmProblem& p = b.p;
    rows += "    {" + cpp_literal(b.key) + ", " + cpp_literal(b.vendor) + ", " +
            cpp_literal(b.name) + ", " + cpp_literal(b.kernel) + ", " + std::to_string(p.m) +
            "u, " + std::to_string(p.n) + "u, " + std::to_string(p.k) + "u, " +
            std::to_string(static_cast<int>(p.precision)) + ", " +
            cpp_literal(p.layout == Layout::kColMajor ? "col" : "row") + ", " +
            (p.trans_a ? "true" : "false") + ", " + (p.trans_b ? "true" : "false") + ", " +
            std::to_string(p.batch) + "u, " + std::to_string(params->first.size()) + "u, {" +
            plist + "}, " + cpp_double(b.gflops) + ", " + cpp_double(b.median_ms) + "},\n";
    ++count;
  }
  // One extra, empty row keeps the array non-empty when nothing is stored.
  rows +=
      "    {nullptr, nullptr, nullptr, nullptr, 0u, 0u, 0u, 0, nullptr, false, false, 0u, 0u, {}, "
      "0.0, 0.0},\n";

  std::string h;
  h += "// Tuned GEMM parameters exported by mmtune " MMTUNE_VERSION
       " (mmtune export --format "
       "header).\n"
       "// Generated file: regenerate instead of editing. C++17, no dependencies.\n"
       "#pragma once\n\n#include <cstddef>\n#include <cstdint>\n\nnamespace mmtune_tuned {\n\n";
  h += "inline constexpr std::size_t kMaxParameters = " + std::to_string(max_params) + ";\n\n";
  h += "struct Parameter {\n  const char* name;\n  std::int32_t value;\n};\n\n";
  h += "// The best configuration of one kernel for one device and problem. m, n, k, precision\n"
       "// (bits), layout (\"row\" or \"col\"), the transpositions and batch (multiplications per\n"
       "// call) describe the problem as the caller sees it; gflops counts the whole routine (0:\n"
       "// unknown, as in an imported best), median_ms is its median time.\n";
  h += "struct Entry {\n  const char* device_key;\n  const char* vendor;\n  const char* name;\n"
       "  const char* kernel;\n  std::size_t m, n, k;\n  int precision;\n  const char* layout;\n"
       "  bool trans_a, trans_b;\n  std::size_t batch;\n  std::size_t parameter_count;\n"
       "  Parameter parameters[kMaxParameters];\n  double gflops;\n  double median_ms;\n\n"
       "  // The value of a parameter, or `fallback` when this entry has none of that name.\n"
       "  constexpr std::int32_t get(const char* parameter, std::int32_t fallback = -1) const;\n"
       "};\n\n";
  h += "inline constexpr std::size_t kEntryCount = " + std::to_string(count) + ";\n";
  h += "inline constexpr Entry kEntries[kEntryCount + 1] = {\n" + rows + "};\n\n";
  h += "namespace detail {\n"
       "constexpr bool equal(const char* a, const char* b) {\n"
       "  if (a == nullptr || b == nullptr) return a == b;\n"
       "  while (*a != '\\0' && *a == *b) ++a, ++b;\n"
       "  return *a == *b;\n"
       "}\n"
       "}  // namespace detail\n\n";
  h += "constexpr std::int32_t Entry::get(const char* parameter, std::int32_t fallback) const {\n"
       "  for (std::size_t i = 0; i < parameter_count; ++i) {\n"
       "    if (detail::equal(parameters[i].name, parameter)) return parameters[i].value;\n"
       "  }\n"
       "  return fallback;\n"
       "}\n\n";
  h += "// The entry for a device key and problem, or nullptr. With kernel == nullptr, the faster\n"
       "// of the \"tiled\" and \"direct\" entries by median time (what mmtune best reports);\n"
       "// otherwise that kernel's.\n"
       "constexpr const Entry* find(const char* device_key, std::size_t m, std::size_t n,\n"
       "                            std::size_t k, int precision = 32, const char* layout = "
       "\"row\",\n"
       "                            bool trans_a = false, bool trans_b = false,\n"
       "                            const char* kernel = nullptr, std::size_t batch = 1) {\n"
       "  const Entry* found = nullptr;\n"
       "  for (std::size_t i = 0; i < kEntryCount; ++i) {\n"
       "    const Entry& e = kEntries[i];\n"
       "    if (!detail::equal(e.device_key, device_key) || e.m != m || e.n != n || e.k != k ||\n"
       "        e.precision != precision || !detail::equal(e.layout, layout) ||\n"
       "        e.trans_a != trans_a || e.trans_b != trans_b || e.batch != batch) {\n"
       "      continue;\n"
       "    }\n"
       "    const bool wanted = kernel != nullptr ? detail::equal(e.kernel, kernel)\n"
       "                                          : detail::equal(e.kernel, \"tiled\") ||\n"
       "                                                detail::equal(e.kernel, \"direct\");\n"
       "    if (wanted && (found == nullptr || e.median_ms < found->median_ms)) found = &e;\n"
       "  }\n"
       "  return found;\n"
       "}\n\n}  // namespace mmtune_tuned\n";
  return h;
}

}  // namespace mmtune
