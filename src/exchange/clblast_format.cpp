// CLBlast's clblast_tuner_xgemm JSON files: reading them into the store (GEMMK=0 results become
// tiled-kernel measurements, the rest are kept under "clblast_xgemm") and writing our best tiled
// configuration in their layout. See docs/exchange.md.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <sstream>

#include "exchange/exchange.hpp"
#include "family/config_text.hpp"
#include "mmtune/error.hpp"
#include "store/queries.hpp"

namespace mmtune {
namespace {

using json = nlohmann::json;

constexpr std::size_t kTextMax = 1024;
constexpr std::size_t kMaxResults = 1'000'000;
constexpr int kMaxParameterValue = 4096;

// Every parameter CLBlast's Xgemm tuner writes (all GEMMK and KREG variants).
const char* const kXgemmParameters[] = {"GEMMK", "KREG",  "KWG",   "KWI", "MDIMA",     "MDIMC",
                                        "MWG",   "NDIMB", "NDIMC", "NWG", "PRECISION", "SA",
                                        "SB",    "STRM",  "STRN",  "VWM", "VWN"};

bool known_parameter(const std::string& name) {
  return std::find(std::begin(kXgemmParameters), std::end(kXgemmParameters), name) !=
         std::end(kXgemmParameters);
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw UsageError(where + ": " + what);
}

std::string checked_text(const json& v, const std::string& where) {
  if (!v.is_string()) bad(where, "expected a string");
  const auto& s = v.get_ref<const std::string&>();
  if (s.size() > kTextMax) bad(where, "longer than " + std::to_string(kTextMax) + " bytes");
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) bad(where, "control character in text");
  }
  return s;
}

// A metadata string; empty when absent.
std::string meta(const json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() || it->is_null() ? std::string() : checked_text(*it, key);
}

// A non-negative integer that CLBlast writes as a string ("1024") or a number.
std::int64_t meta_integer(const json& j, const char* key, std::int64_t hi, bool required) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) bad(key, "missing");
    return 0;
  }
  std::int64_t v = -1;
  if (it->is_number_unsigned()) {
    v = it->get<std::uint64_t>() > std::uint64_t(hi) ? -1 : std::int64_t(it->get<std::uint64_t>());
  } else if (it->is_string()) {
    const std::string s = checked_text(*it, key);
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) v = -1;
  } else {
    bad(key, "expected an integer");
  }
  if (v < 0 || v > hi) bad(key, "expected an integer in [0, " + std::to_string(hi) + "]");
  return v;
}

std::map<std::string, int> read_parameters(const json& p, const std::string& where) {
  if (!p.is_object()) bad(where, "expected an object");
  std::map<std::string, int> out;
  for (const auto& [name, value] : p.items()) {
    if (!known_parameter(name)) bad(where, "unknown parameter '" + name.substr(0, 40) + "'");
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
        value.get<std::int64_t>() > kMaxParameterValue) {
      bad(where + "." + name,
          "expected an integer in [0, " + std::to_string(kMaxParameterValue) + "]");
    }
    out[name] = int(value.get<std::int64_t>());
  }
  return out;
}

std::string parameters_text(const std::map<std::string, int>& params) {
  std::string s;
  for (const auto& [name, value] : params) {
    s += (s.empty() ? "" : " ") + name + "=" + std::to_string(value);
  }
  return s;
}

// CLBlast writes milliseconds with two decimals; a shorter time keeps three digits ("0.00411"),
// since "0.00" would read as no time at all.
std::string clblast_ms(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, v >= 1.0 ? "%.2f" : "%.3g", v);
  return buf;
}

}  // namespace

namespace {

// The parameters as CLBlast names them, each a known name once with a value in range.
std::map<std::string, int> clblast_parameters(const std::string& text) {
  std::map<std::string, int> params;
  for (const auto& [name, value] : config_items(text)) {
    if (!value || !known_parameter(name)) {
      throw UsageError("unknown CLBlast parameter '" + name.substr(0, 40) + "'");
    }
    const auto v = whole_int(*value);
    if (!v || *v < 0 || *v > kMaxParameterValue || !params.emplace(name, *v).second) {
      throw UsageError("invalid or repeated value for CLBlast parameter " + name);
    }
  }
  if (params.empty()) throw UsageError("empty CLBlast parameter list");
  return params;
}

}  // namespace

std::string canonical_clblast_parameters(const std::string& text) {
  return parameters_text(clblast_parameters(text));
}

std::map<std::string, int> clblast_parameter_map(const std::string& canonical) {
  return clblast_parameters(canonical);
}

std::string clblast_driver_version(const std::string& platform_version) {
  std::istringstream in(platform_version);
  std::string word, version;
  in >> word >> version;  // "OpenCL" "3.0"
  if (word == "OpenCL") {
    while (in >> word) {
      if (std::isdigit(static_cast<unsigned char>(word.front()))) return word;
      // AMD writes "AMD-APP (3513.0)".
      if (word.front() == '(' && word.size() > 2 && word.back() == ')' &&
          std::isdigit(static_cast<unsigned char>(word[1]))) {
        return word.substr(1, word.size() - 2);
      }
    }
  }
  return platform_version;
}

std::optional<TiledConfig> tiled_from_clblast(const std::map<std::string, int>& params) {
  const auto get = [&](const char* name, int fallback) {
    const auto it = params.find(name);
    return it == params.end() ? fallback : it->second;
  };
  // Files from CLBlast before 1.5 have no GEMMK/KREG: their kernel is GEMMK=0, KREG=1.
  if (get("GEMMK", 0) != 0 || get("KREG", 1) != 1) return std::nullopt;
  std::map<std::string, int> p;
  for (const char* name : {"MWG", "NWG", "KWG", "MDIMC", "NDIMC", "MDIMA", "NDIMB", "KWI", "VWM",
                           "VWN", "STRM", "STRN", "SA", "SB"}) {
    const int v = get(name, -1);
    if (v < 0) return std::nullopt;
    p[name] = v;
  }
  // Pin what the configuration does not use, as the tiled space does (same kernel either way).
  if (p["SA"] == 0) p["MDIMA"] = p["MDIMC"];
  if (p["SB"] == 0) p["NDIMB"] = p["NDIMC"];
  if (p["MDIMC"] > 0 && p["VWM"] > 0 && p["MWG"] / p["MDIMC"] == p["VWM"]) p["STRM"] = 0;
  if (p["NDIMC"] > 0 && p["VWN"] > 0 && p["NWG"] / p["NDIMC"] == p["VWN"]) p["STRN"] = 0;
  try {
    return parse_config(KernelKind::kTiled, parameters_text(p)).as<TiledConfig>();
  } catch (const UsageError&) {
    return std::nullopt;
  }
}

bool is_clblast_tuner_file(const json& j) {
  return j.is_object() && j.contains("kernel_family") &&
         (j.contains("best_parameters") || j.contains("results"));
}

ImportData read_clblast_tuner_file(const json& j, const std::string& name,
                                   const std::string& timestamp) {
  if (!is_clblast_tuner_file(j)) bad("top level", "not a CLBlast tuner file");
  const std::string family = meta(j, "kernel_family");
  const bool xgemm = family.rfind("xgemm_", 0) == 0 && family.size() > 6 && family.size() <= 9 &&
                     std::all_of(family.begin() + 6, family.end(),
                                 [](unsigned char c) { return std::isdigit(c); });
  if (!xgemm) {
    bad("kernel_family", "'" + family.substr(0, 40) +
                             "' is not supported (only clblast_tuner_xgemm files, xgemm_N)");
  }
  const auto bits = meta_integer(j, "precision", 6464, true);
  if (bits != 16 && bits != 32 && bits != 64) {
    bad("precision", std::to_string(bits) + " is not supported (16, 32 or 64)");
  }
  // Validated although not stored: the file must be well-formed throughout.
  if (j.contains("best_parameters")) {
    try {
      canonical_clblast_parameters(checked_text(j["best_parameters"], "best_parameters"));
    } catch (const UsageError& e) {
      bad("best_parameters", e.what());
    }
  }

  ImportedDevice dev;
  DeviceInfo& d = dev.info;
  d.vendor = meta(j, "device_vendor");
  if (d.vendor.empty()) d.vendor = meta(j, "clblast_device_vendor");
  d.name = meta(j, "clblast_device_name");
  if (d.name.empty()) d.name = meta(j, "device");
  if (d.vendor.empty() || d.name.empty()) bad("device", "the file names no device or vendor");
  d.type = meta(j, "device_type");
  if (d.type.empty()) d.type = meta(j, "clblast_device_type");
  if (d.type.size() > 64) bad("device_type", "longer than 64 bytes");
  d.platform_name = meta(j, "platform_vendor");
  d.platform_version = meta(j, "platform_version");
  d.driver_version = clblast_driver_version(d.platform_version);
  d.compute_units = unsigned(meta_integer(j, "device_compute_units", 1 << 24, false));
  d.max_clock_mhz = unsigned(meta_integer(j, "device_core_clock", 1 << 24, false));
  d.key = device_key(d.vendor, d.name, d.driver_version);
  dev.source = kClblastSource;

  // CLBlast's kernel computes the column-major problem whose A is K x M with m contiguous and B
  // is K x N with n contiguous: C = A B^T in column-major terms, no copies needed.
  GemmProblem p;
  p.m = std::size_t(meta_integer(j, "arg_m", std::numeric_limits<int>::max(), true));
  p.n = std::size_t(meta_integer(j, "arg_n", std::numeric_limits<int>::max(), true));
  p.k = std::size_t(meta_integer(j, "arg_k", std::numeric_limits<int>::max(), true));
  p.precision = static_cast<Precision>(bits);
  p.layout = Layout::kColMajor;
  p.trans_a = false;
  p.trans_b = true;
  try {
    validate(p);
  } catch (const UsageError& e) {
    bad("arg_m/arg_n/arg_k", e.what());
  }

  const auto it = j.find("results");
  if (it == j.end() || !it->is_array()) bad("results", "expected an array");
  if (it->size() > kMaxResults) bad("results", "too many results");

  ImportData data;
  data.format = "clblast";
  data.dated_by_file = true;
  data.devices.push_back(dev);
  data.sessions.push_back(foreign_session(d.key, "clblast_tuner_xgemm", family, "clblast",
                                          it->size(), p, name, timestamp));
  const SessionRecord& s = data.sessions.back().record;

  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& r = (*it)[i];
    const std::string where = "results[" + std::to_string(i) + "]";
    if (!r.is_object()) bad(where, "expected an object");
    if (r.contains("kernel")) checked_text(r["kernel"], where + ".kernel");
    if (!r.contains("time") || !r["time"].is_number()) bad(where + ".time", "expected a number");
    const double ms = r["time"].get<double>();
    if (!std::isfinite(ms) || ms <= 0.0 || ms > 1e9) bad(where + ".time", "out of range");
    if (ms < kMinImportMs) bad(where + ".time", "too short to be a measurement");
    if (!r.contains("parameters")) bad(where + ".parameters", "missing");
    const auto params = read_parameters(r["parameters"], where + ".parameters");
    if (params.count("PRECISION") && params.at("PRECISION") != bits) {
      bad(where + ".parameters.PRECISION", "differs from the file's precision");
    }
    MeasurementRecord m;
    m.session_id = s.id;
    m.device_key = d.key;
    m.problem = p;
    if (const auto tiled = tiled_from_clblast(params)) {
      m.kernel = kernel_name(KernelKind::kTiled);
      m.config = to_string(KernelConfig(*tiled));
    } else {
      m.kernel = kClblastKernel;
      m.config = parameters_text(params);
      if (params.empty()) bad(where + ".parameters", "empty");
    }
    Measurement& x = m.result;
    x.status = Status::kOk;
    // CLBlast times the kernel alone, on operands already in the kernel's form: that is this
    // problem's whole routine too.
    x.routine_ms = x.kernel_ms = {ms};
    x.median_ms = x.min_ms = x.max_ms = x.kernel_median_ms = ms;
    x.gflops = x.kernel_gflops = p.flops() / (ms * 1e6);
    if (x.gflops > kMaxImportGflops) bad(where + ".time", "too short to be a measurement");
    x.max_error = std::numeric_limits<double>::quiet_NaN();  // not recorded by CLBlast
    m.measured_at = timestamp;
    data.measurements.push_back(std::move(m));
  }
  return data;
}

ClblastExport export_clblast(Store& store, const std::string& device_key,
                             const GemmProblem& problem) {
  const auto device = store.device(device_key);
  if (!device) throw UsageError("no stored device with key '" + device_key + "'");
  const std::string tiled = kernel_name(KernelKind::kTiled);
  const auto best = store.best(device_key, problem, tiled);
  if (!best) {
    throw UsageError("no stored tiled result for " + describe(problem) + " on " + device->name +
                     rows::measured_hint(store, device_key, tiled));
  }
  // CLBlast's Xgemm is the tiled kernel on packed buffers launched once over all of k. A best
  // that reads images, the caller's own buffers or k in slices is another routine: the fastest
  // configuration CLBlast can run is exported instead, its kernel time as CLBlast measures it.
  const auto runnable = [](const TiledConfig& c) { return !c.IMG && c.PACK == 1 && c.KC == 0; };
  // The stored text is validated again before it is handed to another tool.
  auto config = *parse_config(KernelKind::kTiled, best->config).as<TiledConfig>();
  double kernel_ms = best->median_ms;
  if (const auto k = rows::kernel_median_ms(store, best->measurement_id); k && *k > 0.0) {
    kernel_ms = *k;
  }
  std::string note;
  if (!runnable(config)) {
    std::optional<TiledConfig> chosen;
    for (const auto& m : store.measurements(device_key, problem, tiled)) {
      if (m.result.status != Status::kOk || !(m.result.median_ms > 0.0)) continue;
      const auto c = *parse_config(KernelKind::kTiled, m.config).as<TiledConfig>();
      const double ms =
          m.result.kernel_median_ms > 0.0 ? m.result.kernel_median_ms : m.result.median_ms;
      if (runnable(c) && (!chosen || ms < kernel_ms)) chosen = c, kernel_ms = ms;
    }
    if (!chosen) {
      throw UsageError(
          "no configuration CLBlast's Xgemm can run (IMG=0 PACK=1 KC=0) was measured "
          "for " +
          describe(problem) + " on " + device->name + "; the best is " + best->config);
    }
    note = "the best for " + describe(problem) + " on " + device->name + " (" + best->config +
           ") is not one CLBlast's Xgemm runs: exported the fastest that is, " +
           to_string(KernelConfig(*chosen));
    config = *chosen;
  }

  const int bits = static_cast<int>(problem.precision);
  std::map<std::string, int> params = {{"GEMMK", 0},
                                       {"KREG", 1},
                                       {"KWG", config.KWG},
                                       {"KWI", config.KWI},
                                       {"MDIMA", config.MDIMA},
                                       {"MDIMC", config.MDIMC},
                                       {"MWG", config.MWG},
                                       {"NDIMB", config.NDIMB},
                                       {"NDIMC", config.NDIMC},
                                       {"NWG", config.NWG},
                                       {"PRECISION", bits},
                                       {"SA", config.SA},
                                       {"SB", config.SB},
                                       {"STRM", config.STRM},
                                       {"STRN", config.STRN},
                                       {"VWM", config.VWM},
                                       {"VWN", config.VWN}};
  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  for (const auto& [name, value] : params) parameters[name] = value;
  // CLBlast's M and N are those of the column-major form of the problem.
  const ColMajorProblem cm = to_col_major(problem);
  nlohmann::ordered_json out;
  out["kernel_family"] = "xgemm_1";
  out["precision"] = std::to_string(bits);
  out["best_kernel"] = "Xgemm";
  out["best_time"] = clblast_ms(kernel_ms);
  out["best_parameters"] = parameters_text(params);
  out["arg_m"] = std::to_string(cm.m);
  out["arg_n"] = std::to_string(cm.n);
  out["arg_k"] = std::to_string(cm.k);
  out["arg_alpha"] = "1.00";
  out["arg_beta"] = "0.00";
  out["clblast_device_type"] = device->type;
  out["clblast_device_vendor"] = device->vendor;
  out["clblast_device_architecture"] = "";
  out["clblast_device_name"] = device->name;
  out["device"] = device->name;
  out["platform_vendor"] = device->platform_name;
  out["platform_version"] = device->platform_version;
  out["device_vendor"] = device->vendor;
  out["device_type"] = device->type;
  out["device_core_clock"] = std::to_string(device->max_clock_mhz);
  out["device_compute_units"] = std::to_string(device->compute_units);
  out["device_extra_info"] = "";
  nlohmann::ordered_json result;
  result["kernel"] = "Xgemm";
  // CLBlast writes three decimals; a time under 0.5 us would become 0 (which no importer takes).
  result["time"] = kernel_ms;
  result["parameters"] = parameters;
  out["results"] = nlohmann::ordered_json::array();
  out["results"].push_back(result);
  return {out, note};
}

ClblastTunerBest read_clblast_tuner_best(const std::string& text, const std::string& name) {
  const json j = parse_exchange_json(text);
  // The full reader validates every field and result; only the best is kept here.
  read_clblast_tuner_file(j, name, "");
  ClblastTunerBest best;
  best.family = meta(j, "kernel_family");
  best.precision = int(meta_integer(j, "precision", 6464, true));
  if (!j.contains("best_parameters")) bad("best_parameters", "missing");
  best.parameters = clblast_parameter_map(checked_text(j["best_parameters"], "best_parameters"));
  best.parameters.erase("PRECISION");
  const std::string t = meta(j, "best_time");
  best.time_ms = t.empty() ? 0 : std::strtod(t.c_str(), nullptr);
  if (!(best.time_ms >= 0 && best.time_ms < 1e12)) bad("best_time", "out of range");
  // "0.00": a time under CLBlast's two decimals, as unknown as none.
  if (best.time_ms == 0) best.time_ms = std::numeric_limits<double>::quiet_NaN();
  return best;
}

}  // namespace mmtune
