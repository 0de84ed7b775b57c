#include "mmtune/json.hpp"

namespace mmtune {
namespace {

nlohmann::json widths(const VectorWidths& w) {
  return {{"char", w.char_}, {"short", w.short_}, {"int", w.int_},     {"long", w.long_},
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
  for (const auto& p : s.params) params.push_back({{"name", p.name}, {"values", p.values}, {"help", p.help}});
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
          {"beta", p.beta}};
}

nlohmann::json to_json(const Measurement& m) {
  return {{"status", to_string(m.status)},
          {"message", m.message},
          {"build_seconds", m.build_seconds},
          {"median_ms", m.median_ms},
          {"min_ms", m.min_ms},
          {"max_ms", m.max_ms},
          {"kernel_median_ms", m.kernel_median_ms},
          {"gflops", m.gflops},
          {"kernel_gflops", m.kernel_gflops},
          {"max_error", m.max_error},
          {"routine_ms", m.routine_ms},
          {"kernel_ms", m.kernel_ms}};
}

}  // namespace mmtune
