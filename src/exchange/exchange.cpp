// The mmtune JSON exchange format's validating import (docs/exchange.md): every field is checked
// and every rejection names its place. CLBlast's format lives in clblast_format.cpp; storing the
// validated data in store/import.cpp; reading files and recognising formats in import.cpp.
#include "exchange/exchange.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <tuple>

#include "core/json.hpp"
#include "core/status.hpp"
#include "family/spec.hpp"
#include "mmtune/error.hpp"

namespace mmtune {
namespace {

using json = nlohmann::json;

// Length limits for imported strings.
constexpr std::size_t kNameMax = 1024;  // device fields, strategy, space, outcome
constexpr std::size_t kConfigMax = 1024;
constexpr std::size_t kMessageMax = 1 << 20;  // build logs
constexpr std::size_t kTimestampMax = 64;
constexpr std::size_t kMaxItems = 10'000'000;  // rows per section
constexpr std::size_t kMaxSamples = 100'000;
constexpr std::int64_t kMaxDim = std::numeric_limits<int>::max();
constexpr double kMaxMs = 1e12;

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
  // A time as mmtune writes them: compared as text, so any other form would sort wrongly.
  std::string timestamp() const {
    std::string t = text(kTimestampMax);
    if (!parse_utc(t)) fail("expected a UTC time like 2024-05-01T10:00:00Z");
    return t;
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

// A spec kernel's "problem" holds its sizes, which a spec takes up to 2^53 - 1 (docs/spec.md):
// no GEMM limits apply to them.
GemmProblem read_problem(const Field& f, bool spec_sizes = false) {
  GemmProblem p;
  const std::int64_t max_dim = spec_sizes ? (std::int64_t(1) << 53) - 1 : kMaxDim;
  p.m = std::size_t(f.at("m").integer(1, max_dim));
  p.n = std::size_t(f.at("n").integer(1, max_dim));
  p.k = std::size_t(f.at("k").integer(1, max_dim));
  const auto bits = f.at("precision").integer(16, 64);
  if (bits != 16 && bits != 32 && bits != 64) f.at("precision").fail("expected 16, 32 or 64");
  p.precision = static_cast<Precision>(bits);
  const std::string layout = f.at("layout").text(8);
  if (layout != "row" && layout != "col") f.at("layout").fail("expected \"row\" or \"col\"");
  p.layout = layout == "col" ? Layout::kColMajor : Layout::kRowMajor;
  p.trans_a = f.at("trans_a").boolean();
  p.trans_b = f.at("trans_b").boolean();
  // Files from before batches have none: one multiplication.
  if (const auto b = f.optional("batch")) p.batch = std::size_t(b->integer(1, kMaxDim));
  if (spec_sizes) return p;
  try {
    validate(p);
  } catch (const UsageError& e) {
    f.fail(e.what());
  }
  return p;
}

// Validates a kernel name and configuration; returns the canonical configuration text.
std::string read_config(const Field& kernel_field, const Field& config_field, std::string& kernel) {
  kernel = kernel_field.text(64);
  const std::string config = config_field.text(kConfigMax);
  try {
    if (const auto kind = parse_kernel_kind(kernel)) return to_string(parse_config(*kind, config));
    // Recorded on any device: a CLBlast file imported for a known device keeps its source.
    if (kernel == kClblastKernel) return canonical_clblast_parameters(config);
    if (is_recorded_kernel(kernel)) return canonical_recorded_config(kernel, config);
    if (is_spec_kernel(kernel)) return canonical_spec_config(config);
  } catch (const UsageError& e) {
    config_field.fail(e.what());
  }
  kernel_field.fail("unknown kernel '" + kernel.substr(0, 64) + "'");
}

}  // namespace

// ---- import ---------------------------------------------------------------------------------

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
    s.command_line = f.at("command_line").text(kMaxCommandLineBytes);
    s.strategy = f.at("strategy").text(kNameMax);
    s.kernels = f.at("kernels").text(kNameMax);
    s.space = f.at("space").text(kNameMax);
    s.seed = f.at("seed").unsigned_integer();
    s.budget = std::size_t(f.at("budget").integer(0, std::int64_t(1) << 40));
    s.time_limit_s = f.at("time_limit_s").number(0.0, 1e9);
    s.problem = read_problem(f.at("problem"), is_spec_kernel(s.kernels));
    s.started_at = f.at("started_at").timestamp();
    if (const auto e = f.optional("ended_at")) {
      s.ended_at = e->timestamp();
      if (s.ended_at < s.started_at) e->fail("the session ends before it starts");
    }
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
    r.config = read_config(f.at("kernel"), f.at("config"), r.kernel);
    r.problem = read_problem(f.at("problem"), is_spec_kernel(r.kernel));
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
    if (const auto clock = f.optional("kernel_clock")) {
      const std::string c = clock->text(8);
      if (c != "wall" && c != "events") clock->fail("expected \"wall\" or \"events\"");
      x.kernel_wall_clock = c == "wall";
    }
    // As in the store: the figures of a timed measurement, nothing for an untimed one.
    if (!x.routine_ms.empty()) {
      x.median_ms = f.at("median_ms").number(0.0, kMaxMs);
      x.min_ms = f.at("min_ms").number(0.0, kMaxMs);
      x.max_ms = f.at("max_ms").number(0.0, kMaxMs);
      // The figures tunes and replays take as times (observed_time, lower_bound_ms) must be
      // physically possible: Ok, SlowerEarlyStop and Timeout. A MeasurementError keeps the
      // impossible figure it was refused for, and a run that failed part-way (LaunchFailed
      // after some samples) has no figures (zeros).
      const bool result = x.status == Status::kOk || x.status == Status::kSlowerEarlyStop ||
                          x.status == Status::kTimeout;
      if (result && !(0 < x.min_ms && x.min_ms <= x.median_ms && x.median_ms <= x.max_ms)) {
        f.at("median_ms").fail("a run takes time, and min <= median <= max");
      }
      if (result && x.min_ms < kMinImportMs) f.at("min_ms").fail("too short to be a measurement");
      // Unknown figures are null (or 0, as files before NULLs wrote them).
      const auto figure = [&](const char* key, double hi) {
        const auto v = f.optional(key);
        return v ? v->number(0.0, hi) : 0.0;
      };
      const double max_gflops = result ? kMaxImportGflops : 1e300;
      x.kernel_median_ms = figure("kernel_median_ms", kMaxMs);
      x.gflops = figure("gflops", max_gflops);
      x.kernel_gflops = figure("kernel_gflops", max_gflops);
      // A GEMM kernel's rate is its problem's flops over its time, as mmtune computes it (a
      // user's kernel counts its own flops, a recorded one may have none): a rate that
      // disagrees with the time is not a measurement.
      if (result && (parse_kernel_kind(r.kernel) || r.kernel == kClblastKernel)) {
        const auto agrees = [&](const char* key, double gflops, double ms) {
          if (!(gflops > 0 && ms > 0)) return;  // a rate or time not recorded
          const double want = r.problem.flops() / (ms * 1e6);
          if (!(std::fabs(gflops - want) <= kRateTolerance * want)) {
            char buf[160];
            std::snprintf(buf, sizeof buf,
                          "%.6g GFLOPS is not this problem's %.6g GFLOPS at %.6g ms", gflops, want,
                          ms);
            f.at(key).fail(buf);
          }
        };
        agrees("gflops", x.gflops, x.median_ms);
        agrees("kernel_gflops", x.kernel_gflops, x.kernel_median_ms);
      }
      // mmtune computes a kernel's own rate only from the kernel's own time.
      if (result && x.kernel_gflops > 0 && !(x.kernel_median_ms > 0)) {
        f.at("kernel_gflops").fail("a kernel's rate needs the kernel's time");
      }
      // A recorded kernel time is a measurement (a spec's tune and the CLBlast export take it
      // as the time). Timed by its events, the kernel ran within its routine's runs, so it is
      // no longer than the slowest (1 % for two clocks' rounding); a wall-clock kernel time
      // comes from a run of its own (unusable events) and may be longer.
      if (result && x.kernel_median_ms > 0 && x.kernel_median_ms < kMinImportMs) {
        f.at("kernel_median_ms").fail("too short to be a measurement");
      }
      if (result && !x.kernel_wall_clock && x.kernel_median_ms > 1.01 * x.max_ms) {
        f.at("kernel_median_ms").fail("a kernel timed by its events runs within its routine");
      }
      // Only a user's kernel states the bytes it moves. Its GB/s has no tight bound (caches
      // serve a kernel faster than memory, and a spec may count traffic naively), as in the
      // spec runner.
      if (const auto g = f.optional("gbps")) {
        x.gbps = g->number(0.0, result ? kMaxImportGbps : 1e300);
        if (x.gbps > 0 && !is_spec_kernel(r.kernel)) g->fail("only a spec kernel has a byte rate");
      }
    } else {
      // Figures without the runs they summarise would be dropped: refused, not lost (0 is
      // unknown, as files before NULLs wrote it).
      for (const char* key : kMeasuredFigures) {
        const auto v = f.optional(key);
        if (v && !(v->value().is_number() && v->value().get<double>() == 0.0)) {
          v->fail("a figure of an untimed measurement (no routine_ms): null, or its runs given");
        }
      }
    }
    if (const auto o = f.optional("other_load")) x.other_load = o->number(0.0, 1.0);
    x.max_error = std::numeric_limits<double>::quiet_NaN();
    if (const auto e = f.optional("max_error")) x.max_error = e->number(0.0, 1e300);
    r.measured_at = f.at("measured_at").timestamp();
    data.measurements.push_back(std::move(r));
  }

  // Each best names one of the file's measurements (its figures are that measurement's).
  const Field bests = root.at("best");
  std::set<std::tuple<std::string, std::string, std::string>> best_keys;
  for (std::size_t i = 0; i < bests.array(kMaxItems).size(); ++i) {
    const Field f = bests.item(i);
    ImportedBest b;
    b.device_key = known_device(f.at("device_key"));
    b.kernel = f.at("kernel").text(kNameMax);  // must be its measurement's, checked on import
    b.problem = read_problem(f.at("problem"), is_spec_kernel(b.kernel));
    b.measurement = f.at("measurement").integer(1, std::numeric_limits<std::int64_t>::max());
    const auto m = std::find_if(data.measurements.begin(), data.measurements.end(),
                                [&](const MeasurementRecord& r) { return r.id == b.measurement; });
    if (m == data.measurements.end()) {
      f.at("measurement").fail("no measurement with this id in the file");
    }
    // The best is stored under its measurement's device, kernel and problem: a best that names
    // others would replace a best it was never weighed against.
    if (m->result.status != Status::kOk || m->result.routine_ms.empty() || m->kernel != b.kernel ||
        m->device_key != b.device_key || describe(m->problem) != describe(b.problem)) {
      f.at("measurement")
          .fail("not a timed Ok measurement of this best's device, kernel and problem");
    }
    b.updated_at = f.at("updated_at").timestamp();
    // A problem has one best per device and kernel: of two, one would silently replace the
    // other (whichever the file lists last).
    if (!best_keys.emplace(b.device_key, b.kernel, describe(b.problem)).second) {
      f.fail("a second best of this device, kernel and problem");
    }
    data.bests.push_back(std::move(b));
  }
  return data;
}

}  // namespace mmtune
