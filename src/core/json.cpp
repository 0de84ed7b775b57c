#include "core/json.hpp"

#include <cmath>
#include <limits>

namespace mmtune {
namespace {

nlohmann::json widths(const VectorWidths& w) {
  return {{"char", w.char_},   {"short", w.short_},   {"int", w.int_}, {"long", w.long_},
          {"float", w.float_}, {"double", w.double_}, {"half", w.half}};
}

}  // namespace

nlohmann::json to_json(const DeviceInfo& d) {
  return {{"index", d.index},
          {"key", d.key},
          {"platform", d.platform_name},
          {"platform_vendor", d.platform_vendor},
          {"platform_version", d.platform_version},
          {"vendor", d.vendor},
          {"name", d.name},
          {"type", d.type},
          {"driver_version", d.driver_version},
          {"device_version", d.device_version},
          {"opencl_c_version", d.opencl_c_version},
          {"compute_units", d.compute_units},
          {"max_clock_mhz", d.max_clock_mhz},
          {"global_mem_bytes", d.global_mem_bytes},
          {"max_alloc_bytes", d.max_alloc_bytes},
          {"local_mem_bytes", d.local_mem_bytes},
          {"local_mem_dedicated", d.local_mem_dedicated},
          {"max_work_group_size", d.max_work_group_size},
          {"max_work_item_sizes", d.max_work_item_sizes},
          {"preferred_vector_widths", widths(d.preferred)},
          {"native_vector_widths", widths(d.native)},
          {"fp64", d.fp64},
          {"fp16", d.fp16}};
}

nlohmann::json to_json(const SpaceSummary& s) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : s.params)
    params.push_back({{"name", p.name}, {"values", p.values}, {"help", p.help}});
  nlohmann::json j = {{"kernel", kernel_name(s.kernel)},
                      {"space", s.size == SpaceSize::kFull ? "full" : "quick"},
                      {"parameters", params},
                      {"constraints", s.constraints},
                      {"before_constraints", s.product},
                      {"after_constraints", s.valid}};
  j["after_device_limits"] = s.device ? nlohmann::json(*s.device) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json to_json(const GemmProblem& p) {
  return {{"m", p.m},
          {"n", p.n},
          {"k", p.k},
          {"precision", static_cast<int>(p.precision)},
          {"layout", p.layout == Layout::kRowMajor ? "row" : "col"},
          {"trans_a", p.trans_a},
          {"trans_b", p.trans_b},
          {"lda", p.lda_or_min()},
          {"ldb", p.ldb_or_min()},
          {"ldc", p.ldc_or_min()},
          {"alpha", p.alpha},
          {"beta", p.beta},
          {"batch", p.batch}};
}

nlohmann::json to_json(const Measurement& m) {
  nlohmann::json j = {
      {"status", to_string(m.status)},
      {"message", m.message},
      {"build_seconds", m.build_seconds},
      {"verify_seconds", m.verify_seconds},
      {"first_run_extra_seconds", m.first_run_extra_seconds},
      {"median_ms", m.median_ms},
      {"min_ms", m.min_ms},
      {"max_ms", m.max_ms},
      {"kernel_median_ms", m.kernel_median_ms},
      {"kernel_wall_clock", m.kernel_wall_clock},
      {"gflops", m.gflops},
      {"kernel_gflops", m.kernel_gflops},
      {"gbps", m.gbps},
      {"other_load", m.other_load >= 0 ? nlohmann::json(m.other_load) : nlohmann::json()},
      {"max_error", std::isfinite(m.max_error) ? nlohmann::json(m.max_error) : nlohmann::json()},
      {"routine_ms", m.routine_ms},
      {"kernel_ms", m.kernel_ms}};
  if (m.opencl_error) j["opencl_error"] = m.opencl_error;
  return j;
}

nlohmann::json to_output_json(const Measurement& m) {
  nlohmann::json j = to_json(m);
  // No time or rate is 0: an untimed run (or one that failed part-way, its samples kept) has
  // none, a rate or kernel time not measured is 0 in a Measurement.
  for (const char* figure : kMeasuredFigures) j[figure] = figure_or_null(j[figure].get<double>());
  return j;
}

nlohmann::json figure_or_null(double v) {
  return v > 0 ? nlohmann::json(v) : nlohmann::json();
}

nlohmann::json to_json(const TimingOptions& t) {
  return {{"warmup", t.warmup},
          {"min_reps", t.min_reps},
          {"max_reps", t.max_reps},
          {"stable_within", t.stable_within},
          {"max_seconds", t.max_seconds},
          {"early_stop_ms", t.early_stop_ms},
          {"slow_first_run_suffices", t.slow_first_run_suffices}};
}

GemmProblem problem_from_json(const nlohmann::json& j) {
  GemmProblem p;
  p.m = j.at("m").get<std::size_t>();
  p.n = j.at("n").get<std::size_t>();
  p.k = j.at("k").get<std::size_t>();
  p.precision = static_cast<Precision>(j.at("precision").get<int>());
  p.layout = j.at("layout").get<std::string>() == "col" ? Layout::kColMajor : Layout::kRowMajor;
  p.trans_a = j.at("trans_a").get<bool>();
  p.trans_b = j.at("trans_b").get<bool>();
  p.lda = j.value("lda", std::size_t(0));
  p.ldb = j.value("ldb", std::size_t(0));
  p.ldc = j.value("ldc", std::size_t(0));
  p.alpha = j.value("alpha", 1.0);
  p.beta = j.value("beta", 0.0);
  p.batch = j.value("batch", std::size_t(1));  // files from before batches
  return p;
}

Measurement measurement_from_json(const nlohmann::json& j) {
  Measurement m;
  m.status = parse_status(j.at("status").get<std::string>()).value_or(Status::kCrashed);
  m.message = j.value("message", "");
  m.opencl_error = j.value("opencl_error", 0);
  m.build_seconds = j.value("build_seconds", 0.0);
  m.verify_seconds = j.value("verify_seconds", 0.0);
  m.first_run_extra_seconds = j.value("first_run_extra_seconds", 0.0);
  m.median_ms = j.value("median_ms", 0.0);
  m.min_ms = j.value("min_ms", 0.0);
  m.max_ms = j.value("max_ms", 0.0);
  m.kernel_median_ms = j.value("kernel_median_ms", 0.0);
  m.kernel_wall_clock = j.value("kernel_wall_clock", false);
  m.gflops = j.value("gflops", 0.0);
  m.kernel_gflops = j.value("kernel_gflops", 0.0);
  m.gbps = j.value("gbps", 0.0);
  const auto load = j.find("other_load");
  m.other_load = load != j.end() && load->is_number() ? load->get<double>() : -1.0;
  // Infinite errors (NaN results) travel as null.
  const auto err = j.find("max_error");
  m.max_error = err != j.end() && err->is_number() ? err->get<double>()
                                                   : std::numeric_limits<double>::infinity();
  m.routine_ms = j.value("routine_ms", std::vector<double>{});
  m.kernel_ms = j.value("kernel_ms", std::vector<double>{});
  return m;
}

TimingOptions timing_from_json(const nlohmann::json& j) {
  TimingOptions t;
  t.warmup = j.value("warmup", t.warmup);
  t.min_reps = j.value("min_reps", t.min_reps);
  t.max_reps = j.value("max_reps", t.max_reps);
  t.stable_within = j.value("stable_within", t.stable_within);
  t.max_seconds = j.value("max_seconds", t.max_seconds);
  t.early_stop_ms = j.value("early_stop_ms", t.early_stop_ms);
  t.slow_first_run_suffices = j.value("slow_first_run_suffices", t.slow_first_run_suffices);
  return t;
}

}  // namespace mmtune
