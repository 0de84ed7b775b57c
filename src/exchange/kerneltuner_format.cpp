// Kernel Tuner cache files (docs/exchange.md): a recorded landscape, every configuration of a
// space with its time. CLBlast's Xgemm maps onto the tiled kernel where its values fit the tiled
// space; any other kernel is stored as a recorded kernel "kt:<kernel_name>" with its own
// parameters (family/recorded.hpp).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "exchange/exchange.hpp"
#include "family/config_text.hpp"
#include "family/recorded.hpp"
#include "family/spec.hpp"
#include "mmtune/error.hpp"
#include "store/queries.hpp"

namespace mmtune {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxEntries = 1'000'000;
constexpr std::size_t kMaxParameters = 64;
constexpr std::size_t kNameMax = 60;
const char* const kRecordedPrefix = "kt:";
constexpr double kKernelTunerErrorValue = 1e20;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw UsageError(where + ": " + what);
}

std::string name_text(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) bad(key, "expected a string");
  const auto& s = it->get_ref<const std::string&>();
  if (s.empty() || s.size() > 200) bad(key, "empty or longer than 200 bytes");
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) bad(key, "control character in text");
  }
  return s;
}

// A parameter or kernel name: letters, digits and underscores.
bool is_identifier(const std::string& s) {
  return !s.empty() && s.size() <= kNameMax && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// Kernel Tuner records configurations that failed with a string in place of the time.
std::optional<Status> failure_status(const std::string& s) {
  if (s == "CompilationFailedConfig") return Status::kBuildFailed;
  if (s == "RuntimeFailedConfig") return Status::kLaunchFailed;
  if (s == "InvalidConfig") return Status::kExceedsLimits;
  return std::nullopt;
}

struct Space {
  std::vector<std::string> keys;
  std::vector<std::vector<int>> values;  // per key, the file's tune_params
};

Space read_space(const json& j) {
  Space s;
  const auto keys = j.find("tune_params_keys");
  if (keys == j.end() || !keys->is_array() || keys->empty() || keys->size() > kMaxParameters) {
    bad("tune_params_keys", "expected an array of 1 to 64 names");
  }
  const auto params = j.find("tune_params");
  if (params == j.end() || !params->is_object()) bad("tune_params", "expected an object");
  for (const auto& k : *keys) {
    if (!k.is_string() || !is_identifier(k.get<std::string>())) {
      bad("tune_params_keys", "names must be identifiers of at most 60 characters");
    }
    const std::string key = k.get<std::string>();
    if (std::find(s.keys.begin(), s.keys.end(), key) != s.keys.end()) {
      bad("tune_params_keys", key + " is listed twice");
    }
    const auto v = params->find(key);
    if (v == params->end() || !v->is_array() || v->empty()) {
      bad("tune_params." + key, "expected a non-empty array");
    }
    std::vector<int> values;
    for (const auto& x : *v) {
      if (!x.is_number_integer() ||
          (x.is_number_unsigned() && x.get<std::uint64_t>() > 1'000'000'000)) {
        bad("tune_params." + key, "only integer parameter values within +-1e9 are supported");
      }
      const auto i = x.get<std::int64_t>();
      if (i < -1'000'000'000 || i > 1'000'000'000) bad("tune_params." + key, "out of range");
      values.push_back(int(i));
    }
    s.keys.push_back(key);
    s.values.push_back(std::move(values));
  }
  return s;
}

// "16,16,32,..." in tune_params_keys order, each value one of its parameter's.
std::vector<int> read_key(const std::string& key, const Space& s) {
  std::vector<int> out;
  const char* p = key.data();
  const char* end = p + key.size();
  while (out.size() < s.keys.size()) {
    int v = 0;
    const auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc()) break;
    if (std::string(p, next) != std::to_string(v)) break;  // "016", "-0", "+1": not canonical
    const auto& allowed = s.values[out.size()];
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      bad("cache[\"" + key.substr(0, 80) + "\"]",
          s.keys[out.size()] + "=" + std::to_string(v) + " is not in tune_params");
    }
    out.push_back(v);
    p = next;
    if (p == end || *p != ',') break;
    ++p;
  }
  if (out.size() != s.keys.size() || p != end) {
    bad("cache[\"" + key.substr(0, 80) + "\"]",
        "the key is not the " + std::to_string(s.keys.size()) + " values of tune_params_keys");
  }
  return out;
}

bool is_xgemm(const std::string& kernel, const Space& s) {
  if (kernel != "Xgemm") return false;
  // Every name one of Xgemm's and every value one CLBlast takes: each value is in one of the
  // rows checked (the first value alone would make the meaning hang on the lists' order).
  std::size_t rows = 1;
  for (const auto& v : s.values) rows = std::max(rows, v.size());
  try {
    for (std::size_t row = 0; row < rows; ++row) {
      std::string text;
      for (std::size_t i = 0; i < s.keys.size(); ++i) {
        text += s.keys[i] + "=" + std::to_string(s.values[i][row % s.values[i].size()]) + " ";
      }
      canonical_clblast_parameters(text);
    }
    return true;
  } catch (const UsageError&) {
    return false;
  }
}

// A T4 result's time in ms: its "time" measurement (unit ms or s).
double t4_time_ms(const json& r, const std::string& where) {
  const auto ms = r.find("measurements");
  if (ms != r.end() && ms->is_array()) {
    for (const auto& m : *ms) {
      if (!m.is_object() || !m.contains("name") || m["name"] != "time") continue;
      const auto v = m.find("value");
      if (v == m.end() || !v->is_number()) bad(where + ".measurements", "time is not a number");
      const auto u = m.find("unit");
      if (u != m.end() && !u->is_string()) bad(where + ".measurements", "unit is not text");
      const std::string unit = u == m.end() ? "ms" : u->get<std::string>();
      if (unit != "ms" && unit != "s")
        bad(where + ".measurements", "time unit " + unit.substr(0, 20));
      return v->get<double>() * (unit == "s" ? 1000.0 : 1.0);
    }
  }
  bad(where, "a correct result without a time measurement");
}

}  // namespace

bool is_recorded_kernel(const std::string& kernel) {
  return kernel.rfind(kRecordedPrefix, 0) == 0 &&
         is_identifier(kernel.substr(std::strlen(kRecordedPrefix)));
}

std::string canonical_recorded_config(const std::string& kernel, const std::string& config) {
  const auto pairs = int_config(config);
  const auto refused = [&] {
    return UsageError("not a " + kernel.substr(0, 64) + " configuration (NAME=INTEGER pairs)");
  };
  if (!pairs) throw refused();
  std::set<std::string> names;
  std::string canonical;
  for (const auto& [name, v] : *pairs) {
    if (!is_identifier(name) || !names.insert(name).second) throw refused();
    canonical += (canonical.empty() ? "" : " ") + name + "=" + std::to_string(v);
  }
  if (names.empty()) throw UsageError("an empty " + kernel.substr(0, 64) + " configuration");
  // As the Kernel Tuner reader writes it: "a=01" and "a=1" are one configuration, which a
  // replay's space must hold once.
  return canonical;
}

bool is_t4_results(const json& j) {
  return j.is_object() && j.contains("schema_version") && j.contains("results") &&
         j["results"].is_array();
}

json t4_as_cache(const json& j, const std::string& name) {
  if (!is_t4_results(j)) bad("top level", "not T4 results");
  const json& results = j["results"];
  if (results.empty() || results.size() > kMaxEntries) bad("results", "empty or too many");
  // T4 results name neither the device nor the kernel (that is the metadata file's): both are
  // named after the file.
  std::string kernel = std::filesystem::path(name).stem().string();
  for (auto& c : kernel) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  if (kernel.empty() || std::isdigit(static_cast<unsigned char>(kernel[0])))
    kernel = "t4_" + kernel;
  json cache_file = {{"device_name", "unknown (T4 results " + kernel.substr(0, kNameMax) + ")"},
                     {"kernel_name", kernel.substr(0, kNameMax)},
                     {"tune_params_keys", json::array()},
                     {"tune_params", json::object()},
                     {"cache", json::object()}};
  std::vector<std::string> keys;
  std::vector<std::set<std::int64_t>> values;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const json& r = results[i];
    const std::string where = "results[" + std::to_string(i) + "]";
    if (!r.is_object() || !r.contains("configuration") || !r["configuration"].is_object()) {
      bad(where, "expected an object with a configuration");
    }
    const json& c = r["configuration"];
    if (i == 0) {
      for (const auto& [k, v] : c.items()) keys.push_back(k);
      values.resize(keys.size());
    }
    if (c.size() != keys.size()) bad(where, "names other parameters than the first result");
    std::string key;
    for (std::size_t p = 0; p < keys.size(); ++p) {
      const auto v = c.find(keys[p]);
      if (v == c.end()) bad(where, "names other parameters than the first result");
      if (!v->is_number_integer() ||
          (v->is_number_unsigned() && v->get<std::uint64_t>() > 1'000'000'000) ||
          v->get<std::int64_t>() < -1'000'000'000 || v->get<std::int64_t>() > 1'000'000'000) {
        bad(where + "." + keys[p], "only integer values within +-1e9 are supported");
      }
      values[p].insert(v->get<std::int64_t>());
      key += (p ? "," : "") + std::to_string(v->get<std::int64_t>());
    }
    const auto inv = r.find("invalidity");
    if (inv == r.end() || !inv->is_string()) bad(where + ".invalidity", "expected text");
    const std::string invalidity = inv->get<std::string>();
    json time;
    if (invalidity == "correct") {
      time = t4_time_ms(r, where);
    } else if (invalidity == "compile") {
      time = "CompilationFailedConfig";
    } else if (invalidity == "constraints") {
      time = "InvalidConfig";
    } else if (invalidity == "runtime" || invalidity == "timeout" || invalidity == "correctness") {
      time = "RuntimeFailedConfig";
    } else {
      bad(where + ".invalidity", "not a T4 invalidity");
    }
    // A configuration run twice keeps its fastest correct time; a failure only when no run of
    // it was correct.
    json& cached = cache_file["cache"][key];
    if (cached.is_null() ||
        (time.is_number() &&
         (!cached["time"].is_number() || time.get<double>() < cached["time"].get<double>()))) {
      cached = {{"time", time}};
    }
  }
  for (std::size_t p = 0; p < keys.size(); ++p) {
    cache_file["tune_params_keys"].push_back(keys[p]);
    cache_file["tune_params"][keys[p]] =
        std::vector<std::int64_t>(values[p].begin(), values[p].end());
  }
  return cache_file;
}

bool is_kerneltuner_cache(const json& j) {
  return j.is_object() && j.contains("tune_params_keys") && j.contains("cache");
}

ImportData read_kerneltuner_cache(const json& j, const std::string& name,
                                  const std::string& timestamp,
                                  const std::optional<ImportProblem>& problem) {
  if (!is_kerneltuner_cache(j)) bad("top level", "not a Kernel Tuner cache file");
  const std::string kernel = name_text(j, "kernel_name");
  const Space space = read_space(j);
  const bool xgemm = is_xgemm(kernel, space);
  if (!xgemm && !is_identifier(kernel)) {
    bad("kernel_name", "must be an identifier of at most 60 characters");
  }
  // mmtune's own export says the problem size.
  std::optional<std::array<std::size_t, 3>> file_size;
  if (const auto ps = j.find("problem_size");
      ps != j.end() && ps->is_array() && ps->size() == 3 &&
      std::all_of(ps->begin(), ps->end(), [](const json& v) {
        return v.is_number_integer() && v.get<std::int64_t>() > 0 &&
               v.get<std::int64_t>() <= std::numeric_limits<int>::max();
      })) {
    file_size = {(*ps)[0].get<std::size_t>(), (*ps)[1].get<std::size_t>(),
                 (*ps)[2].get<std::size_t>()};
  }
  GemmProblem p;
  if (problem) {
    p = problem->problem;
    // Stored under another size than the file's own, its landscape would be mislabelled.
    if (file_size && *file_size != std::array{p.m, p.n, p.k}) {
      throw UsageError("the file's problem_size is " + std::to_string((*file_size)[0]) + "x" +
                       std::to_string((*file_size)[1]) + "x" + std::to_string((*file_size)[2]) +
                       ", not the " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                       std::to_string(p.k) + " given: drop --m, --n and --k");
    }
  } else if (file_size) {
    p.m = (*file_size)[0], p.n = (*file_size)[1], p.k = (*file_size)[2];
  } else {
    throw UsageError("the Kernel Tuner cache file names no problem size: give --n (and --m, --k)");
  }
  if (xgemm) {  // CLBlast's layout, as read_clblast_tuner_file stores it
    if (problem && problem->layout_stated &&
        (p.layout != Layout::kColMajor || p.trans_a || !p.trans_b)) {
      throw UsageError(
          "an Xgemm file is CLBlast's layout (column-major, B transposed), not the one stated: "
          "drop --layout, --trans-a and --trans-b");
    }
    p.layout = Layout::kColMajor, p.trans_a = false, p.trans_b = true;
  }

  ImportedDevice dev;
  DeviceInfo& d = dev.info;
  d.name = name_text(j, "device_name");
  d.vendor = "unknown (Kernel Tuner cache)";
  d.type = "unknown";
  d.key = device_key(d.vendor, d.name, d.driver_version);
  dev.source = kKernelTunerSource;

  const auto cache = j.find("cache");
  if (!cache->is_object()) bad("cache", "expected an object");
  if (cache->size() > kMaxEntries) bad("cache", "too many entries");
  // Nothing measured: no landscape, and no device to add for it.
  if (cache->empty()) bad("cache", "holds no result");
  ImportData data;
  data.format = "kerneltuner";
  data.dated_by_file = true;
  data.devices.push_back(dev);
  data.sessions.push_back(
      foreign_session(d.key, "kerneltuner", kernel, "recorded", cache->size(), p, name, timestamp));
  const SessionRecord& s = data.sessions.back().record;

  for (const auto& [key, entry] : cache->items()) {
    const std::string where = "cache[\"" + key.substr(0, 80) + "\"]";
    const std::vector<int> values = read_key(key, space);
    if (!entry.is_object() || !entry.contains("time")) bad(where, "expected an object with a time");
    MeasurementRecord m;
    m.session_id = s.id;
    m.device_key = d.key;
    m.problem = p;
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i) {
      text += (i ? " " : "") + space.keys[i] + "=" + std::to_string(values[i]);
    }
    if (xgemm) {
      std::map<std::string, int> params;
      for (std::size_t i = 0; i < values.size(); ++i) params[space.keys[i]] = values[i];
      if (params.count("PRECISION") && params["PRECISION"] != int(p.precision)) {
        bad(where, "PRECISION differs from the problem's precision");
      }
      if (const auto tiled = tiled_from_clblast(params)) {
        m.kernel = kernel_name(KernelKind::kTiled);
        m.config = to_string(KernelConfig(*tiled));
      } else {
        m.kernel = kClblastKernel;
        m.config = canonical_clblast_parameters(text);
      }
    } else {
      m.kernel = kRecordedPrefix + kernel;
      m.config = text;
    }
    Measurement& x = m.result;
    const json& t = entry["time"];
    if (t.is_string()) {
      const auto st = failure_status(t.get<std::string>());
      if (!st) bad(where + ".time", "neither a number nor a Kernel Tuner failure");
      x.status = *st;
      x.message = t.get<std::string>();
    } else {
      if (!t.is_number()) bad(where + ".time", "expected a number");
      const double ms = t.get<double>();
      if (ms >= kKernelTunerErrorValue) {  // how some Kernel Tuner versions mark a failure
        x.status = Status::kLaunchFailed;
        x.message = "Kernel Tuner error value";
        x.max_error = std::numeric_limits<double>::quiet_NaN();
        m.measured_at = timestamp;
        data.measurements.push_back(std::move(m));
        continue;
      }
      if (!std::isfinite(ms) || ms <= 0.0 || ms > 1e9) bad(where + ".time", "out of range");
      if (ms < kMinImportMs) bad(where + ".time", "too short to be a measurement");
      x.status = Status::kOk;
      x.routine_ms = x.kernel_ms = {ms};
      x.median_ms = x.min_ms = x.max_ms = x.kernel_median_ms = ms;
      // GEMM's FLOP count is known; a recorded kernel's is not (0: no figure).
      x.gflops = x.kernel_gflops = xgemm ? p.flops() / (ms * 1e6) : 0.0;
      if (x.gflops > kMaxImportGflops) bad(where + ".time", "too short to be a measurement");
    }
    x.max_error = std::numeric_limits<double>::quiet_NaN();  // not recorded
    m.measured_at = timestamp;
    data.measurements.push_back(std::move(m));
  }
  return data;
}

}  // namespace mmtune

namespace mmtune {
namespace {

// Kernel Tuner's strings for configurations that did not give a time.
const char* failure_text(Status s) {
  switch (s) {
    case Status::kBuildFailed:
      return "CompilationFailedConfig";
    case Status::kExceedsLimits:
      return "InvalidConfig";
    default:
      return "RuntimeFailedConfig";
  }
}

}  // namespace

nlohmann::ordered_json export_kerneltuner(Store& store, const std::string& device_key,
                                          const GemmProblem& problem, const std::string& kernel) {
  const auto device = store.device(device_key);
  if (!device) throw UsageError("no stored device with key '" + device_key + "'");
  const auto records = store.measurements(device_key, problem, kernel);
  if (records.empty()) {
    throw UsageError("no stored " + kernel.substr(0, 60) + " measurements for " +
                     describe(problem) + " on " + device->name +
                     rows::measured_hint(store, device_key, kernel));
  }
  // A built-in family's space, or the recorded kernel's own from its texts.
  std::unique_ptr<RecordedFamily> recorded;
  std::optional<KernelKind> kind = parse_kernel_kind(kernel);
  if (!kind) {
    std::vector<std::string> texts;
    for (const auto& r : records) texts.push_back(r.config);
    try {
      recorded = RecordedFamily::from_texts(kernel, texts);
    } catch (const UsageError& e) {
      throw UsageError(std::string(e.what()) +
                       "; the Kernel Tuner export takes integer parameters only");
    }
    kind = *recorded;
  }
  const auto names = parameter_names(*kind);
  if (names.empty()) {
    throw UsageError("the " + kernel +
                     " kernel has no parameters: nothing to export as a landscape");
  }
  std::vector<std::set<int>> seen(names.size());
  std::map<std::vector<int>, nlohmann::ordered_json> cache;  // the fastest time per configuration
  std::map<std::vector<int>, double> fastest;
  for (const auto& r : records) {
    const std::vector<int> values = parse_config(*kind, r.config).values();
    for (std::size_t i = 0; i < values.size(); ++i) seen[i].insert(values[i]);
    const auto time = observed_time(r.result);
    auto& entry = cache[values];
    if (time) {
      if (!fastest.count(values) || *time < fastest[values]) {
        fastest[values] = *time;
        entry = {{"time", *time}};
      }
    } else if (entry.is_null()) {
      entry = {{"time", failure_text(r.result.status)}};
    }
  }
  nlohmann::ordered_json j;
  j["device_name"] = device->name;
  const bool own = kernel.rfind(kRecordedPrefix, 0) == 0;
  // A spec's kernel goes by the spec's name ("spec:NAME:HASH"), which imports back as kt:NAME.
  const bool spec = is_spec_kernel(kernel);
  j["kernel_name"] = own    ? kernel.substr(std::strlen(kRecordedPrefix))
                     : spec ? kernel.substr(5, kernel.rfind(':') - 5)
                            : "mmtune_" + kernel;
  j["problem_size"] = {problem.m, problem.n, problem.k};
  j["tune_params_keys"] = names;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < names.size(); ++i) {
    params[names[i]] = std::vector<int>(seen[i].begin(), seen[i].end());
  }
  j["tune_params"] = params;
  nlohmann::ordered_json c = nlohmann::ordered_json::object();
  for (const auto& [values, entry] : cache) {
    std::string key;
    for (std::size_t i = 0; i < values.size(); ++i)
      key += (i ? "," : "") + std::to_string(values[i]);
    c[key] = entry;
  }
  j["cache"] = c;
  return j;
}

}  // namespace mmtune
