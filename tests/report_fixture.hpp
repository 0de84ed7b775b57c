// Shared by the report tests (test_report*.cpp): problems, tiled configurations, devices,
// measurements and bench rows to store, and a markup checker.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "store/sql.hpp"
#include "store/store.hpp"

namespace mmtune::report_test {

inline GemmProblem square(std::size_t n, Precision prec = Precision::kSingle) {
  GemmProblem p;
  p.m = p.n = p.k = n;
  p.precision = prec;
  return p;
}

inline TiledConfig tiled(int mwg, int nwg, int vwm) {
  TiledConfig c;
  c.MWG = mwg, c.NWG = nwg, c.VWM = vwm;
  return c;
}

// Every tag closed in order, every '&' an entity; `void_tags` need no closing tag (HTML).
inline ::testing::AssertionResult well_formed(const std::string& doc,
                                              const std::set<std::string>& void_tags = {}) {
  std::vector<std::string> open;
  static const std::regex entity("^&(amp|lt|gt|quot|#39);");
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (doc[i] == '&') {
      if (!std::regex_search(doc.substr(i, 8), entity)) {
        return ::testing::AssertionFailure() << "bare '&' at " << i << ": " << doc.substr(i, 40);
      }
      continue;
    }
    if (doc[i] == '>') return ::testing::AssertionFailure() << "stray '>' at " << i;
    if (doc[i] != '<') continue;
    const std::size_t end = doc.find('>', i);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unclosed '<'";
    const std::string tag = doc.substr(i + 1, end - i - 1);
    i = end;
    if (tag.empty()) return ::testing::AssertionFailure() << "empty tag";
    if (tag[0] == '!' || tag[0] == '?') continue;
    if (tag.find('<') != std::string::npos) return ::testing::AssertionFailure() << "'<' in tag";
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) {
        return ::testing::AssertionFailure()
               << "</" << name << "> closes <" << (open.empty() ? "" : open.back()) << ">";
      }
      open.pop_back();
      continue;
    }
    if (tag.back() == '/') continue;
    const std::string name = tag.substr(0, tag.find_first_of(" \n\t"));
    if (!void_tags.count(name)) open.push_back(name);
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> not closed";
  return ::testing::AssertionSuccess();
}

// A GPU-like device of this vendor and name.
inline DeviceInfo device(const std::string& vendor, const std::string& name) {
  DeviceInfo d;
  d.vendor = vendor, d.name = name, d.driver_version = "1.0";
  d.type = "GPU", d.compute_units = 32, d.max_clock_mhz = 1800;
  d.global_mem_bytes = std::uint64_t(16) << 30, d.local_mem_bytes = 65536;
  d.max_work_group_size = 1024;
  d.key = device_key(d.vendor, d.name, d.driver_version);
  return d;
}

inline MeasurementRecord measurement(const std::string& key, std::int64_t session,
                                     const KernelConfig& c, const GemmProblem& p, Status status,
                                     double ms) {
  MeasurementRecord r;
  r.device_key = key, r.session_id = session;
  r.kernel = kernel_name(kind_of(c)), r.config = to_string(c);
  r.problem = p;
  r.result.status = status;
  if (status == Status::kOk) {
    r.result.routine_ms = {ms * 0.95, ms, ms * 1.1};
    r.result.kernel_ms = {ms * 0.8, ms * 0.8, ms * 0.9};
    r.result.median_ms = ms, r.result.min_ms = ms * 0.95, r.result.max_ms = ms * 1.1;
    r.result.kernel_median_ms = ms * 0.8;
    r.result.gflops = p.flops() / (ms * 1e6);
    r.result.kernel_gflops = p.flops() / (ms * 0.8e6);
  } else {
    r.result.message = "error: <bad> & \"worse\", line 1\nline 2";
  }
  return r;
}

inline void add_bench(Store& store, const std::string& key, const std::string& subject,
                      const std::string& kernel, const std::string& config, const GemmProblem& p,
                      const std::string& status, std::optional<double> ms,
                      const std::string& note = "note, with \"quotes\"") {
  auto s = store.db().prepare(
      "INSERT INTO bench (device_id, run_id, subject, kernel, config, m, n, k, precision, layout, "
      "trans_a, trans_b, status, note, median_ms, min_ms, max_ms, gflops, kernel_median_ms, "
      "kernel_gflops, measured_at) VALUES ((SELECT id FROM devices WHERE key = ?), ?, ?, ?, ?, "
      "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, key).bind(2, "run-1").bind(3, subject).bind(4, kernel).bind(5, config);
  bind_problem(s, 6, p);
  s.bind(13, status).bind(14, note).bind(21, "2024-05-01T10:00:00Z");
  for (const int i : {15, 16, 17, 18, 19, 20}) s.bind(i, nullptr);
  if (ms) {
    const double g = p.flops() / (*ms * 1e6);
    s.bind(15, *ms).bind(16, *ms).bind(17, *ms).bind(18, g).bind(19, *ms).bind(20, g);
  }
  s.run();
}

}  // namespace mmtune::report_test
