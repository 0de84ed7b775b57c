// Problems and numbers as the report shows them: labels, orderings, number formats, colours.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/measurement.hpp"
#include "exchange/exchange.hpp"
#include "family/config_text.hpp"
#include "family/spec.hpp"
#include "mmtune/error.hpp"
#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "report/report.hpp"
#include "report/svg_chart.hpp"

namespace mmtune::report_detail {

using Opt = std::optional<double>;

// A batch is a problem of its own (its bests and measurements are its own).
using ProblemKey =
    std::tuple<int, std::size_t, std::size_t, std::size_t, int, bool, bool, std::size_t>;

inline ProblemKey pkey(const GemmProblem& p) {
  return {int(p.precision), p.m, p.n, p.k, int(p.layout), p.trans_a, p.trans_b, p.batch};
}

// A user's kernel's (spec's) sizes, stored as m, n and k with 1 for those it lacks.
inline std::string spec_sizes(const GemmProblem& p) {
  return std::to_string(p.m) + "," + std::to_string(p.n) + "," + std::to_string(p.k);
}

// Whether `kernel`'s problem is sizes, not a GEMM's: a user's kernel (spec) and a recorded one
// (a Kernel Tuner file's problem_size).
inline bool has_sizes_only(const std::string& kernel) {
  return is_spec_kernel(kernel) || is_recorded_kernel(kernel);
}

// A problem as the row of `kernel` shows it: sizes only where it has no precision, layout or
// transpositions.
inline std::string describe_for(const std::string& kernel, const GemmProblem& p) {
  return has_sizes_only(kernel) ? spec_sizes(p) : describe(p);
}

inline bool problem_less(const GemmProblem& a, const GemmProblem& b) {
  const auto ka = std::make_tuple(int(a.precision), problem_size_axis(a), pkey(a));
  const auto kb = std::make_tuple(int(b.precision), problem_size_axis(b), pkey(b));
  return ka < kb;
}

inline bool is_square(const GemmProblem& p) {
  return p.m == p.n && p.n == p.k;
}

inline std::string precision_name(int precision) {
  return "fp" + std::to_string(precision);
}

// "2048" for a square row-major NN problem, "512x1024x256 col TN" otherwise; "64 batch 10".
inline std::string short_label(const GemmProblem& p) {
  std::string s = is_square(p)
                      ? std::to_string(p.n)
                      : std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
  if (p.layout != Layout::kRowMajor || p.trans_a || p.trans_b) {
    s += std::string(p.layout == Layout::kRowMajor ? " row " : " col ") + (p.trans_a ? "T" : "N") +
         (p.trans_b ? "T" : "N");
  }
  if (p.batch != 1) s += " batch " + std::to_string(p.batch);
  return s;
}

inline std::string pct(double fraction) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f %%", fraction * 100.0);
  return buf;
}

// A share of a device's stored peak. Above it the roof, measured on a busy machine, is low: no
// share over 100 % is printed.
inline std::string share_of_peak(double gflops, double peak) {
  if (!(peak > 0)) return "";
  return gflops <= peak ? pct(gflops / peak) : "n/a (above the peak)";
}

// CSV: the shortest text that reads back as the same double.
inline std::string full(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
inline std::string full(const Opt& v) {
  return v ? full(*v) : "";
}
// A time or rate a record holds as 0 when it is not known: empty, as measurements.csv has it.
inline std::string full_if_known(double v) {
  return v > 0 ? full(v) : "";
}

// Seconds since the epoch of an ISO 8601 UTC time as the store writes it.
inline std::optional<double> parse_time(const std::string& s) {
  std::tm tm{};
  int sec = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &sec) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900, tm.tm_mon -= 1, tm.tm_sec = sec;
  return double(timegm(&tm));
}

// The integer parameters of a configuration text, in order (words are skipped).
inline std::vector<std::pair<std::string, int>> int_pairs(const std::string& config) {
  std::vector<std::pair<std::string, int>> out;
  for (auto& [name, value] : config_pairs(config)) {
    if (const auto v = whole_int(value); v && !name.empty()) out.emplace_back(std::move(name), *v);
  }
  return out;
}

// Every parameter of a configuration of `kernel` with its value: those its text leaves out at
// their defaults too (a tiled configuration without PACK has PACK=1), where the kernel is one of
// mmtune's; a recorded or user's kernel's as its text gives them.
inline std::vector<std::pair<std::string, int>> int_pairs(const std::string& kernel,
                                                          const std::string& config) {
  const auto kind = parse_kernel_kind(kernel);
  if (!kind) return int_pairs(config);
  try {
    const KernelConfig c = parse_config(*kind, config);
    const auto names = parameter_names(*kind);
    std::vector<std::pair<std::string, int>> out;
    for (std::size_t i = 0; i < names.size(); ++i) out.emplace_back(names[i], c.values()[i]);
    return out;
  } catch (const UsageError&) {  // a damaged stored row: what its text says
    return int_pairs(config);
  }
}

// The bench subject that runs on the host's CPU (bench.cpp): the device's peak does not bound it.
inline constexpr const char* kHostBlasSubject = "host-blas";
inline bool on_device(const std::string& subject) {
  return subject != kHostBlasSubject;
}

// Fixed colours per bench subject, so that a subject looks the same in every chart.
// The "tuned" subject of a bench on a device without tuned parameters (the library's built-in
// defaults), as the report shows it.
inline constexpr const char* kUntunedSubject = "tuned (built-in defaults)";

inline std::string subject_color(const std::string& subject, std::size_t fallback) {
  static const std::map<std::string, std::string> kColors = {
      {"tuned", "#4e79a7"},          {"default", "#f28e2b"}, {"classic", "#9c755f"},
      {"naive", "#bab0ac"},          {"clblast", "#e15759"}, {"clblast-tuned", "#b07aa1"},
      {kHostBlasSubject, "#59a14f"}, {"tiled", "#4e79a7"},   {"direct", "#76b7b2"},
      {"clblast_xgemm", "#e15759"},
  };
  const auto it = kColors.find(subject);
  return it != kColors.end() ? it->second : svg::palette(fallback + 5);
}

inline int subject_rank(const std::string& s) {
  static const char* const kOrder[] = {"tuned", kUntunedSubject, "default",       "classic",
                                       "naive", "clblast",       "clblast-tuned", kHostBlasSubject};
  for (int i = 0; i < int(std::size(kOrder)); ++i) {
    if (s == kOrder[i]) return i;
  }
  return int(std::size(kOrder));
}

}  // namespace mmtune::report_detail
