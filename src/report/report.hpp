// `mmtune report`: the database as something to look at. Writes into a directory
//   report.html   self-contained (inline CSS and SVG charts, no scripts, no external references)
//   report.md     the same as Markdown, charts as charts/*.svg beside it
//   bench.csv, best.csv, measurements.csv, sessions.csv, roofline.csv, replays.csv   the data,
//   at full precision
// Per device: GFLOPS against problem size per bench subject (or the stored bests), fraction of
// the measured peak, best configuration per size, tuning cost and convergence per session,
// which parameters matter, a roofline chart, search strategies replayed on its landscapes. Across
// devices: best GFLOPS side by side, the best parameters in one table, parameter importance.
// Numbers are the database's; only the display rounds them.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"
#include "store/store.hpp"

namespace mmtune {

struct ReportOptions {
  std::string out_dir = "mmtune-report";  // created when missing
  // Devices to report: each a stored key or a case-insensitive part of a stored name; empty: all.
  std::vector<std::string> devices;
  // Throws for a path the report must not write over (the database it reads); called for every
  // file before the first is written.
  std::function<void(const std::string& path)> refuse_target;
};

struct ReportSummary {
  std::vector<std::string> files;  // every file written, report.html first
  std::size_t devices = 0, charts = 0;
};

// Writes the report. Throws UsageError when a device filter matches no stored device or the
// output directory cannot be created, Error when a file cannot be written.
ReportSummary write_report(Store& store, const ReportOptions& options);

// Arithmetic intensity (FLOP per byte of global-memory traffic) of a configuration for problem p:
// 2mnk FLOPs over the bytes the GEMM kernel moves, assuming no cache reuse between work-groups.
// A tiled kernel's MWG x NWG work-group reads (MWG + NWG) * k elements of A and B, so A and B
// cost mnk (1/MWG + 1/NWG) elements; the direct kernel is the same with WGD x WGD tiles, the
// classic kernel with TILE x TILE; the naive kernel re-reads 2k elements per result (2mnk).
// C costs mn elements when beta == 0 (written once), 2mn otherwise (read and written). The
// tiled routine's pad/copy kernels are not counted.
double arithmetic_intensity(const GemmProblem& p, const KernelConfig& config);
// The same for stored text (kernel name, canonical configuration); nullopt when the kernel is not
// one of mmtune's or the configuration does not parse.
std::optional<double> arithmetic_intensity(const GemmProblem& p, const std::string& kernel,
                                           const std::string& config);

// The x coordinate of a problem in size charts: n for square problems, (m n k)^(1/3) otherwise.
double problem_size_axis(const GemmProblem& p);

// Escaping for the report's formats (exposed for tests).
// RFC 4180 quoting when needed; text a spreadsheet would run as a formula gets a leading '.
std::string csv_field(std::string_view text);
// Inline text that may start a line (where "1." or "-" would start a list), and a table cell's
// text (where they do not: "2.5" stays as it is).
std::string markdown_escape(std::string_view text);
std::string markdown_cell(std::string_view text);
std::string html_escape(std::string_view text);  // = svg::escape_xml

}  // namespace mmtune
