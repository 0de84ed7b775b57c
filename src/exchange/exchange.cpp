// The mmtune JSON exchange format (export and validating import), the C++ header export, and
// storing imported data. CLBlast's format lives in clblast_format.cpp.
#include "exchange/exchange.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <limits>
#include <set>
#include <tuple>

#include "core/status.hpp"
#include "mmtune/error.hpp"

namespace mmtune {
namespace {

using json = nlohmann::json;

// Length limits for imported strings.
constexpr std::size_t kNameMax = 1024;  // device fields, strategy, space, outcome
constexpr std::size_t kCommandLineMax = 16384;
constexpr std::size_t kConfigMax = 1024;
constexpr std::size_t kMessageMax = 1 << 20;  // build logs
constexpr std::size_t kTimestampMax = 64;
constexpr std::size_t kMaxItems = 10'000'000;  // rows per section
constexpr std::size_t kMaxSamples = 100'000;
constexpr std::int64_t kMaxDim = std::numeric_limits<int>::max();
constexpr double kMaxMs = 1e12;

const char* layout_name(Layout l) {
  return l == Layout::kRowMajor ? "row" : "col";
}

// A JSON value and where it sits in the file, so that every rejection names its place.
class Field {
 public:
  Field(const json& j, std::string where) : j_(j), where_(std::move(where)) {}
  const json& value() const { return j_; }
  bool is_null() const { return j_.is_null(); }

  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError((where_.empty() ? std::string("top level") : where_) + ": " + what);
  }

  const json::object_t& object() const {
    if (!j_.is_object()) fail("expected an object");
    return j_.get_ref<const json::object_t&>();
  }
  Field at(const std::string& key) const {
    const auto& o = object();
    const auto it = o.find(key);
    if (it == o.end()) Field(j_, join(key)).fail("missing");
    return Field(it->second, join(key));
  }
  // Absent or null: nullopt.
  std::optional<Field> optional(const std::string& key) const {
    const auto& o = object();
    const auto it = o.find(key);
    if (it == o.end() || it->second.is_null()) return std::nullopt;
    return Field(it->second, join(key));
  }
  const json::array_t& array(std::size_t max_items) const {
    if (!j_.is_array()) fail("expected an array");
    if (j_.size() > max_items) fail("more than " + std::to_string(max_items) + " items");
    return j_.get_ref<const json::array_t&>();
  }
  Field item(std::size_t i) const {
    return Field(j_.at(i), where_ + "[" + std::to_string(i) + "]");
  }

  // Text without control characters (`any_bytes`: anything, e.g. build logs).
  std::string text(std::size_t max_len, bool any_bytes = false) const {
    if (!j_.is_string()) fail("expected a string");
    const auto& s = j_.get_ref<const std::string&>();
    if (s.size() > max_len) fail("longer than " + std::to_string(max_len) + " bytes");
    if (!any_bytes) {
      for (unsigned char c : s) {
        if (c < 0x20 || c == 0x7f) fail("control character in text");
      }
    }
    return s;
  }
  std::int64_t integer(std::int64_t lo, std::int64_t hi) const {
    const std::string range = " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (j_.is_number_unsigned()) {
      const auto v = j_.get<std::uint64_t>();
      if (hi >= 0 && v <= std::uint64_t(hi) && std::int64_t(v) >= lo) return std::int64_t(v);
      fail("expected an integer" + range);
    }
    if (!j_.is_number_integer()) fail("expected an integer" + range);
    const auto v = j_.get<std::int64_t>();
    if (v < lo || v > hi) fail("expected an integer" + range);
    return v;
  }
  std::uint64_t unsigned_integer() const {
    if (!j_.is_number_unsigned()) fail("expected a non-negative integer");
    return j_.get<std::uint64_t>();
  }
  double number(double lo, double hi) const {
    if (!j_.is_number()) fail("expected a number");
    const double v = j_.get<double>();
    if (!std::isfinite(v) || v < lo || v > hi) fail("number out of range");
    return v;
  }
  bool boolean() const {
    if (!j_.is_boolean()) fail("expected true or false");
    return j_.get<bool>();
  }

 private:
  std::string join(const std::string& key) const {
    return where_.empty() ? key : where_ + "." + key;
  }
  const json& j_;
  std::string where_;
};

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

std::string read_device_key(const Field& f) {
  const std::string k = f.text(64);
  if (k.empty() || !std::all_of(k.begin(), k.end(), is_key_char)) {
    f.fail("a device key is 1-64 letters, digits, '_', '-' or '.'");
  }
  return k;
}

std::string read_source(const Field& f) {
  const std::string s = f.text(64);
  const bool ok = s == "measured" || (s.rfind("imported:", 0) == 0 && s.size() > 9 &&
                                      std::all_of(s.begin() + 9, s.end(), [](char c) {
                                        return std::islower(static_cast<unsigned char>(c)) ||
                                               std::isdigit(static_cast<unsigned char>(c)) ||
                                               c == '_' || c == '-';
                                      }));
  if (!ok) f.fail("source must be 'measured' or 'imported:NAME'");
  return s;
}

GemmProblem read_problem(const Field& f) {
  GemmProblem p;
  p.m = std::size_t(f.at("m").integer(1, kMaxDim));
  p.n = std::size_t(f.at("n").integer(1, kMaxDim));
  p.k = std::size_t(f.at("k").integer(1, kMaxDim));
  const auto bits = f.at("precision").integer(16, 64);
  if (bits != 16 && bits != 32 && bits != 64) f.at("precision").fail("expected 16, 32 or 64");
  p.precision = static_cast<Precision>(bits);
  const std::string layout = f.at("layout").text(8);
  if (layout != "row" && layout != "col") f.at("layout").fail("expected \"row\" or \"col\"");
  p.layout = layout == "col" ? Layout::kColMajor : Layout::kRowMajor;
  p.trans_a = f.at("trans_a").boolean();
  p.trans_b = f.at("trans_b").boolean();
  try {
    validate(p);
  } catch (const UsageError& e) {
    f.fail(e.what());
  }
  return p;
}

json problem_json(const GemmProblem& p) {
  return {{"m", p.m},
          {"n", p.n},
          {"k", p.k},
          {"precision", static_cast<int>(p.precision)},
          {"layout", layout_name(p.layout)},
          {"trans_a", p.trans_a},
          {"trans_b", p.trans_b}};
}

json nullable_real(const sql::Statement& s, int col) {
  return s.is_null(col) ? json(nullptr) : json(s.real(col));
}

// Only the numbers of a stored sample list (a damaged row exports as empty lists).
std::vector<double> samples_of(const json& samples, const char* key) {
  std::vector<double> out;
  if (!samples.is_object() || !samples.contains(key) || !samples[key].is_array()) return out;
  for (const auto& v : samples[key]) {
    if (v.is_number()) out.push_back(v.get<double>());
  }
  return out;
}

// Validates a kernel name and configuration; returns the canonical configuration text.
std::string read_config(const Field& kernel_field, const Field& config_field, bool clblast_ok,
                        std::string& kernel) {
  kernel = kernel_field.text(64);
  const std::string config = config_field.text(kConfigMax);
  try {
    if (const auto kind = parse_kernel_kind(kernel)) return to_string(parse_config(*kind, config));
    if (kernel == kClblastKernel && clblast_ok) return canonical_clblast_parameters(config);
  } catch (const UsageError& e) {
    config_field.fail(e.what());
  }
  kernel_field.fail("unknown kernel '" + kernel.substr(0, 64) + "'");
}

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

std::string file_timestamp(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return now_utc();
  std::tm tm{};
  gmtime_r(&st.st_mtime, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

// ---- devices --------------------------------------------------------------------------------

DeviceInfo find_stored_device(Store& store, const std::string& spec) {
  auto q = store.db().prepare("SELECT key FROM devices ORDER BY id");
  std::vector<std::string> keys;
  while (q.step()) keys.push_back(q.text(0));
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

json export_json(Store& store, const std::string& device_key) {
  auto& db = store.db();
  json devices = json::array(), sessions = json::array(), measurements = json::array(),
       bests = json::array();

  auto d = db.prepare(
      "SELECT key, vendor, name, driver_version, platform, platform_version, device_version, "
      "opencl_c_version, type, COALESCE(compute_units, 0), COALESCE(max_clock_mhz, 0), "
      "COALESCE(global_mem_bytes, 0), COALESCE(local_mem_bytes, 0), "
      "COALESCE(max_work_group_size, 0), source FROM devices WHERE (? = '' OR key = ?) "
      "ORDER BY id");
  d.bind(1, device_key).bind(2, device_key);
  while (d.step()) {
    devices.push_back({{"key", d.text(0)},
                       {"vendor", d.text(1)},
                       {"name", d.text(2)},
                       {"driver_version", d.text(3)},
                       {"platform", d.text(4)},
                       {"platform_version", d.text(5)},
                       {"device_version", d.text(6)},
                       {"opencl_c_version", d.text(7)},
                       {"type", d.text(8)},
                       {"compute_units", d.integer(9)},
                       {"max_clock_mhz", d.integer(10)},
                       {"global_mem_bytes", d.integer(11)},
                       {"local_mem_bytes", d.integer(12)},
                       {"max_work_group_size", d.integer(13)},
                       {"source", d.text(14)}});
  }

  auto s = db.prepare(
      "SELECT s.id, d.key, command_line, strategy, kernels, space, seed, budget, time_limit_s, "
      "m, n, k, precision, layout, trans_a, trans_b, started_at, ended_at, outcome, host, "
      "mmtune_version FROM sessions s JOIN devices d ON d.id = s.device_id WHERE (? = '' OR d.key "
      "= ?) "
      "ORDER BY s.id");
  s.bind(1, device_key).bind(2, device_key);
  while (s.step()) {
    sessions.push_back({{"id", s.integer(0)},
                        {"device_key", s.text(1)},
                        {"command_line", s.text(2)},
                        {"strategy", s.text(3)},
                        {"kernels", s.text(4)},
                        {"space", s.text(5)},
                        {"seed", std::uint64_t(s.integer(6))},
                        {"budget", s.integer(7)},
                        {"time_limit_s", s.real(8)},
                        {"problem", problem_json(read_problem(s, 9))},
                        {"started_at", s.text(16)},
                        {"ended_at", s.is_null(17) ? json(nullptr) : json(s.text(17))},
                        {"outcome", s.text(18)},
                        {"host", s.text(19)},
                        {"mmtune_version", s.text(20)}});
  }

  auto m = db.prepare(
      "SELECT m.id, m.session_id, d.key, kernel, config, m, n, k, precision, layout, trans_a, "
      "trans_b, status, message, build_s, median_ms, min_ms, max_ms, kernel_median_ms, gflops, "
      "kernel_gflops, max_error, samples, measured_at FROM measurements m "
      "JOIN devices d ON d.id = m.device_id WHERE (? = '' OR d.key = ?) ORDER BY m.id");
  m.bind(1, device_key).bind(2, device_key);
  while (m.step()) {
    const json samples = json::parse(m.text(22), nullptr, /*allow_exceptions=*/false);
    measurements.push_back({{"id", m.integer(0)},
                            {"session", m.is_null(1) ? json(nullptr) : json(m.integer(1))},
                            {"device_key", m.text(2)},
                            {"kernel", m.text(3)},
                            {"config", m.text(4)},
                            {"problem", problem_json(read_problem(m, 5))},
                            {"status", m.text(12)},
                            {"message", m.text(13)},
                            {"build_s", m.is_null(14) ? 0.0 : m.real(14)},
                            {"median_ms", nullable_real(m, 15)},
                            {"min_ms", nullable_real(m, 16)},
                            {"max_ms", nullable_real(m, 17)},
                            {"kernel_median_ms", nullable_real(m, 18)},
                            {"gflops", nullable_real(m, 19)},
                            {"kernel_gflops", nullable_real(m, 20)},
                            {"max_error", nullable_real(m, 21)},
                            {"routine_ms", samples_of(samples, "routine_ms")},
                            {"kernel_ms", samples_of(samples, "kernel_ms")},
                            {"measured_at", m.text(23)}});
  }

  auto b = db.prepare(
      "SELECT d.key, b.kernel, b.m, b.n, b.k, b.precision, b.layout, b.trans_a, b.trans_b, "
      "b.config, b.median_ms, b.gflops, b.kernel_gflops, b.measurement_id, b.updated_at "
      "FROM best b JOIN devices d ON d.id = b.device_id WHERE (? = '' OR d.key = ?) "
      "ORDER BY d.id, b.kernel, b.m, b.n, b.k, b.precision, b.layout, b.trans_a, b.trans_b");
  b.bind(1, device_key).bind(2, device_key);
  while (b.step()) {
    bests.push_back({{"device_key", b.text(0)},
                     {"kernel", b.text(1)},
                     {"problem", problem_json(read_problem(b, 2))},
                     {"config", b.text(9)},
                     {"median_ms", b.real(10)},
                     {"gflops", b.real(11)},
                     {"kernel_gflops", nullable_real(b, 12)},
                     {"measurement", b.integer(13)},
                     {"updated_at", b.text(14)}});
  }

  return {{"format", kExportFormat},      {"version", kExportVersion},
          {"exported_at", now_utc()},     {"mmtune_version", MMTUNE_VERSION},
          {"devices", devices},           {"sessions", sessions},
          {"measurements", measurements}, {"best", bests}};
}

// ---- header export --------------------------------------------------------------------------

std::string export_header(Store& store, const std::string& device_key) {
  auto b = store.db().prepare(
      "SELECT d.key, d.vendor, d.name, b.kernel, b.m, b.n, b.k, b.precision, b.layout, "
      "b.trans_a, b.trans_b, b.config, b.gflops FROM best b JOIN devices d ON d.id = b.device_id "
      "WHERE (? = '' OR d.key = ?) "
      "ORDER BY d.key, b.kernel, b.m, b.n, b.k, b.precision, b.layout, b.trans_a, b.trans_b");
  b.bind(1, device_key).bind(2, device_key);
  std::string rows;
  std::size_t count = 0, max_params = 1;
  while (b.step()) {
    // Only configurations that validate reach the table (a tampered row is left out).
    const auto params = parameters_of(b.text(3), b.text(11));
    if (!params) continue;
    max_params = std::max(max_params, params->first.size());
    std::string plist;
    for (std::size_t i = 0; i < params->first.size(); ++i) {
      plist += (i ? ", " : "") + std::string("{") + cpp_literal(params->first[i]) + ", " +
               std::to_string(params->second[i]) + "}";
    }
    rows += "    {" + cpp_literal(b.text(0)) + ", " + cpp_literal(b.text(1)) + ", " +
            cpp_literal(b.text(2)) + ", " + cpp_literal(b.text(3)) + ", " +
            std::to_string(b.integer(4)) + "u, " + std::to_string(b.integer(5)) + "u, " +
            std::to_string(b.integer(6)) + "u, " + std::to_string(b.integer(7)) + ", " +
            cpp_literal(b.text(8)) + ", " + (b.integer(9) ? "true" : "false") + ", " +
            (b.integer(10) ? "true" : "false") + ", " + std::to_string(params->first.size()) +
            "u, {" + plist + "}, " + cpp_double(b.real(12)) + "},\n";
    ++count;
  }
  // One extra, empty row keeps the array non-empty when nothing is stored.
  rows +=
      "    {nullptr, nullptr, nullptr, nullptr, 0u, 0u, 0u, 0, nullptr, false, false, 0u, {}, "
      "0.0},\n";

  std::string h;
  h += "// Tuned GEMM parameters exported by mmtune " MMTUNE_VERSION
       " (mmtune export --format "
       "header).\n"
       "// Generated file: regenerate instead of editing. C++17, no dependencies.\n"
       "#pragma once\n\n#include <cstddef>\n#include <cstdint>\n\nnamespace mmtune_tuned {\n\n";
  h += "inline constexpr std::size_t kMaxParameters = " + std::to_string(max_params) + ";\n\n";
  h += "struct Parameter {\n  const char* name;\n  std::int32_t value;\n};\n\n";
  h += "// The best configuration of one kernel for one device and problem. m, n, k, precision\n"
       "// (bits), layout (\"row\" or \"col\") and the transpositions describe the problem as the\n"
       "// caller sees it; gflops counts the whole routine.\n";
  h += "struct Entry {\n  const char* device_key;\n  const char* vendor;\n  const char* name;\n"
       "  const char* kernel;\n  std::size_t m, n, k;\n  int precision;\n  const char* layout;\n"
       "  bool trans_a, trans_b;\n  std::size_t parameter_count;\n"
       "  Parameter parameters[kMaxParameters];\n  double gflops;\n\n"
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
       "// of the \"tiled\" and \"direct\" entries (what mmtune best reports); otherwise that "
       "kernel's.\n"
       "constexpr const Entry* find(const char* device_key, std::size_t m, std::size_t n,\n"
       "                            std::size_t k, int precision = 32, const char* layout = "
       "\"row\",\n"
       "                            bool trans_a = false, bool trans_b = false,\n"
       "                            const char* kernel = nullptr) {\n"
       "  const Entry* found = nullptr;\n"
       "  for (std::size_t i = 0; i < kEntryCount; ++i) {\n"
       "    const Entry& e = kEntries[i];\n"
       "    if (!detail::equal(e.device_key, device_key) || e.m != m || e.n != n || e.k != k ||\n"
       "        e.precision != precision || !detail::equal(e.layout, layout) ||\n"
       "        e.trans_a != trans_a || e.trans_b != trans_b) {\n"
       "      continue;\n"
       "    }\n"
       "    const bool wanted = kernel != nullptr ? detail::equal(e.kernel, kernel)\n"
       "                                          : detail::equal(e.kernel, \"tiled\") ||\n"
       "                                                detail::equal(e.kernel, \"direct\");\n"
       "    if (wanted && (found == nullptr || e.gflops > found->gflops)) found = &e;\n"
       "  }\n"
       "  return found;\n"
       "}\n\n}  // namespace mmtune_tuned\n";
  return h;
}

// ---- import ---------------------------------------------------------------------------------

json parse_exchange_json(const std::string& text) {
  if (text.size() > kMaxImportBytes) {
    throw UsageError("input is larger than " + std::to_string(kMaxImportBytes >> 20) + " MiB");
  }
  // Depth first, so that no parser ever sees hostile nesting.
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxImportDepth) {
        throw UsageError("JSON nested deeper than " + std::to_string(kMaxImportDepth) + " levels");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    std::string what = e.what();
    if (const auto p = what.find("] ");
        what.rfind("[json.exception", 0) == 0 && p != std::string::npos) {
      what = what.substr(p + 2);
    }
    // The parser quotes what it read last: keep raw bytes out of a one-line message.
    for (char& c : what) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    throw UsageError("not valid JSON: " + what.substr(0, 300));
  }
}

ImportData read_mmtune_export(const json& j) {
  const Field root(j, "");
  if (root.at("format").text(64) != kExportFormat) root.at("format").fail("not an mmtune export");
  const auto version = root.at("version").integer(1, std::numeric_limits<int>::max());
  if (version != kExportVersion) {
    root.at("version").fail("format version " + std::to_string(version) +
                            " is not supported (this mmtune reads version " +
                            std::to_string(kExportVersion) + ")");
  }
  ImportData data;
  data.format = kExportFormat;

  std::map<std::string, std::string> source_of;  // device key -> source
  const Field devices = root.at("devices");
  for (std::size_t i = 0; i < devices.array(kMaxItems).size(); ++i) {
    const Field f = devices.item(i);
    ImportedDevice d;
    DeviceInfo& info = d.info;
    info.key = read_device_key(f.at("key"));
    info.vendor = f.at("vendor").text(kNameMax);
    info.name = f.at("name").text(kNameMax);
    info.driver_version = f.at("driver_version").text(kNameMax);
    info.platform_name = f.at("platform").text(kNameMax);
    info.platform_version = f.at("platform_version").text(kNameMax);
    info.device_version = f.at("device_version").text(kNameMax);
    info.opencl_c_version = f.at("opencl_c_version").text(kNameMax);
    info.type = f.at("type").text(64);
    info.compute_units = unsigned(f.at("compute_units").integer(0, 1 << 24));
    info.max_clock_mhz = unsigned(f.at("max_clock_mhz").integer(0, 1 << 24));
    info.global_mem_bytes =
        std::uint64_t(f.at("global_mem_bytes").integer(0, std::int64_t(1) << 60));
    info.local_mem_bytes = std::uint64_t(f.at("local_mem_bytes").integer(0, std::int64_t(1) << 60));
    info.max_work_group_size = std::size_t(f.at("max_work_group_size").integer(0, 1 << 30));
    const std::string source = read_source(f.at("source"));
    // Data measured elsewhere is imported here.
    d.source = source == "measured" ? "imported:mmtune" : source;
    if (!source_of.emplace(info.key, d.source).second) f.at("key").fail("device listed twice");
    data.devices.push_back(std::move(d));
  }
  const auto known_device = [&](const Field& f) {
    const std::string key = read_device_key(f);
    if (!source_of.count(key)) f.fail("device '" + key + "' is not in the file's devices");
    return key;
  };

  std::set<std::int64_t> session_ids;
  const Field sessions = root.at("sessions");
  for (std::size_t i = 0; i < sessions.array(kMaxItems).size(); ++i) {
    const Field f = sessions.item(i);
    ImportedSession is;
    SessionRecord& s = is.record;
    s.id = f.at("id").integer(1, std::numeric_limits<std::int64_t>::max());
    if (!session_ids.insert(s.id).second) f.at("id").fail("session id listed twice");
    s.device_key = known_device(f.at("device_key"));
    s.command_line = f.at("command_line").text(kCommandLineMax);
    s.strategy = f.at("strategy").text(kNameMax);
    s.kernels = f.at("kernels").text(kNameMax);
    s.space = f.at("space").text(kNameMax);
    s.seed = f.at("seed").unsigned_integer();
    s.budget = std::size_t(f.at("budget").integer(0, std::int64_t(1) << 40));
    s.time_limit_s = f.at("time_limit_s").number(0.0, 1e9);
    s.problem = read_problem(f.at("problem"));
    s.started_at = f.at("started_at").text(kTimestampMax);
    if (const auto e = f.optional("ended_at")) s.ended_at = e->text(kTimestampMax);
    s.outcome = f.at("outcome").text(kNameMax);
    if (const auto h = f.optional("host")) is.host = h->text(kNameMax);
    if (const auto v = f.optional("mmtune_version")) is.mmtune_version = v->text(kNameMax);
    data.sessions.push_back(std::move(is));
  }

  std::set<std::int64_t> measurement_ids;
  const Field measurements = root.at("measurements");
  for (std::size_t i = 0; i < measurements.array(kMaxItems).size(); ++i) {
    const Field f = measurements.item(i);
    MeasurementRecord r;
    if (const auto id = f.optional("id")) {
      r.id = id->integer(1, std::numeric_limits<std::int64_t>::max());
      if (!measurement_ids.insert(r.id).second) id->fail("measurement id listed twice");
    }
    if (const auto s = f.optional("session")) {
      r.session_id = s->integer(1, std::numeric_limits<std::int64_t>::max());
      if (!session_ids.count(r.session_id)) s->fail("no session with this id in the file");
    }
    r.device_key = known_device(f.at("device_key"));
    r.config = read_config(f.at("kernel"), f.at("config"),
                           source_of[r.device_key] == kClblastSource, r.kernel);
    r.problem = read_problem(f.at("problem"));
    Measurement& x = r.result;
    const auto status = parse_status(f.at("status").text(32));
    if (!status) f.at("status").fail("unknown status");
    x.status = *status;
    if (const auto msg = f.optional("message")) x.message = msg->text(kMessageMax, true);
    if (const auto b = f.optional("build_s")) x.build_seconds = b->number(0.0, 1e9);
    const auto samples = [&](const char* key) {
      std::vector<double> v;
      if (const auto a = f.optional(key)) {
        for (std::size_t k = 0; k < a->array(kMaxSamples).size(); ++k) {
          v.push_back(a->item(k).number(0.0, kMaxMs));
        }
      }
      return v;
    };
    x.routine_ms = samples("routine_ms");
    x.kernel_ms = samples("kernel_ms");
    // As in the store: the figures of a timed measurement, nothing for an untimed one.
    if (!x.routine_ms.empty()) {
      x.median_ms = f.at("median_ms").number(0.0, kMaxMs);
      x.min_ms = f.at("min_ms").number(0.0, kMaxMs);
      x.max_ms = f.at("max_ms").number(0.0, kMaxMs);
      x.kernel_median_ms = f.at("kernel_median_ms").number(0.0, kMaxMs);
      x.gflops = f.at("gflops").number(0.0, 1e12);
      x.kernel_gflops = f.at("kernel_gflops").number(0.0, 1e12);
    }
    x.max_error = std::numeric_limits<double>::quiet_NaN();
    if (const auto e = f.optional("max_error")) x.max_error = e->number(0.0, 1e300);
    r.measured_at = f.at("measured_at").text(kTimestampMax);
    data.measurements.push_back(std::move(r));
  }

  // Each best names one of the file's measurements (its figures are that measurement's).
  const Field bests = root.at("best");
  for (std::size_t i = 0; i < bests.array(kMaxItems).size(); ++i) {
    const Field f = bests.item(i);
    ImportedBest b;
    b.device_key = known_device(f.at("device_key"));
    b.kernel = f.at("kernel").text(kNameMax);  // must be its measurement's, checked on import
    b.problem = read_problem(f.at("problem"));
    b.measurement = f.at("measurement").integer(1, std::numeric_limits<std::int64_t>::max());
    if (!measurement_ids.count(b.measurement)) {
      f.at("measurement").fail("no measurement with this id in the file");
    }
    b.updated_at = f.at("updated_at").text(kTimestampMax);
    data.bests.push_back(std::move(b));
  }
  return data;
}

ImportSummary store_import(Store& store, const ImportData& data) {
  auto& db = store.db();
  ImportSummary sum;
  sum.format = data.format;
  sql::Transaction t(db);

  std::map<std::string, std::int64_t> device_ids;
  auto find_device = db.prepare("SELECT id FROM devices WHERE key = ?");
  auto add_device = db.prepare(
      "INSERT INTO devices (key, vendor, name, driver_version, platform, platform_version, "
      "device_version, opencl_c_version, type, compute_units, max_clock_mhz, global_mem_bytes, "
      "local_mem_bytes, max_work_group_size, source) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& [d, source] : data.devices) {
    find_device.reset();
    find_device.bind(1, d.key);
    if (find_device.step()) {  // an existing device keeps its own description and source
      device_ids[d.key] = find_device.integer(0);
      ++sum.devices_known;
      continue;
    }
    add_device.reset();
    add_device.bind(1, d.key).bind(2, d.vendor).bind(3, d.name).bind(4, d.driver_version);
    add_device.bind(5, d.platform_name).bind(6, d.platform_version).bind(7, d.device_version);
    add_device.bind(8, d.opencl_c_version).bind(9, d.type);
    add_device.bind(10, std::int64_t(d.compute_units)).bind(11, std::int64_t(d.max_clock_mhz));
    add_device.bind(12, std::int64_t(d.global_mem_bytes));
    add_device.bind(13, std::int64_t(d.local_mem_bytes)).bind(14, d.max_work_group_size);
    add_device.bind(15, source);
    add_device.run();
    device_ids[d.key] = db.last_insert_id();
    ++sum.devices_added;
  }
  const auto device_id = [&](const std::string& key) {
    const auto it = device_ids.find(key);
    if (it == device_ids.end()) throw UsageError("device '" + key + "' is not in the input");
    return it->second;
  };

  std::map<std::int64_t, std::int64_t> session_ids;  // the file's id -> the database's
  auto find_session = db.prepare(
      "SELECT id FROM sessions WHERE device_id = ? AND started_at = ? AND command_line = ?");
  auto add_session = db.prepare(
      "INSERT INTO sessions (device_id, command_line, strategy, kernels, space, seed, budget, "
      "time_limit_s, m, n, k, precision, layout, trans_a, trans_b, started_at, ended_at, outcome, "
      "host, mmtune_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& [s, host, version] : data.sessions) {
    const std::int64_t dev = device_id(s.device_key);
    find_session.reset();
    find_session.bind(1, dev).bind(2, s.started_at).bind(3, s.command_line);
    if (find_session.step()) {
      session_ids[s.id] = find_session.integer(0);
      ++sum.sessions_known;
      continue;
    }
    add_session.reset();
    add_session.bind(1, dev).bind(2, s.command_line).bind(3, s.strategy).bind(4, s.kernels);
    add_session.bind(5, s.space).bind(6, std::int64_t(s.seed)).bind(7, s.budget);
    add_session.bind(8, s.time_limit_s);
    bind_problem(add_session, 9, s.problem);
    add_session.bind(16, s.started_at);
    add_session.bind(17,
                     s.ended_at.empty() ? std::nullopt : std::optional<std::string>(s.ended_at));
    add_session.bind(18, s.outcome).bind(19, host).bind(20, version);
    add_session.run();
    session_ids[s.id] = db.last_insert_id();
    ++sum.sessions_added;
  }

  // The target's bests before the import, for the file's bests to be weighed against.
  std::map<std::tuple<std::string, std::string, std::string>, std::string> updated_before;
  for (const auto& b : data.bests) {
    const auto key = std::tuple(b.device_key, b.kernel, describe(b.problem));
    if (const auto old = store.best(b.device_key, b.problem, b.kernel)) {
      updated_before[key] = old->updated_at;
    }
  }

  std::map<std::int64_t, MeasurementRecord> by_file_id;  // with the database's id
  auto find_measurement = db.prepare(
      "SELECT id FROM measurements WHERE device_id = ? AND m = ? AND n = ? AND k = ? AND "
      "precision = ? AND layout = ? AND trans_a = ? AND trans_b = ? AND kernel = ? AND "
      "config = ? AND measured_at = ? AND status = ? AND median_ms IS NOT DISTINCT FROM ? LIMIT 1");
  for (const auto& m : data.measurements) {
    const Measurement& r = m.result;
    const std::int64_t dev = device_id(m.device_key);
    const bool timed = !r.routine_ms.empty();
    const auto opt = [&](double v) { return timed ? std::optional<double>(v) : std::nullopt; };
    find_measurement.reset();
    find_measurement.bind(1, dev);
    bind_problem(find_measurement, 2, m.problem);
    find_measurement.bind(9, m.kernel).bind(10, m.config).bind(11, m.measured_at);
    find_measurement.bind(12, to_string(r.status)).bind(13, opt(r.median_ms));
    if (find_measurement.step()) {
      if (m.id) by_file_id[m.id] = m, by_file_id[m.id].id = find_measurement.integer(0);
      ++sum.measurements_known;
      continue;
    }
    std::optional<std::int64_t> session;
    if (m.session_id) {
      const auto it = session_ids.find(m.session_id);
      if (it == session_ids.end()) throw UsageError("a measurement names an unknown session");
      session = it->second;
    }
    MeasurementRecord rec = m;
    rec.session_id = session.value_or(0);
    rec.id = store.insert_measurement(rec);  // inside this import's transaction
    if (m.id) by_file_id[m.id] = rec;
    ++sum.measurements_added;
  }
  // Inserting made the fastest measurements the bests. A best of the file that is newer than
  // the target's own (it may be a confirmed one, not the fastest) takes its place, as it would
  // have on the machine that made it.
  for (const auto& b : data.bests) {
    const auto it = updated_before.find(std::tuple(b.device_key, b.kernel, describe(b.problem)));
    const auto m = by_file_id.find(b.measurement);
    if (m == by_file_id.end() || m->second.result.status != Status::kOk ||
        m->second.result.routine_ms.empty() || m->second.kernel != b.kernel ||
        m->second.device_key != b.device_key) {
      throw UsageError("a best names a measurement that is not a timed Ok one of its kernel");
    }
    if (it == updated_before.end() || it->second < b.updated_at) store.put_best(m->second);
  }
  t.commit();
  return sum;
}

ImportSummary import_text(Store& store, const std::string& text, const std::string& name,
                          const std::string& timestamp) {
  ImportData data;
  try {
    const json j = parse_exchange_json(text);
    if (j.is_object() && j.contains("format")) {
      data = read_mmtune_export(j);
    } else if (is_clblast_tuner_file(j)) {
      data = read_clblast_tuner_file(j, name, timestamp.empty() ? now_utc() : timestamp);
    } else {
      throw UsageError("neither an mmtune export nor a CLBlast tuner file");
    }
  } catch (const UsageError& e) {
    throw UsageError("cannot import '" + name + "': " + e.what());
  }
  return store_import(store, data);
}

std::string read_exchange_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw UsageError("cannot read '" + path + "': no such file");
  // "read", not "import": bench --clblast-tuned reads its files through here too.
  if (!S_ISREG(st.st_mode)) throw UsageError("cannot read '" + path + "': not a regular file");
  if (std::uint64_t(st.st_size) > kMaxImportBytes) {
    throw UsageError("cannot read '" + path + "': larger than " +
                     std::to_string(kMaxImportBytes >> 20) + " MiB");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read '" + path + "'");
  std::string text;
  text.resize(std::size_t(st.st_size));
  in.read(text.data(), std::streamsize(text.size()));
  if (std::size_t(in.gcount()) != text.size()) throw UsageError("cannot read '" + path + "'");
  return text;
}

ImportSummary import_file(Store& store, const std::string& path) {
  return import_text(store, read_exchange_file(path), path, file_timestamp(path));
}

}  // namespace mmtune
