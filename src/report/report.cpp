#include "report/report.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/file_write.hpp"
#include "mmtune/error.hpp"
#include "report/report_data.hpp"
#include "report/report_document.hpp"
#include "report/report_format.hpp"
#include "report/report_view.hpp"
#include "report/svg_chart.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;
using namespace report_detail;

// ---- CSV ------------------------------------------------------------------------------------

class Csv {
 public:
  explicit Csv(const std::vector<std::string>& head) { row(head); }
  void row(const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) out_ += (i ? "," : "") + csv_field(fields[i]);
    out_ += "\r\n";
  }
  const std::string& text() const { return out_; }

 private:
  std::string out_;
};

std::vector<std::string> problem_fields(const GemmProblem& p) {
  return {std::to_string(p.m),
          std::to_string(p.n),
          std::to_string(p.k),
          std::to_string(int(p.precision)),
          p.layout == Layout::kRowMajor ? "row" : "col",
          p.trans_a ? "1" : "0",
          p.trans_b ? "1" : "0",
          std::to_string(p.batch)};
}

std::vector<std::string> join(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<std::string> kProblemHead = {"m",      "n",       "k",       "precision",
                                               "layout", "trans_a", "trans_b", "batch"};

std::map<std::string, std::string> csv_files(const Data& d) {
  std::map<std::string, std::string> name_of;
  for (const auto& dev : d.devices) name_of[dev.key] = dev.name;
  std::map<std::string, std::string> files;

  Csv bench(join(join({"id", "device_key", "device_name", "run_id", "subject", "kernel", "config"},
                      kProblemHead),
                 {"status", "note", "median_ms", "min_ms", "max_ms", "gflops", "kernel_median_ms",
                  "kernel_gflops", "measured_at"}));
  for (const auto& b : d.bench) {
    // The database's subject: the report's label for built-in defaults is its own.
    const std::string subject = b.subject == kUntunedSubject ? "tuned" : b.subject;
    bench.row(join(
        join({std::to_string(b.id), b.key, name_of[b.key], b.run_id, subject, b.kernel, b.config},
             problem_fields(b.p)),
        {b.status, b.note, full(b.median_ms), full(b.min_ms), full(b.max_ms), full(b.gflops),
         full(b.kernel_median_ms), full(b.kernel_gflops), b.measured_at}));
  }
  files["bench.csv"] = bench.text();

  Csv best(
      join(join({"device_key", "device_name", "kernel"}, kProblemHead),
           {"measurement_id", "config", "median_ms", "gflops", "kernel_gflops", "updated_at"}));
  for (const auto& b : d.best) {
    best.row(
        join(join({b.key, name_of[b.key], b.kernel}, problem_fields(b.p)),
             {std::to_string(b.measurement_id), b.config, full(b.median_ms),
              full_if_known(b.gflops), full_if_known(b.kernel_gflops.value_or(0)), b.updated_at}));
  }
  files["best.csv"] = best.text();

  Csv meas(join(
      join({"id", "session_id", "device_key", "device_name", "kernel", "config"}, kProblemHead),
      {"status", "message", "build_s", "median_ms", "min_ms", "max_ms", "kernel_median_ms",
       "gflops", "kernel_gflops", "max_error", "measured_at", "gbps", "other_load"}));
  std::map<std::int64_t, std::vector<const MeasRow*>> by_session;
  for (const auto& m : d.meas) {
    if (m.session_id) by_session[m.session_id].push_back(&m);
    meas.row(join(join({std::to_string(m.id), m.session_id ? std::to_string(m.session_id) : "",
                        m.key, name_of[m.key], m.kernel, m.config},
                       problem_fields(m.p)),
                  {m.status, m.message, full(m.build_s), full(m.median_ms), full(m.min_ms),
                   full(m.max_ms), full(m.kernel_median_ms), full(m.gflops), full(m.kernel_gflops),
                   full(m.max_error), m.measured_at, full(m.gbps), full(m.other_load)}));
  }
  files["measurements.csv"] = meas.text();

  Csv sessions(join(join({"id", "device_key", "device_name", "command_line", "strategy", "kernels",
                          "space", "seed", "budget", "time_limit_s"},
                         kProblemHead),
                    {"started_at", "ended_at", "outcome", "host", "mmtune_version", "evaluations",
                     "ok", "stopped_early", "failures", "wall_s", "best_gflops"}));
  for (const auto& s : d.sessions) {
    const SessionRecord& r = s.r;
    const auto& ms = by_session[r.id];
    const auto [ok, stopped_early, failures, best_g] = session_stats(ms);
    std::string fail;
    for (const auto& [status, n] : failures) {
      fail += (fail.empty() ? "" : ";") + status + "=" + std::to_string(n);
    }
    const auto start = parse_time(r.started_at), end = parse_time(r.ended_at);
    sessions.row(join(
        join({std::to_string(r.id), r.device_key, name_of[r.device_key], r.command_line, r.strategy,
              r.kernels, r.space, std::to_string(r.seed), std::to_string(r.budget),
              full(r.time_limit_s)},
             problem_fields(r.problem)),
        {r.started_at, r.ended_at, r.outcome, s.host, s.version, std::to_string(ms.size()),
         std::to_string(ok), std::to_string(stopped_early), fail,
         // An import took no time here: its wall clock is not 0 s, it is unknown.
         start && end && r.outcome != kImportedOutcome ? full(*end - *start) : "", full(best_g)}));
  }
  files["sessions.csv"] = sessions.text();

  Csv roof(
      {"device_key", "device_name", "precision", "peak_gflops", "bandwidth_gbs", "measured_at"});
  for (const auto& r : d.roof) {
    roof.row({r.key, name_of[r.key], std::to_string(r.precision), full(r.peak), full(r.bandwidth),
              r.measured_at});
  }
  files["roofline.csv"] = roof.text();

  Csv replay(join(join({"device_key", "device_name", "kernel"}, kProblemHead),
                  {"strategy", "settings", "configurations", "seeds", "budget", "tolerance",
                   "reached", "median_evaluations", "random_expected_evaluations", "evaluations",
                   "mean_fraction", "measured_at"}));
  for (const auto& r : d.replays) {  // one row per point of the curve
    for (const auto& [evaluations, fraction] : r.curve) {
      replay.row(join(
          join({r.key, name_of[r.key], r.kernel}, problem_fields(r.p)),
          {r.strategy, r.settings, std::to_string(r.configurations), std::to_string(r.seeds),
           std::to_string(r.budget), full(r.tolerance), std::to_string(r.reached),
           r.median_within_budget() ? full(r.median_evaluations) : ">" + std::to_string(r.budget),
           full(r.random_expected), std::to_string(evaluations), full(fraction), r.measured_at}));
    }
  }
  files["replays.csv"] = replay.text();
  return files;
}

}  // namespace

double problem_size_axis(const GemmProblem& p) {
  if (is_square(p)) return double(p.n);
  return std::cbrt(double(p.m) * double(p.n) * double(p.k));
}

double arithmetic_intensity(const GemmProblem& p, const KernelConfig& config) {
  const double m = double(p.m), n = double(p.n), k = double(p.k);
  const double mnk = m * n * k;
  const double c_elements = (p.beta != 0.0 ? 2.0 : 1.0) * m * n;
  const auto tiles = [&](double tm, double tn) { return mnk * (1.0 / tm + 1.0 / tn); };
  const auto block = config.kind()->reuse_block(config);
  const double ab_elements = tiles(block[0], block[1]);
  const double bytes = double(p.element_size()) * (ab_elements + c_elements);
  // Bytes of one multiplication, so the flops of one too (flops() counts the whole batch).
  return p.flops() / double(std::max<std::size_t>(p.batch, 1)) / bytes;
}

std::optional<double> arithmetic_intensity(const GemmProblem& p, const std::string& kernel,
                                           const std::string& config) {
  const auto kind = parse_kernel_kind(kernel);
  if (!kind) return std::nullopt;
  try {
    return arithmetic_intensity(p, parse_config(*kind, config));
  } catch (const UsageError&) {
    return std::nullopt;
  }
}

std::string csv_field(std::string_view text) {
  std::string field(text);
  // A spreadsheet runs a cell that starts with = + - @ as a formula: an imported device name
  // ("=HYPERLINK(...)") must stay text. Numbers (-1.5) are left as they are.
  if (!field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string::npos) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec != std::errc() || ptr != field.data() + field.size()) field.insert(0, "'");
  }
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {

std::string escaped_markdown(std::string_view text, bool starts_line) {
  // Through the XML sanitizer first for valid UTF-8, then back from its entities: Markdown
  // escapes with backslashes instead.
  std::string valid;
  for (char c : text) valid += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  valid = svg::escape_xml(valid);
  std::string plain;
  for (std::size_t i = 0; i < valid.size(); ++i) {
    static const std::pair<const char*, char> kEntities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
    bool matched = false;
    for (const auto& [entity, c] : kEntities) {
      const std::string_view e(entity);
      if (valid.compare(i, e.size(), e) == 0) {
        plain += c, i += e.size() - 1, matched = true;
        break;
      }
    }
    if (!matched) plain += valid[i];
  }
  std::string out;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const char c = plain[i];
    const bool special = std::string_view("\\`*_[]<>|~&#!").find(c) != std::string_view::npos;
    // At a line's start: "- " or "+ " starts a list, digits then ". " or ") " an ordered one,
    // a line of only - or = underlines a heading ("2.5" and "-2.5" start nothing).
    const auto spaced = [&](std::size_t at) {
      return at + 1 >= plain.size() || plain[at + 1] == ' ';
    };
    const bool only = plain.find_first_not_of(std::string(1, c) + " ") == std::string::npos;
    const bool leading = starts_line && ((i == 0 && (c == '-' || c == '+') && spaced(0)) ||
                                         (i == 0 && (c == '-' || c == '=') && only) ||
                                         ((c == '.' || c == ')') && i > 0 &&
                                          plain.find_first_not_of("0123456789") == i && spaced(i)));
    if (special || leading) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string markdown_escape(std::string_view text) {
  return escaped_markdown(text, true);
}

std::string markdown_cell(std::string_view text) {
  return escaped_markdown(text, false);
}

std::string html_escape(std::string_view text) {
  return svg::escape_xml(text);
}

namespace {

// The charts of an earlier report in the same place are named by position (d2-...): left, they
// would show other devices than this report's. Only those an earlier report listed as its own
// are removed (a user's SVG beside them is not the report's).
void remove_earlier_charts(const fs::path& out,
                           const std::vector<std::pair<std::string, std::string>>& charts) {
  const fs::path manifest = out / ".mmtune-report-charts";
  std::set<std::string> written;
  std::string list;
  for (const auto& f : charts) {
    const std::string name = fs::path(f.first).filename().string();
    written.insert(name);
    list += name + "\n";
  }
  std::ifstream earlier(manifest);
  std::error_code ec;
  for (std::string name; std::getline(earlier, name);) {
    const bool plain = name.find('/') == std::string::npos && fs::path(name).extension() == ".svg";
    if (plain && !written.count(name)) fs::remove(out / "charts" / name, ec);
  }
  write_text_file(manifest, list);
}

}  // namespace

ReportSummary write_report(Store& store, const ReportOptions& options) {
  Report report(load(store, options));
  Doc doc;
  report.build(doc);

  const fs::path out(options.out_dir.empty() ? "." : options.out_dir);
  std::error_code ec;
  fs::create_directories(out / "charts", ec);
  if (ec || !fs::is_directory(out / "charts")) {
    throw UsageError("cannot create report directory '" + (out / "charts").string() +
                     "': " + ec.message());
  }
  std::vector<std::pair<std::string, std::string>> files{{"report.html", doc.html("mmtune report")},
                                                         {"report.md", doc.markdown()}};
  for (auto& f : csv_files(report.data())) files.emplace_back(f);
  for (auto& f : doc.chart_files()) files.emplace_back(f);
  if (options.refuse_target) {
    for (const auto& f : files) options.refuse_target((out / f.first).string());
  }
  ReportSummary sum;
  sum.devices = report.data().devices.size();
  for (const auto& [name, text] : files) {
    write_text_file(out / name, text);
    sum.files.push_back((out / name).string());
  }
  sum.charts = doc.chart_files().size();
  remove_earlier_charts(out, doc.chart_files());
  return sum;
}

}  // namespace mmtune
