#include "mmtune/report.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "mmtune/error.hpp"
#include "mmtune/svg_chart.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;
using Opt = std::optional<double>;

// Kernels whose stored bests are tuning results (CLBlast imports that do not map onto the tiled
// kernel are stored under their own name and still count as a device's recorded result).
const char* const kTunedKernels[] = {"tiled", "direct", "clblast_xgemm"};

bool is_tuned_kernel(const std::string& k) {
  return std::find(std::begin(kTunedKernels), std::end(kTunedKernels), k) !=
         std::end(kTunedKernels);
}

// ---- what the database holds ----------------------------------------------------------------

struct DeviceRow {
  std::int64_t id = 0;
  std::string key, vendor, name, driver, platform, type, source;
  std::int64_t compute_units = 0, clock_mhz = 0, global_mem = 0;
  bool imported() const { return source.rfind("imported:", 0) == 0; }
};

struct BenchRow {
  std::int64_t id = 0;
  std::string key, run_id, subject, kernel, config;
  GemmProblem p;
  std::string status, note;
  Opt median_ms, min_ms, max_ms, gflops, kernel_median_ms, kernel_gflops;
  std::string measured_at;
};

struct BestRow {
  std::string key, kernel, config;
  GemmProblem p;
  std::int64_t measurement_id = 0;
  double median_ms = 0, gflops = 0;
  Opt kernel_gflops;
  std::string updated_at;
};

struct MeasRow {
  std::int64_t id = 0, session_id = 0;
  std::string key, kernel, config;
  GemmProblem p;
  std::string status, message;
  Opt build_s, median_ms, min_ms, max_ms, kernel_median_ms, gflops, kernel_gflops, max_error;
  std::string measured_at;
  bool ok() const { return status == "Ok" && gflops.has_value(); }
};

// Outcome counts of one session's measurements: Ok, failures by status, best Ok GFLOPS.
struct SessionStats {
  std::size_t ok = 0;
  std::map<std::string, std::size_t> failures;
  Opt best;
};

SessionStats session_stats(const std::vector<const MeasRow*>& ms) {
  SessionStats st;
  for (const MeasRow* m : ms) {
    if (m->status == "Ok") {
      ++st.ok;
    } else {
      ++st.failures[m->status];
    }
    if (m->ok() && (!st.best || *m->gflops > *st.best)) st.best = m->gflops;
  }
  return st;
}

struct SessionRow {
  SessionRecord r;
  std::string host, version;
};

struct RoofRow {
  std::string key;
  int precision = 0;
  double peak = 0, bandwidth = 0;
  std::string measured_at;
};

struct Data {
  std::string db_path;
  std::vector<DeviceRow> devices;  // the selected ones, in database order
  std::vector<BenchRow> bench;
  std::vector<BestRow> best;
  std::vector<MeasRow> meas;  // by id
  std::vector<SessionRow> sessions;
  std::vector<RoofRow> roof;
};

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<DeviceRow> read_devices(Store& store) {
  auto s = store.db().prepare(
      "SELECT id, key, vendor, name, driver_version, platform, type, source, "
      "COALESCE(compute_units, 0), COALESCE(max_clock_mhz, 0), COALESCE(global_mem_bytes, 0) "
      "FROM devices ORDER BY id");
  std::vector<DeviceRow> out;
  while (s.step()) {
    DeviceRow d;
    d.id = s.integer(0), d.key = s.text(1), d.vendor = s.text(2), d.name = s.text(3);
    d.driver = s.text(4), d.platform = s.text(5), d.type = s.text(6), d.source = s.text(7);
    d.compute_units = s.integer(8), d.clock_mhz = s.integer(9), d.global_mem = s.integer(10);
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<DeviceRow> select_devices(const std::vector<DeviceRow>& all,
                                      const std::vector<std::string>& specs) {
  if (specs.empty()) return all;
  std::set<std::int64_t> chosen;
  for (const auto& spec : specs) {
    if (spec.empty()) throw UsageError("--devices: an empty name matches every device");
    bool found = false;
    for (const auto& d : all) {
      if (lower(d.key) == lower(spec) || lower(d.name).find(lower(spec)) != std::string::npos) {
        chosen.insert(d.id), found = true;
      }
    }
    if (!found) {
      std::string known;
      for (const auto& d : all) known += (known.empty() ? "" : ", ") + d.name + " (" + d.key + ")";
      throw UsageError("no stored device matches '" + spec +
                       "'; stored: " + (known.empty() ? "none" : known));
    }
  }
  std::vector<DeviceRow> out;
  for (const auto& d : all) {
    if (chosen.count(d.id)) out.push_back(d);
  }
  return out;
}

Data load(Store& store, const ReportOptions& options) {
  Data data;
  data.db_path = store.db().path();
  data.devices = select_devices(read_devices(store), options.devices);
  std::set<std::string> keys;
  for (const auto& d : data.devices) keys.insert(d.key);
  auto& db = store.db();

  auto b = db.prepare(
      "SELECT b.id, d.key, b.run_id, b.subject, b.kernel, b.config, b.m, b.n, b.k, b.precision, "
      "b.layout, b.trans_a, b.trans_b, b.status, b.note, b.median_ms, b.min_ms, b.max_ms, "
      "b.gflops, b.kernel_median_ms, b.kernel_gflops, b.measured_at "
      "FROM bench b JOIN devices d ON d.id = b.device_id ORDER BY b.id");
  while (b.step()) {
    BenchRow r;
    r.id = b.integer(0), r.key = b.text(1);
    if (!keys.count(r.key)) continue;
    r.run_id = b.text(2), r.subject = b.text(3), r.kernel = b.text(4), r.config = b.text(5);
    r.p = read_problem(b, 6);
    r.status = b.text(13), r.note = b.text(14);
    r.median_ms = b.optional_real(15), r.min_ms = b.optional_real(16);
    r.max_ms = b.optional_real(17), r.gflops = b.optional_real(18);
    r.kernel_median_ms = b.optional_real(19), r.kernel_gflops = b.optional_real(20);
    r.measured_at = b.text(21);
    data.bench.push_back(std::move(r));
  }

  auto t = db.prepare(
      "SELECT d.key, b.kernel, b.m, b.n, b.k, b.precision, b.layout, b.trans_a, b.trans_b, "
      "b.measurement_id, b.config, b.median_ms, b.gflops, b.kernel_gflops, b.updated_at "
      "FROM best b JOIN devices d ON d.id = b.device_id "
      "ORDER BY d.id, b.precision, b.m, b.n, b.k, b.kernel");
  while (t.step()) {
    BestRow r;
    r.key = t.text(0);
    if (!keys.count(r.key)) continue;
    r.kernel = t.text(1);
    r.p = read_problem(t, 2);
    r.measurement_id = t.integer(9), r.config = t.text(10);
    r.median_ms = t.real(11), r.gflops = t.real(12), r.kernel_gflops = t.optional_real(13);
    r.updated_at = t.text(14);
    data.best.push_back(std::move(r));
  }

  auto m = db.prepare(
      "SELECT m.id, COALESCE(m.session_id, 0), d.key, m.kernel, m.config, m.m, m.n, m.k, "
      "m.precision, m.layout, m.trans_a, m.trans_b, m.status, m.message, m.build_s, m.median_ms, "
      "m.min_ms, m.max_ms, m.kernel_median_ms, m.gflops, m.kernel_gflops, m.max_error, "
      "m.measured_at FROM measurements m JOIN devices d ON d.id = m.device_id ORDER BY m.id");
  while (m.step()) {
    MeasRow r;
    r.id = m.integer(0), r.session_id = m.integer(1), r.key = m.text(2);
    if (!keys.count(r.key)) continue;
    r.kernel = m.text(3), r.config = m.text(4);
    r.p = read_problem(m, 5);
    r.status = m.text(12), r.message = m.text(13);
    r.build_s = m.optional_real(14), r.median_ms = m.optional_real(15);
    r.min_ms = m.optional_real(16), r.max_ms = m.optional_real(17);
    r.kernel_median_ms = m.optional_real(18), r.gflops = m.optional_real(19);
    r.kernel_gflops = m.optional_real(20), r.max_error = m.optional_real(21);
    r.measured_at = m.text(22);
    data.meas.push_back(std::move(r));
  }

  auto s = db.prepare(
      "SELECT s.id, d.key, s.command_line, s.strategy, s.kernels, s.space, s.seed, s.budget, "
      "s.time_limit_s, s.m, s.n, s.k, s.precision, s.layout, s.trans_a, s.trans_b, s.started_at, "
      "COALESCE(s.ended_at, ''), s.outcome, s.host, s.mmtune_version, COALESCE(s.pid, 0) "
      "FROM sessions s JOIN devices d ON d.id = s.device_id ORDER BY s.id");
  while (s.step()) {
    SessionRow r;
    SessionRecord& x = r.r;
    x.id = s.integer(0), x.device_key = s.text(1);
    if (!keys.count(x.device_key)) continue;
    x.command_line = s.text(2), x.strategy = s.text(3), x.kernels = s.text(4);
    x.space = s.text(5), x.seed = std::uint64_t(s.integer(6));
    x.budget = std::size_t(s.integer(7)), x.time_limit_s = s.real(8);
    x.problem = read_problem(s, 9);
    x.started_at = s.text(16), x.ended_at = s.text(17), x.outcome = s.text(18);
    r.host = s.text(19), r.version = s.text(20);
    x.host = r.host, x.pid = s.integer(21);
    x.outcome = shown_outcome(x);
    data.sessions.push_back(std::move(r));
  }

  auto f = db.prepare(
      "SELECT d.key, r.precision, r.peak_gflops, r.bandwidth_gbs, r.measured_at "
      "FROM roofline r JOIN devices d ON d.id = r.device_id ORDER BY d.id, r.precision");
  while (f.step()) {
    RoofRow r;
    r.key = f.text(0);
    if (!keys.count(r.key)) continue;
    r.precision = int(f.integer(1)), r.peak = f.real(2), r.bandwidth = f.real(3);
    r.measured_at = f.text(4);
    data.roof.push_back(std::move(r));
  }
  return data;
}

// ---- problems and numbers -------------------------------------------------------------------

using ProblemKey = std::tuple<int, std::size_t, std::size_t, std::size_t, int, bool, bool>;

ProblemKey pkey(const GemmProblem& p) {
  return {int(p.precision), p.m, p.n, p.k, int(p.layout), p.trans_a, p.trans_b};
}

bool problem_less(const GemmProblem& a, const GemmProblem& b) {
  const auto ka = std::make_tuple(int(a.precision), problem_size_axis(a), pkey(a));
  const auto kb = std::make_tuple(int(b.precision), problem_size_axis(b), pkey(b));
  return ka < kb;
}

bool is_square(const GemmProblem& p) {
  return p.m == p.n && p.n == p.k;
}

std::string precision_name(int precision) {
  return "fp" + std::to_string(precision);
}

// "2048" for a square row-major NN problem, "512x1024x256 col TN" otherwise.
std::string short_label(const GemmProblem& p) {
  std::string s = is_square(p)
                      ? std::to_string(p.n)
                      : std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
  if (p.layout != Layout::kRowMajor || p.trans_a || p.trans_b) {
    s += std::string(p.layout == Layout::kRowMajor ? " row " : " col ") + (p.trans_a ? "T" : "N") +
         (p.trans_b ? "T" : "N");
  }
  return s;
}

std::string pct(double fraction) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f %%", fraction * 100.0);
  return buf;
}

// CSV: the shortest text that reads back as the same double.
std::string full(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
std::string full(const Opt& v) {
  return v ? full(*v) : "";
}

// Seconds since the epoch of an ISO 8601 UTC time as the store writes it.
std::optional<double> parse_time(const std::string& s) {
  std::tm tm{};
  int sec = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &sec) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900, tm.tm_mon -= 1, tm.tm_sec = sec;
  return double(timegm(&tm));
}

// Parameters of a canonical configuration text, in order.
std::vector<std::pair<std::string, int>> config_pairs(const std::string& config) {
  std::vector<std::pair<std::string, int>> out;
  std::istringstream in(config);
  std::string pair;
  while (in >> pair) {
    const auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    int v = 0;
    const char* first = pair.data() + eq + 1;
    const char* last = pair.data() + pair.size();
    if (std::from_chars(first, last, v).ec == std::errc() && first != last) {
      out.emplace_back(pair.substr(0, eq), v);
    }
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Fixed colours per bench subject, so that a subject looks the same in every chart.
std::string subject_color(const std::string& subject, std::size_t fallback) {
  static const std::map<std::string, std::string> kColors = {
      {"tuned", "#4e79a7"},         {"default", "#f28e2b"}, {"classic", "#9c755f"},
      {"naive", "#bab0ac"},         {"clblast", "#e15759"}, {"clblast-tuned", "#b07aa1"},
      {"host-blas", "#59a14f"},     {"tiled", "#4e79a7"},   {"direct", "#76b7b2"},
      {"clblast_xgemm", "#e15759"},
  };
  const auto it = kColors.find(subject);
  return it != kColors.end() ? it->second : svg::palette(fallback + 5);
}

int subject_rank(const std::string& s) {
  static const char* const kOrder[] = {"tuned",   "default",       "classic",  "naive",
                                       "clblast", "clblast-tuned", "host-blas"};
  for (int i = 0; i < int(std::size(kOrder)); ++i) {
    if (s == kOrder[i]) return i;
  }
  return int(std::size(kOrder));
}

// ---- the document: blocks rendered as HTML and as Markdown ---------------------------------

struct Cell {
  std::string text;
  bool numeric = false, code = false, strong = false, highlight = false;
};

struct Table {
  std::vector<std::string> head;
  std::vector<std::vector<Cell>> rows;
};

struct Block {
  enum class Kind { kHeading, kText, kNote, kTable, kChart, kToc } kind = Kind::kText;
  int level = 0;
  std::string text, anchor, badge;
  Table table;
  std::string file, svg_inline;  // charts
};

class Doc {
 public:
  void heading(int level, const std::string& text, const std::string& anchor = "",
               const std::string& badge = "") {
    Block b;
    b.kind = Block::Kind::kHeading;
    b.level = level, b.text = text, b.anchor = anchor, b.badge = badge;
    blocks_.push_back(std::move(b));
  }
  void text(const std::string& text) {
    Block b;
    b.kind = Block::Kind::kText;
    b.text = text;
    blocks_.push_back(std::move(b));
  }
  void note(const std::string& text) {
    Block b;
    b.kind = Block::Kind::kNote;
    b.text = text;
    blocks_.push_back(std::move(b));
  }
  void table(Table t) {
    Block b;
    b.kind = Block::Kind::kTable;
    b.table = std::move(t);
    blocks_.push_back(std::move(b));
  }
  void toc() {
    Block b;
    b.kind = Block::Kind::kToc;
    blocks_.push_back(std::move(b));
  }
  template <class Chart>
  void chart(Chart c, const std::string& file) {
    c.id = "c" + std::to_string(files_.size() + 1);
    Block b;
    b.kind = Block::Kind::kChart;
    b.text = c.title, b.file = "charts/" + file + ".svg";
    b.svg_inline = svg::render(c, false);
    files_.emplace_back(b.file, svg::render(c, true));
    blocks_.push_back(std::move(b));
  }
  const std::vector<std::pair<std::string, std::string>>& chart_files() const { return files_; }

  std::string html(const std::string& title) const;
  std::string markdown() const;

 private:
  std::vector<Block> blocks_;
  std::vector<std::pair<std::string, std::string>> files_;  // path, standalone SVG
};

const char* const kCss = R"css(
body{margin:0;background:#eef0f3;color:#1f2328;line-height:1.45;
 font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Helvetica,Arial,sans-serif}
main{max-width:1180px;margin:0 auto;padding:20px 36px 60px;background:#fff;min-height:100vh}
h1{font-size:30px;margin:10px 0 6px}
h2{font-size:23px;margin:44px 0 10px;padding-top:14px;border-top:3px solid #4e79a7}
h3{font-size:17px;margin:28px 0 8px;color:#333}
p{margin:6px 0 10px;max-width:980px}
p.note{color:#5b6470;font-size:13px}
.badge{display:inline-block;font-size:12px;font-weight:600;padding:2px 9px;margin-left:10px;
 border-radius:10px;background:#f28e2b;color:#fff;vertical-align:middle}
.scroll{overflow-x:auto;margin:8px 0 16px}
table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #d8dce2;padding:4px 9px;text-align:left;vertical-align:top}
th{background:#eef2f7;font-weight:600;min-width:3em}
tr:nth-child(even) td{background:#f8f9fb}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.hl{background:#fff1c2 !important;font-weight:600}
code{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
figure{margin:12px 0 22px}
figure svg{max-width:100%;height:auto;border:1px solid #e1e4e8;border-radius:4px}
nav ul{margin:4px 0 12px;padding-left:22px}
)css";

std::string Doc::html(const std::string& title) const {
  const auto e = [](const std::string& s) { return html_escape(s); };
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
    << e(title) << "</title>\n<style>" << kCss << "</style>\n</head>\n<body>\n<main>\n";
  for (const auto& b : blocks_) {
    switch (b.kind) {
      case Block::Kind::kHeading:
        o << "<h" << b.level;
        if (!b.anchor.empty()) o << " id=\"" << e(b.anchor) << "\"";
        o << ">" << e(b.text);
        if (!b.badge.empty()) o << "<span class=\"badge\">" << e(b.badge) << "</span>";
        o << "</h" << b.level << ">\n";
        break;
      case Block::Kind::kText:
        o << "<p>" << e(b.text) << "</p>\n";
        break;
      case Block::Kind::kNote:
        o << "<p class=\"note\">" << e(b.text) << "</p>\n";
        break;
      case Block::Kind::kToc: {
        o << "<nav><ul>\n";
        for (const auto& h : blocks_) {
          if (h.kind != Block::Kind::kHeading || h.level != 2 || h.anchor.empty()) continue;
          o << "<li><a href=\"#" << e(h.anchor) << "\">" << e(h.text) << "</a>"
            << (h.badge.empty() ? "" : " (" + e(h.badge) + ")") << "</li>\n";
        }
        o << "</ul></nav>\n";
        break;
      }
      case Block::Kind::kTable: {
        o << "<div class=\"scroll\"><table>\n<thead><tr>";
        for (const auto& h : b.table.head) o << "<th>" << e(h) << "</th>";
        o << "</tr></thead>\n<tbody>\n";
        for (const auto& row : b.table.rows) {
          o << "<tr>";
          for (const auto& c : row) {
            std::string cls = c.numeric ? "num" : "";
            if (c.highlight) cls += cls.empty() ? "hl" : " hl";
            o << "<td" << (cls.empty() ? "" : " class=\"" + cls + "\"") << ">";
            std::string t = e(c.text);
            if (c.code) t = "<code>" + t + "</code>";
            if (c.strong) t = "<strong>" + t + "</strong>";
            o << t << "</td>";
          }
          o << "</tr>\n";
        }
        o << "</tbody></table></div>\n";
        break;
      }
      case Block::Kind::kChart:
        o << "<figure>\n" << b.svg_inline << "</figure>\n";
        break;
    }
  }
  o << "</main>\n</body>\n</html>\n";
  return o.str();
}

std::string Doc::markdown() const {
  const auto e = [](const std::string& s) { return markdown_escape(s); };
  std::ostringstream o;
  for (const auto& b : blocks_) {
    switch (b.kind) {
      case Block::Kind::kHeading:
        o << std::string(std::size_t(b.level), '#') << ' ' << e(b.text)
          << (b.badge.empty() ? "" : " *(" + e(b.badge) + ")*") << "\n\n";
        break;
      case Block::Kind::kText:
        o << e(b.text) << "\n\n";
        break;
      case Block::Kind::kNote:
        o << "*" << e(b.text) << "*\n\n";
        break;
      case Block::Kind::kToc:
        break;  // Markdown viewers make their own anchors
      case Block::Kind::kTable: {
        const std::size_t cols = b.table.head.size();
        o << "|";
        for (const auto& h : b.table.head) o << ' ' << e(h) << " |";
        o << "\n|";
        for (std::size_t i = 0; i < cols; ++i) {
          const bool numeric =
              !b.table.rows.empty() && i < b.table.rows[0].size() && b.table.rows[0][i].numeric;
          o << (numeric ? " ---: |" : " --- |");
        }
        o << "\n";
        for (const auto& row : b.table.rows) {
          o << "|";
          for (const auto& c : row) {
            const std::string t = e(c.text);
            o << ' ' << ((c.strong || c.highlight) && !t.empty() ? "**" + t + "**" : t) << " |";
          }
          o << "\n";
        }
        o << "\n";
        break;
      }
      case Block::Kind::kChart:
        o << "![" << e(b.text) << "](" << b.file << ")\n\n";
        break;
    }
  }
  return o.str();
}

svg::Axis axis(const std::string& label, svg::Scale scale, Opt min = std::nullopt) {
  svg::Axis a;
  a.label = label, a.scale = scale, a.min = min;
  return a;
}

Cell number_cell(double v) {
  return Cell{svg::format_value(v), true};
}
Cell text_cell(const std::string& s) {
  return Cell{s};
}
Cell code_cell(const std::string& s) {
  return Cell{s, false, true};
}

// ---- derived views --------------------------------------------------------------------------

class Report {
 public:
  explicit Report(Data d) : d_(std::move(d)) {
    for (const auto& b : d_.bench) {
      const auto k = std::make_tuple(b.key, b.subject, pkey(b.p));
      const auto it = latest_.find(k);
      if (it == latest_.end() || it->second->id < b.id) latest_[k] = &b;
    }
    for (const auto& b : d_.best) {
      if (!is_tuned_kernel(b.kernel)) continue;
      const auto k = std::make_pair(b.key, pkey(b.p));
      const auto it = best_of_.find(k);
      if (it == best_of_.end() || b.median_ms < it->second->median_ms) best_of_[k] = &b;
    }
    for (const auto& r : d_.roof) roof_[{r.key, r.precision}] = &r;
    for (const auto& m : d_.meas) {
      if (m.session_id) by_session_[m.session_id].push_back(&m);
    }
  }

  void build(Doc& doc);
  const Data& data() const { return d_; }

 private:
  struct Tuned {
    double gflops;
    std::string source;  // "bench" or "tuning"
  };
  struct Spread {
    std::string name;
    std::size_t values = 0;
    double spread = 1, best_median = 0, worst_median = 0;
    int best_value = 0, worst_value = 0;
  };
  struct Importance {
    std::string kernel;
    GemmProblem p;
    std::size_t measurements = 0;
    std::vector<Spread> params;  // most influential first
  };

  std::string display_name(const DeviceRow& dev) const {
    return dev.name + (dev.imported() ? " (imported)" : "");
  }
  const RoofRow* roof(const std::string& key, int precision) const {
    const auto it = roof_.find({key, precision});
    return it == roof_.end() ? nullptr : it->second;
  }
  std::vector<const BenchRow*> latest_bench(const std::string& key, int precision) const;
  std::vector<const BestRow*> bests(const std::string& key) const;
  std::optional<Tuned> tuned(const std::string& key, const GemmProblem& p) const;
  Importance importance(const std::string& key) const;

  void overview(Doc& doc);
  void device_section(Doc& doc, const DeviceRow& dev, std::size_t index);
  void performance(Doc& doc, const DeviceRow& dev, const std::string& tag);
  void best_table(Doc& doc, const DeviceRow& dev);
  void roofline(Doc& doc, const DeviceRow& dev, const std::string& tag);
  void sessions(Doc& doc, const DeviceRow& dev, const std::string& tag);
  void parameters(Doc& doc, const DeviceRow& dev, const std::string& tag);
  void comparison(Doc& doc);
  void implementations(Doc& doc);

  Data d_;
  std::map<std::tuple<std::string, std::string, ProblemKey>, const BenchRow*> latest_;
  std::map<std::pair<std::string, ProblemKey>, const BestRow*> best_of_;
  std::map<std::pair<std::string, int>, const RoofRow*> roof_;
  std::map<std::int64_t, std::vector<const MeasRow*>> by_session_;
};

std::vector<const BenchRow*> Report::latest_bench(const std::string& key, int precision) const {
  std::vector<const BenchRow*> out;
  for (const auto& [k, row] : latest_) {
    if (std::get<0>(k) == key && int(row->p.precision) == precision) out.push_back(row);
  }
  return out;
}

// The best tuned configuration per problem of a device, by problem.
std::vector<const BestRow*> Report::bests(const std::string& key) const {
  std::vector<const BestRow*> out;
  for (const auto& [k, row] : best_of_) {
    if (k.first == key) out.push_back(row);
  }
  std::sort(out.begin(), out.end(),
            [](const BestRow* a, const BestRow* b) { return problem_less(a->p, b->p); });
  return out;
}

// A device's tuned GFLOPS for a problem: the latest mmtune bench run of the tuned subject when
// there is one, else the best stored tuning result.
std::optional<Report::Tuned> Report::tuned(const std::string& key, const GemmProblem& p) const {
  const auto it = latest_.find(std::make_tuple(key, std::string("tuned"), pkey(p)));
  if (it != latest_.end() && it->second->gflops) return Tuned{*it->second->gflops, "bench"};
  const auto b = best_of_.find(std::make_pair(key, pkey(p)));
  if (b != best_of_.end()) return Tuned{b->second->gflops, "tuning"};
  return std::nullopt;
}

// How much performance moves with each parameter, over the Ok measurements of the kernel and
// problem with the most of them (the tiled kernel when it has a fair sample).
Report::Importance Report::importance(const std::string& key) const {
  std::map<std::pair<std::string, ProblemKey>, std::vector<const MeasRow*>> groups;
  for (const auto& m : d_.meas) {
    if (m.key == key && m.ok() && is_tuned_kernel(m.kernel)) {
      groups[{m.kernel, pkey(m.p)}].push_back(&m);
    }
  }
  const std::vector<const MeasRow*>* chosen = nullptr;
  auto rank = [](const std::vector<const MeasRow*>& g) {
    return std::make_pair(g.front()->kernel == "tiled" && g.size() >= 8, g.size());
  };
  for (const auto& [k, g] : groups) {
    if (!chosen || rank(g) > rank(*chosen)) chosen = &g;
  }
  Importance imp;
  if (!chosen) return imp;
  imp.kernel = chosen->front()->kernel, imp.p = chosen->front()->p;
  imp.measurements = chosen->size();
  std::vector<std::string> order;
  std::map<std::string, std::map<int, std::vector<double>>> by_param;
  for (const MeasRow* m : *chosen) {
    for (const auto& [name, value] : config_pairs(m->config)) {
      if (!by_param.count(name)) order.push_back(name);
      by_param[name][value].push_back(*m->gflops);
    }
  }
  for (const auto& name : order) {
    const auto& values = by_param[name];
    if (values.size() < 2) continue;  // not varied: nothing to say
    Spread s;
    s.name = name, s.values = values.size();
    bool first = true;
    for (const auto& [value, g] : values) {
      const double med = median(g);
      if (first || med > s.best_median) s.best_median = med, s.best_value = value;
      if (first || med < s.worst_median) s.worst_median = med, s.worst_value = value;
      first = false;
    }
    s.spread = s.worst_median > 0 ? s.best_median / s.worst_median : 0.0;
    imp.params.push_back(s);
  }
  std::stable_sort(imp.params.begin(), imp.params.end(),
                   [](const Spread& a, const Spread& b) { return a.spread > b.spread; });
  return imp;
}

void Report::build(Doc& doc) {
  overview(doc);
  for (std::size_t i = 0; i < d_.devices.size(); ++i) device_section(doc, d_.devices[i], i + 1);
  comparison(doc);
  implementations(doc);
}

// Implementations (OpenCL platforms) compared on their latest bench: each tuned routine beside
// CLBlast and the host BLAS of the same run, as a share of that device's own measured peak, and
// what tuning it cost.
void Report::implementations(Doc& doc) {
  std::set<std::string> platforms;
  for (const auto& dev : d_.devices) {
    if (!dev.imported()) platforms.insert(dev.platform);
  }
  doc.heading(2, "Implementations side by side", "implementations");
  if (platforms.size() < 2) {
    doc.text("The devices of this report come from one OpenCL implementation: nothing to compare.");
    return;
  }
  std::set<int> precisions;
  for (const auto& b : d_.bench) precisions.insert(int(b.p.precision));
  for (const int prec : precisions) {
    Table t;
    t.head = {"implementation",
              "device",
              "n",
              "tuned [GFLOPS]",
              "share of peak",
              "CLBlast [GFLOPS]",
              "tuned / CLBlast",
              "host BLAS [GFLOPS]"};
    for (const auto& dev : d_.devices) {
      const auto rows = latest_bench(dev.key, prec);
      const RoofRow* r = roof(dev.key, prec);
      std::map<std::size_t, std::map<std::string, const BenchRow*>> by_n;
      for (const BenchRow* b : rows) {
        if (b->status == "Ok" && b->gflops && is_square(b->p)) by_n[b->p.n][b->subject] = b;
      }
      for (const auto& entry : by_n) {
        // Not a structured binding: a lambda below uses it (clang before 16 refuses that).
        const std::size_t n = entry.first;
        const auto& subjects = entry.second;
        const auto g = [&](const char* subject) -> Opt {
          const auto it = subjects.find(subject);
          return it == subjects.end() ? Opt() : it->second->gflops;
        };
        const Opt tuned = g("tuned"), clblast = g("clblast"), host = g("host-blas");
        t.rows.push_back(
            {text_cell(dev.platform), text_cell(display_name(dev)), number_cell(double(n)),
             tuned ? number_cell(*tuned) : Cell{"", true},
             Cell{tuned && r && r->peak > 0 ? pct(*tuned / r->peak) : "", true},
             clblast ? number_cell(*clblast) : Cell{"", true},
             Cell{tuned && clblast ? svg::format_value(*tuned / *clblast) + "x" : "", true},
             host ? number_cell(*host) : Cell{"", true}});
      }
    }
    doc.heading(3, "Whole routine per size (" + precision_name(prec) + ")");
    if (t.rows.empty()) {
      doc.text("No bench results of this precision.");
      continue;
    }
    doc.table(std::move(t));
    doc.note(
        "Each device's latest mmtune bench: its tuned routine, CLBlast with its own parameters "
        "and the host BLAS, timed side by side in that run. Share of peak: of the device's own "
        "peak as mmtune roofline measured it (empty when not measured).");
  }
  // What each implementation's best asks of the hardware: the parameters that explain most of
  // the difference between implementations.
  Table shape;
  shape.head = {"implementation",
                "device",
                "problem",
                "kernel",
                "work-group size",
                "vector widths (m x n)",
                "local memory (A, B)"};
  for (const auto& dev : d_.devices) {
    const BestRow* pick = nullptr;
    for (const auto* b : bests(dev.key)) {
      if (!pick || problem_size_axis(b->p) > problem_size_axis(pick->p)) pick = b;
    }
    if (!pick) continue;
    std::map<std::string, int> v;
    for (const auto& [name, value] : config_pairs(pick->config)) v[name] = value;
    const bool tiled = pick->kernel == "tiled";
    const int wg = tiled ? v["MDIMC"] * v["NDIMC"] : v["MDIMCD"] * v["NDIMCD"];
    const std::string vec = tiled ? std::to_string(v["VWM"]) + " x " + std::to_string(v["VWN"])
                                  : std::to_string(v["VWMD"]) + " x " + std::to_string(v["VWND"]);
    const std::string local =
        tiled ? std::string(v["SA"] ? "yes" : "no") + ", " + (v["SB"] ? "yes" : "no")
              : "yes, yes";  // the direct kernel always stages both
    shape.rows.push_back({text_cell(dev.platform), text_cell(display_name(dev)),
                          text_cell(describe(pick->p)), text_cell(pick->kernel),
                          number_cell(double(wg)), text_cell(vec), text_cell(local)});
  }
  if (!shape.rows.empty()) {
    doc.heading(3, "What each best asks of the hardware");
    doc.table(std::move(shape));
    doc.note(
        "The best of each device's largest tuned problem. An implementation that loops over "
        "work-items (PoCL) rewards few work-items with wide explicit vectors; one that maps "
        "work-items to SIMD lanes (llvmpipe) rewards more work-items, and its loads cost per "
        "lane, so wider vector loads and larger register tiles pay (docs/kernels.md).");
  }

  Table cost;
  cost.head = {"implementation", "device", "sessions", "evaluations", "tuning wall time [s]"};
  for (const auto& dev : d_.devices) {
    std::size_t sessions = 0, evaluations = 0;
    double wall = 0;
    for (const auto& s : d_.sessions) {
      if (s.r.device_key != dev.key) continue;
      ++sessions;
      const auto it = by_session_.find(s.r.id);
      if (it != by_session_.end()) evaluations += it->second.size();
      const auto start = parse_time(s.r.started_at), end = parse_time(s.r.ended_at);
      if (start && end) wall += *end - *start;
    }
    if (sessions == 0) continue;
    cost.rows.push_back({text_cell(dev.platform), text_cell(display_name(dev)),
                         number_cell(double(sessions)), number_cell(double(evaluations)),
                         number_cell(wall)});
  }
  if (!cost.rows.empty()) {
    doc.heading(3, "Cost of tuning");
    doc.table(std::move(cost));
    doc.note("Every stored session of the device: its measurements and its wall time.");
  }
}

void Report::overview(Doc& doc) {
  doc.heading(1, "mmtune report");
  doc.text("Generated " + now_utc() + " from " + d_.db_path + ": " +
           std::to_string(d_.devices.size()) + " device(s), " + std::to_string(d_.sessions.size()) +
           " tuning session(s), " + std::to_string(d_.meas.size()) + " measurement(s), " +
           std::to_string(d_.bench.size()) + " benchmark row(s).");
  doc.note(
      "Numbers are rounded for display only; bench.csv, best.csv, measurements.csv, sessions.csv "
      "and roofline.csv beside this report hold the database's values at full precision. GFLOPS "
      "are 2mnk / time of the whole routine (copies included) unless marked as kernel GFLOPS.");
  doc.toc();
  Table t;
  t.head = {"device", "vendor", "type", "source", "key", "sessions", "measurements", "bench rows"};
  for (const auto& dev : d_.devices) {
    std::size_t n_sessions = 0, n_meas = 0, n_bench = 0;
    for (const auto& s : d_.sessions) n_sessions += s.r.device_key == dev.key;
    for (const auto& m : d_.meas) n_meas += m.key == dev.key;
    for (const auto& b : d_.bench) n_bench += b.key == dev.key;
    t.rows.push_back({text_cell(dev.name), text_cell(dev.vendor), text_cell(dev.type),
                      Cell{dev.source, false, false, false, dev.imported()}, code_cell(dev.key),
                      number_cell(double(n_sessions)), number_cell(double(n_meas)),
                      number_cell(double(n_bench))});
  }
  doc.table(std::move(t));
}

void Report::device_section(Doc& doc, const DeviceRow& dev, std::size_t index) {
  const std::string tag = "d" + std::to_string(index);
  doc.heading(2, dev.name, tag, dev.imported() ? "imported: " + dev.source.substr(9) : "");
  std::string facts = dev.vendor + ", " + (dev.type.empty() ? "unknown type" : dev.type);
  if (dev.compute_units) {
    facts += ", " + std::to_string(dev.compute_units) + " compute units at " +
             std::to_string(dev.clock_mhz) + " MHz";
  }
  if (dev.global_mem)
    facts += ", " + svg::format_value(double(dev.global_mem) / (1 << 30)) + " GiB global memory";
  facts += ", driver " + dev.driver;
  if (!dev.platform.empty()) facts += ", platform " + dev.platform;
  facts += ". Key " + dev.key + ", source " + dev.source + ".";
  doc.text(facts);
  if (dev.imported()) {
    doc.note(
        "Imported results: measured elsewhere (e.g. a CLBlast tuner file) and shown as "
        "recorded; this database did not measure them.");
  }
  const bool any = std::any_of(d_.best.begin(), d_.best.end(),
                               [&](const BestRow& b) { return b.key == dev.key; }) ||
                   std::any_of(d_.bench.begin(), d_.bench.end(),
                               [&](const BenchRow& b) { return b.key == dev.key; }) ||
                   std::any_of(d_.meas.begin(), d_.meas.end(),
                               [&](const MeasRow& m) { return m.key == dev.key; });
  if (!any) {
    doc.text("No results are stored for this device.");
    return;
  }
  performance(doc, dev, tag);
  best_table(doc, dev);
  roofline(doc, dev, tag);
  sessions(doc, dev, tag);
  parameters(doc, dev, tag);
}

void Report::performance(Doc& doc, const DeviceRow& dev, const std::string& tag) {
  std::set<int> precisions;
  for (const auto& b : d_.bench) {
    if (b.key == dev.key) precisions.insert(int(b.p.precision));
  }
  for (const auto* b : bests(dev.key)) precisions.insert(int(b->p.precision));
  for (const int prec : precisions) {
    const std::string pname = precision_name(prec);
    const RoofRow* peak = roof(dev.key, prec);
    const auto rows = latest_bench(dev.key, prec);
    doc.heading(3, "Performance against problem size (" + pname + ")");

    // (series name, colour key, points with their problems)
    struct Line {
      std::string name, color_key;
      svg::Mark mark;
      std::vector<std::pair<double, double>> points;
    };
    std::vector<Line> lines;
    bool all_square = true;
    const auto add = [&](const std::string& name, const std::string& color_key,
                         const GemmProblem& p, double g) {
      all_square = all_square && is_square(p);
      // Other shapes and layouts get their own series: joined to the square ones they would
      // draw slopes that no problem has. Non-square problems are single points.
      std::string series = name;
      if (p.layout != Layout::kRowMajor || p.trans_a || p.trans_b) {
        series += std::string(p.layout == Layout::kRowMajor ? " (row " : " (col ") +
                  (p.trans_a ? "T" : "N") + (p.trans_b ? "T" : "N") + ")";
      }
      if (!is_square(p)) series += " (non-square)";
      auto it =
          std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.name == series; });
      if (it == lines.end()) {
        it = lines.insert(
            lines.end(),
            Line{
                series, color_key, is_square(p) ? svg::Mark::kLinePoints : svg::Mark::kPoints, {}});
      }
      it->points.emplace_back(problem_size_axis(p), g);
    };
    std::vector<const BenchRow*> sorted = rows;
    std::stable_sort(sorted.begin(), sorted.end(), [](const BenchRow* a, const BenchRow* b) {
      return subject_rank(a->subject) < subject_rank(b->subject);
    });
    if (!rows.empty()) {
      for (const auto* r : sorted) {
        if (r->gflops) add(r->subject, r->subject, r->p, *r->gflops);
      }
    } else {
      for (const char* kernel : kTunedKernels) {
        for (const auto& b : d_.best) {
          if (b.key == dev.key && int(b.p.precision) == prec && b.kernel == kernel) {
            add("best " + b.kernel, b.kernel, b.p, b.gflops);
          }
        }
      }
    }
    const std::string x_label = all_square ? "problem size n (square n x n x n) [elements]"
                                           : "problem size n, or (m n k)^(1/3) [elements]";
    svg::XYChart c;
    c.title = dev.name + ": GFLOPS against problem size (" + pname + ")";
    c.x = axis(x_label, svg::Scale::kLog2);
    c.y = axis("performance [GFLOPS]", svg::Scale::kLinear, 0.0);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      c.series.push_back(
          {lines[i].name, lines[i].points, lines[i].mark, subject_color(lines[i].color_key, i)});
    }
    doc.chart(c, tag + "-gflops-" + pname);
    doc.note(rows.empty() ? "From the stored best tuning results (table best), per kernel; no "
                            "mmtune bench rows for this precision."
                          : "From mmtune bench (table bench): the latest run per subject and "
                            "size.");
    if (peak) {
      svg::XYChart f = c;
      f.title = dev.name + ": share of the measured peak (" + pname + ", " +
                svg::format_value(peak->peak) + " GFLOPS)";
      f.y = axis("share of measured peak [%]", svg::Scale::kLinear, 0.0);
      for (auto& s : f.series) {
        for (auto& pt : s.points) pt.second = pt.second / peak->peak * 100.0;
      }
      doc.chart(f, tag + "-peak-" + pname);
    }
    if (rows.empty()) continue;  // the best-configuration table shows these numbers
    std::vector<std::string> subjects;
    std::vector<GemmProblem> problems;
    std::map<std::pair<std::string, ProblemKey>, const BenchRow*> cell;
    for (const auto* r : sorted) {
      if (r->status == "NotAvailable") continue;  // not built in: a column of it says nothing
      if (std::find(subjects.begin(), subjects.end(), r->subject) == subjects.end()) {
        subjects.push_back(r->subject);
      }
      if (std::none_of(problems.begin(), problems.end(),
                       [&](const GemmProblem& p) { return pkey(p) == pkey(r->p); })) {
        problems.push_back(r->p);
      }
      cell[{r->subject, pkey(r->p)}] = r;
    }
    std::sort(problems.begin(), problems.end(), problem_less);
    Table t;
    t.head = {"problem"};
    for (const auto& s : subjects) t.head.push_back(s + " [GFLOPS]");
    for (const auto& p : problems) {
      std::vector<Cell> row{text_cell(short_label(p))};
      for (const auto& s : subjects) {
        const auto it = cell.find({s, pkey(p)});
        if (it == cell.end()) {
          row.push_back(Cell{"", true});
        } else if (!it->second->gflops) {
          row.push_back(Cell{it->second->status, true});
        } else {
          const double g = *it->second->gflops;
          row.push_back(
              Cell{svg::format_value(g) + (peak ? " (" + pct(g / peak->peak) + ")" : ""), true});
        }
      }
      t.rows.push_back(std::move(row));
    }
    doc.table(std::move(t));
    if (peak) {
      doc.note("In parentheses: share of the measured " + pname + " peak of " +
               svg::format_value(peak->peak) + " GFLOPS (mmtune roofline, " + peak->measured_at +
               ").");
    }
  }
}

void Report::best_table(Doc& doc, const DeviceRow& dev) {
  const auto rows = bests(dev.key);
  if (rows.empty()) return;
  doc.heading(3, "Best configuration per problem");
  Table t;
  t.head = {"problem",       "kernel",        "configuration", "median [ms]",  "GFLOPS",
            "kernel GFLOPS", "share of peak", "measurement",   "updated (UTC)"};
  for (const auto* b : rows) {
    const RoofRow* peak = roof(dev.key, int(b->p.precision));
    t.rows.push_back({text_cell(describe(b->p)), text_cell(b->kernel), code_cell(b->config),
                      number_cell(b->median_ms), number_cell(b->gflops),
                      b->kernel_gflops ? number_cell(*b->kernel_gflops) : Cell{"", true},
                      Cell{peak ? pct(b->gflops / peak->peak) : "", true},
                      Cell{"#" + std::to_string(b->measurement_id), true},
                      text_cell(b->updated_at)});
  }
  doc.table(std::move(t));
}

void Report::roofline(Doc& doc, const DeviceRow& dev, const std::string& tag) {
  for (const auto& rf : d_.roof) {
    if (rf.key != dev.key) continue;
    const std::string pname = precision_name(rf.precision);
    doc.heading(3, "Roofline (" + pname + ")");
    struct Point {
      std::string subject, kernel, config;
      double ai, gflops;
    };
    std::vector<Point> points;
    std::optional<GemmProblem> problem;
    const auto rows = latest_bench(dev.key, rf.precision);
    // The largest problem measured: the one closest to the device's steady state.
    for (const auto* r : rows) {
      if (!problem || problem_less(*problem, r->p)) problem = r->p;
    }
    const auto place = [&](const std::string& subject, std::string kernel, std::string config,
                           double g) {
      if (kernel.empty()) {
        kernel = subject == "naive" ? "naive" : subject == "classic" ? "classic" : "tiled";
      }
      const auto kind = parse_kernel_kind(kernel);
      if (config.empty() && kind) config = to_string(default_config(*kind));
      if (const auto ai = arithmetic_intensity(*problem, kernel, config)) {
        points.push_back({subject, kernel, config, *ai, g});
      }
    };
    if (problem) {
      for (const auto* r : rows) {
        const bool placeable = r->subject == "tuned" || r->subject == "default" ||
                               r->subject == "naive" || r->subject == "classic";
        if (pkey(r->p) == pkey(*problem) && placeable && r->gflops) {
          place(r->subject, r->kernel, r->config, *r->gflops);
        }
      }
    } else {
      for (const auto* b : bests(dev.key)) {
        if (int(b->p.precision) == rf.precision && (!problem || problem_less(*problem, b->p))) {
          problem = b->p;
        }
      }
      if (problem) {
        const BestRow* top = best_of_.at({dev.key, pkey(*problem)});
        place("tuned", top->kernel, top->config, top->gflops);
        for (const auto& b : d_.best) {
          if (b.key == dev.key && pkey(b.p) == pkey(*problem) &&
              (b.kernel == "naive" || b.kernel == "classic")) {
            place(b.kernel, b.kernel, b.config, b.gflops);
          }
        }
        // The tuner measures the tiled default configuration as a baseline.
        const std::string def = to_string(default_config(KernelKind::kTiled));
        const MeasRow* latest = nullptr;
        for (const auto& m : d_.meas) {
          if (m.key == dev.key && pkey(m.p) == pkey(*problem) && m.kernel == "tiled" &&
              m.config == def && m.ok()) {
            latest = &m;
          }
        }
        if (latest) place("default", "tiled", def, *latest->gflops);
      }
    }
    std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
      return subject_rank(a.subject) < subject_rank(b.subject);
    });
    const double ridge = rf.peak / rf.bandwidth;
    double lo = ridge, hi = ridge;
    for (const auto& p : points) lo = std::min(lo, p.ai), hi = std::max(hi, p.ai);
    lo /= 4, hi *= 4;
    svg::XYChart c;
    c.title = dev.name + ": roofline (" + pname + ")";
    c.x = axis("arithmetic intensity [FLOP/byte]", svg::Scale::kLog10);
    c.y = axis("performance [GFLOPS]", svg::Scale::kLog10);
    c.series.push_back(
        {"roof: " + svg::format_value(rf.peak) + " GFLOPS, " + svg::format_value(rf.bandwidth) +
             " GB/s",
         {{lo, std::min(rf.peak, rf.bandwidth * lo)}, {ridge, rf.peak}, {hi, rf.peak}},
         svg::Mark::kLine,
         "#555555"});
    for (std::size_t i = 0; i < points.size(); ++i) {
      c.series.push_back({points[i].subject + ": " + svg::format_value(points[i].ai) + " FLOP/byte",
                          {{points[i].ai, points[i].gflops}},
                          svg::Mark::kPoints,
                          subject_color(points[i].subject, i)});
    }
    doc.chart(c, tag + "-roofline-" + pname);
    std::string what = "Roof from mmtune roofline (" + rf.measured_at + "): peak " +
                       svg::format_value(rf.peak) + " GFLOPS, bandwidth " +
                       svg::format_value(rf.bandwidth) + " GB/s, ridge at " +
                       svg::format_value(ridge) + " FLOP/byte.";
    if (problem) {
      what += " Kernels placed for " + describe(*problem) +
              "; intensity = 2mnk / bytes the kernel reads and writes in global memory, "
              "assuming no cache reuse between work-groups (CLBlast and host BLAS have no "
              "traffic model and are not placed).";
    } else {
      what += " No " + pname + " results to place on it.";
    }
    doc.note(what);
    if (points.empty()) continue;
    Table t;
    t.head = {"kernel", "configuration",       "intensity [FLOP/byte]",
              "GFLOPS", "roof there [GFLOPS]", "share of roof"};
    for (const auto& p : points) {
      const double attainable = std::min(rf.peak, rf.bandwidth * p.ai);
      t.rows.push_back({text_cell(p.subject + " (" + p.kernel + ")"), code_cell(p.config),
                        number_cell(p.ai), number_cell(p.gflops), number_cell(attainable),
                        Cell{pct(p.gflops / attainable), true}});
    }
    doc.table(std::move(t));
  }
}

void Report::sessions(Doc& doc, const DeviceRow& dev, const std::string& tag) {
  std::vector<const SessionRow*> list;
  for (const auto& s : d_.sessions) {
    if (s.r.device_key == dev.key) list.push_back(&s);
  }
  if (list.empty()) return;
  doc.heading(3, "Tuning sessions: cost and convergence");
  Table t;
  t.head = {"session",     "problem", "strategy",           "kernels", "started (UTC)", "wall [s]",
            "evaluations", "Ok",      "failures by status", "outcome", "best [GFLOPS]"};
  svg::XYChart c;
  c.title = dev.name + ": convergence (best so far per evaluation)";
  c.x = axis("evaluation number", svg::Scale::kLinear, 0.0);
  c.x.integer = true;
  c.y = axis("best so far [GFLOPS]", svg::Scale::kLinear, 0.0);
  // The most recent sessions only: more lines than colours are unreadable.
  constexpr std::size_t kMaxLines = 10;
  std::size_t drawn = 0;
  for (std::size_t i = list.size(); i-- > 0;) {
    const SessionRow& s = *list[i];
    const auto it = by_session_.find(s.r.id);
    if (it == by_session_.end() || drawn >= kMaxLines) continue;
    std::vector<std::pair<double, double>> pts;
    double best = 0;
    for (std::size_t e = 0; e < it->second.size(); ++e) {
      const MeasRow* m = it->second[e];
      if (!m->ok() || *m->gflops <= best) continue;
      best = *m->gflops;
      pts.emplace_back(double(e + 1), best);
    }
    if (pts.empty()) continue;
    pts.emplace_back(double(it->second.size()), best);  // flat to the last evaluation
    c.series.insert(c.series.begin(), {"#" + std::to_string(s.r.id) + " " +
                                           short_label(s.r.problem) + " " + s.r.strategy,
                                       pts, svg::Mark::kStep, svg::palette(i)});
    ++drawn;
  }
  for (const SessionRow* s : list) {
    const auto it = by_session_.find(s->r.id);
    const std::vector<const MeasRow*> none;
    const auto& ms = it == by_session_.end() ? none : it->second;
    const auto [ok, failures, best] = session_stats(ms);
    std::string fail;
    for (const auto& [status, n] : failures) {
      fail += (fail.empty() ? "" : ", ") + status + " " + std::to_string(n);
    }
    std::string wall;
    const auto start = parse_time(s->r.started_at);
    if (const auto end = parse_time(s->r.ended_at); start && end) {
      wall = svg::format_value(*end - *start);
    } else if (const auto last = ms.empty() ? std::nullopt : parse_time(ms.back()->measured_at);
               start && last) {
      wall = "\xE2\x89\xA5 " +
             svg::format_value(*last - *start);  // not ended: up to its last measurement
    }
    t.rows.push_back({Cell{"#" + std::to_string(s->r.id), true}, text_cell(describe(s->r.problem)),
                      text_cell(s->r.strategy), text_cell(s->r.kernels), text_cell(s->r.started_at),
                      Cell{wall, true}, number_cell(double(ms.size())), number_cell(double(ok)),
                      text_cell(fail.empty() ? "none" : fail), text_cell(s->r.outcome),
                      best ? number_cell(*best) : Cell{"", true}});
  }
  doc.table(std::move(t));
  doc.note(
      "Evaluations: the session's measurements, every status. Wall time from its start to "
      "its end (\xE2\x89\xA5: not ended, up to its last measurement).");
  if (!c.series.empty()) {
    doc.chart(c, tag + "-convergence");
    doc.note(
        "Best-so-far GFLOPS of Ok measurements against evaluation number (failures count "
        "as evaluations)" +
        std::string(drawn == kMaxLines ? "; the 10 most recent sessions." : "."));
  }
}

void Report::parameters(Doc& doc, const DeviceRow& dev, const std::string& tag) {
  const Importance imp = importance(dev.key);
  if (imp.params.empty()) return;
  doc.heading(3, "Which parameters matter");
  svg::BarChart c;
  c.title = dev.name + ": parameter influence (" + imp.kernel + ", " + short_label(imp.p) + ")";
  c.horizontal = true;
  c.baseline = 1.0;
  c.value_suffix = "\xC3\x97";
  c.value_label = "best / worst median GFLOPS over the parameter's values [ratio]";
  svg::BarSeries s{"spread", {}, "#4e79a7"};
  for (const auto& p : imp.params) {
    c.categories.push_back(p.name);
    s.values.push_back(p.spread);
  }
  c.series.push_back(s);
  doc.chart(c, tag + "-parameters");
  Table t;
  t.head = {"parameter",           "values tried", "spread (best / worst)", "best value",
            "its median [GFLOPS]", "worst value",  "its median [GFLOPS]"};
  for (const auto& p : imp.params) {
    t.rows.push_back({code_cell(p.name), number_cell(double(p.values)), number_cell(p.spread),
                      number_cell(p.best_value), number_cell(p.best_median),
                      number_cell(p.worst_value), number_cell(p.worst_median)});
  }
  doc.table(std::move(t));
  doc.note("From " + std::to_string(imp.measurements) + " Ok measurements of the " + imp.kernel +
           " kernel for " + describe(imp.p) +
           ": for each value of a parameter the median GFLOPS of the configurations with it. "
           "Parameters interact, so this ranks sensitivity, not cause.");
}

void Report::comparison(Doc& doc) {
  doc.heading(2, "Across devices", "compare");
  if (d_.devices.size() < 2) {
    doc.text("Only one device is in this report: nothing to compare.");
    return;
  }
  std::set<int> precisions;
  for (const auto& [k, row] : best_of_) precisions.insert(int(row->p.precision));
  for (const auto& [k, row] : latest_) {
    if (std::get<1>(k) == "tuned" && row->gflops) precisions.insert(int(row->p.precision));
  }
  for (const int prec : precisions) {
    const std::string pname = precision_name(prec);
    std::vector<GemmProblem> problems;
    const auto note_problem = [&](const GemmProblem& p) {
      if (int(p.precision) != prec) return;
      if (std::none_of(problems.begin(), problems.end(),
                       [&](const GemmProblem& q) { return pkey(q) == pkey(p); })) {
        problems.push_back(p);
      }
    };
    for (const auto& [k, row] : best_of_) note_problem(row->p);
    for (const auto& [k, row] : latest_) {
      if (std::get<1>(k) == "tuned" && row->gflops) note_problem(row->p);
    }
    std::sort(problems.begin(), problems.end(), problem_less);
    std::vector<const DeviceRow*> devs;  // those with results of this precision
    for (const auto& dev : d_.devices) {
      if (std::any_of(problems.begin(), problems.end(),
                      [&](const GemmProblem& p) { return tuned(dev.key, p).has_value(); })) {
        devs.push_back(&dev);
      }
    }
    doc.heading(3, "Best GFLOPS per problem (" + pname + ")");
    if (devs.size() < 2) {
      doc.text("Only " + display_name(*devs.front()) + " has " + pname +
               " results: nothing to compare.");
      continue;
    }
    svg::BarChart c;
    c.title = "Tuned GFLOPS relative to the fastest device (" + pname + ")";
    c.value_label = "relative to fastest [%]";
    c.value_max = 100.0;
    c.category_label = "problem (n for square problems)";
    for (const auto& p : problems) c.categories.push_back(short_label(p));
    Table t;
    t.head = {"problem"};
    for (std::size_t i = 0; i < devs.size(); ++i) {
      c.series.push_back({display_name(*devs[i]), {}, svg::palette(i)});
      t.head.push_back(display_name(*devs[i]) + " [GFLOPS]");
    }
    for (const auto& p : problems) {
      double fastest = 0;
      for (const auto* dev : devs) {
        if (const auto g = tuned(dev->key, p)) fastest = std::max(fastest, g->gflops);
      }
      std::vector<Cell> row{text_cell(describe(p))};
      for (std::size_t i = 0; i < devs.size(); ++i) {
        const auto g = tuned(devs[i]->key, p);
        c.series[i].values.push_back(g && fastest > 0 ? Opt(g->gflops / fastest * 100) : Opt());
        if (!g) {
          row.push_back(Cell{"", true});
          continue;
        }
        Cell cell{svg::format_value(g->gflops) + " (" +
                      (fastest > 0 ? pct(g->gflops / fastest) : "-") +
                      (g->source == "bench" ? ", bench)" : ")"),
                  true};
        cell.strong = g->gflops == fastest;
        row.push_back(cell);
      }
      t.rows.push_back(std::move(row));
    }
    doc.chart(c, "compare-" + pname);
    doc.table(std::move(t));
    doc.note(
        "Per device the latest mmtune bench tuned run (marked bench) or else the best "
        "stored tuning result; in parentheses the share of the fastest device's GFLOPS for "
        "that problem (bold: the fastest).");
  }

  // One row per device: the best configuration of its largest tuned square problem.
  doc.heading(3, "Best parameters per device");
  std::vector<std::pair<const DeviceRow*, const BestRow*>> picks;
  std::vector<std::string> params;
  for (const auto& dev : d_.devices) {
    const BestRow* pick = nullptr;
    for (const auto* b : bests(dev.key)) {
      const auto rank = [](const BestRow* r) {
        return std::make_tuple(is_square(r->p), problem_size_axis(r->p), int(r->p.precision) == 32);
      };
      if (!pick || rank(b) > rank(pick)) pick = b;
    }
    if (!pick) continue;
    picks.emplace_back(&dev, pick);
    for (const auto& [name, v] : config_pairs(pick->config)) {
      if (std::find(params.begin(), params.end(), name) == params.end()) params.push_back(name);
    }
  }
  if (picks.empty()) {
    doc.text("No stored tuning results.");
  } else {
    // The most common value per parameter; other values are highlighted.
    std::map<std::string, int> usual;
    for (const auto& name : params) {
      std::map<int, int> counts;
      for (const auto& [dev, b] : picks) {
        for (const auto& [n, v] : config_pairs(b->config)) {
          if (n == name) ++counts[v];
        }
      }
      int most = 0;
      for (const auto& [v, count] : counts) {
        if (count > most) usual[name] = v, most = count;
      }
    }
    Table t;
    t.head = {"device", "problem", "kernel", "GFLOPS"};
    for (const auto& p : params) t.head.push_back(p);
    for (const auto& [dev, b] : picks) {
      std::vector<Cell> row{text_cell(display_name(*dev)), text_cell(describe(b->p)),
                            text_cell(b->kernel), number_cell(b->gflops)};
      const auto pairs = config_pairs(b->config);
      for (const auto& name : params) {
        const auto it = std::find_if(pairs.begin(), pairs.end(),
                                     [&](const auto& pr) { return pr.first == name; });
        if (it == pairs.end()) {
          row.push_back(Cell{"", true});
          continue;
        }
        Cell cell = number_cell(it->second);
        cell.highlight = picks.size() > 1 && it->second != usual[name];
        row.push_back(cell);
      }
      t.rows.push_back(std::move(row));
    }
    doc.table(std::move(t));
    doc.note("Highlighted: values that differ from the most common value among the devices.");
  }

  doc.heading(3, "Which parameters matter, side by side");
  std::vector<Importance> imps;
  std::vector<const DeviceRow*> with;  // devices with something to show
  std::vector<std::string> names;
  for (const auto& dev : d_.devices) {
    Importance imp = importance(dev.key);
    if (imp.params.empty()) continue;
    imps.push_back(std::move(imp));
    with.push_back(&dev);
    for (const auto& s : imps.back().params) {
      if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
    }
  }
  if (names.empty()) {
    doc.text("Not enough measurements that vary parameters.");
    return;
  }
  const auto spread_of = [&](std::size_t i, const std::string& name) -> Opt {
    for (const auto& s : imps[i].params) {
      if (s.name == name) return s.spread;
    }
    return std::nullopt;
  };
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    double ma = 0, mb = 0;
    for (std::size_t i = 0; i < imps.size(); ++i) {
      ma = std::max(ma, spread_of(i, a).value_or(0)),
      mb = std::max(mb, spread_of(i, b).value_or(0));
    }
    return ma > mb;
  });
  Table t;
  t.head = {"parameter"};
  for (std::size_t i = 0; i < with.size(); ++i) {
    t.head.push_back(display_name(*with[i]) + " (" + imps[i].kernel + ", " +
                     short_label(imps[i].p) + ")");
  }
  for (const auto& name : names) {
    std::vector<Cell> row{code_cell(name)};
    for (std::size_t i = 0; i < imps.size(); ++i) {
      const auto s = spread_of(i, name);
      row.push_back(s ? Cell{svg::format_value(*s) + "\xC3\x97", true} : Cell{"", true});
    }
    t.rows.push_back(std::move(row));
  }
  doc.table(std::move(t));
  doc.note(
      "Spread: best / worst median GFLOPS over a parameter's values (1\xC3\x97: no effect), "
      "per device from the kernel and problem with the most Ok measurements.");
}

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
          p.trans_b ? "1" : "0"};
}

std::vector<std::string> join(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<std::string> kProblemHead = {"m",      "n",       "k",      "precision",
                                               "layout", "trans_a", "trans_b"};

std::map<std::string, std::string> csv_files(const Data& d) {
  std::map<std::string, std::string> name_of;
  for (const auto& dev : d.devices) name_of[dev.key] = dev.name;
  std::map<std::string, std::string> files;

  Csv bench(join(join({"id", "device_key", "device_name", "run_id", "subject", "kernel", "config"},
                      kProblemHead),
                 {"status", "note", "median_ms", "min_ms", "max_ms", "gflops", "kernel_median_ms",
                  "kernel_gflops", "measured_at"}));
  for (const auto& b : d.bench) {
    bench.row(join(
        join({std::to_string(b.id), b.key, name_of[b.key], b.run_id, b.subject, b.kernel, b.config},
             problem_fields(b.p)),
        {b.status, b.note, full(b.median_ms), full(b.min_ms), full(b.max_ms), full(b.gflops),
         full(b.kernel_median_ms), full(b.kernel_gflops), b.measured_at}));
  }
  files["bench.csv"] = bench.text();

  Csv best(
      join(join({"device_key", "device_name", "kernel"}, kProblemHead),
           {"measurement_id", "config", "median_ms", "gflops", "kernel_gflops", "updated_at"}));
  for (const auto& b : d.best) {
    best.row(join(join({b.key, name_of[b.key], b.kernel}, problem_fields(b.p)),
                  {std::to_string(b.measurement_id), b.config, full(b.median_ms), full(b.gflops),
                   full(b.kernel_gflops), b.updated_at}));
  }
  files["best.csv"] = best.text();

  Csv meas(join(
      join({"id", "session_id", "device_key", "device_name", "kernel", "config"}, kProblemHead),
      {"status", "message", "build_s", "median_ms", "min_ms", "max_ms", "kernel_median_ms",
       "gflops", "kernel_gflops", "max_error", "measured_at"}));
  std::map<std::int64_t, std::vector<const MeasRow*>> by_session;
  for (const auto& m : d.meas) {
    if (m.session_id) by_session[m.session_id].push_back(&m);
    meas.row(join(join({std::to_string(m.id), m.session_id ? std::to_string(m.session_id) : "",
                        m.key, name_of[m.key], m.kernel, m.config},
                       problem_fields(m.p)),
                  {m.status, m.message, full(m.build_s), full(m.median_ms), full(m.min_ms),
                   full(m.max_ms), full(m.kernel_median_ms), full(m.gflops), full(m.kernel_gflops),
                   full(m.max_error), m.measured_at}));
  }
  files["measurements.csv"] = meas.text();

  Csv sessions(join(join({"id", "device_key", "device_name", "command_line", "strategy", "kernels",
                          "space", "seed", "budget", "time_limit_s"},
                         kProblemHead),
                    {"started_at", "ended_at", "outcome", "host", "mmtune_version", "evaluations",
                     "ok", "failures", "wall_s", "best_gflops"}));
  for (const auto& s : d.sessions) {
    const SessionRecord& r = s.r;
    const auto& ms = by_session[r.id];
    const auto [ok, failures, best_g] = session_stats(ms);
    std::string fail;
    for (const auto& [status, n] : failures) {
      fail += (fail.empty() ? "" : ";") + status + "=" + std::to_string(n);
    }
    const auto start = parse_time(r.started_at), end = parse_time(r.ended_at);
    sessions.row(
        join(join({std::to_string(r.id), r.device_key, name_of[r.device_key], r.command_line,
                   r.strategy, r.kernels, r.space, std::to_string(r.seed), std::to_string(r.budget),
                   full(r.time_limit_s)},
                  problem_fields(r.problem)),
             {r.started_at, r.ended_at, r.outcome, s.host, s.version, std::to_string(ms.size()),
              std::to_string(ok), fail, start && end ? full(*end - *start) : "", full(best_g)}));
  }
  files["sessions.csv"] = sessions.text();

  Csv roof(
      {"device_key", "device_name", "precision", "peak_gflops", "bandwidth_gbs", "measured_at"});
  for (const auto& r : d.roof) {
    roof.row({r.key, name_of[r.key], std::to_string(r.precision), full(r.peak), full(r.bandwidth),
              r.measured_at});
  }
  files["roofline.csv"] = roof.text();
  return files;
}

// stdio rather than a stream: errno says why a write failed.
void write_file(const fs::path& path, const std::string& text) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int why = errno;
  if (f && std::fclose(f) != 0 && ok) ok = false, why = errno;
  if (ok) return;
  const std::string message = "cannot write '" + path.string() + "': " + std::strerror(why);
  // A place the user chose that cannot hold the file is bad input; anything else (a full disk,
  // an I/O error) is a failure.
  if (why == EACCES || why == EPERM || why == EROFS || why == EISDIR || why == ENOTDIR ||
      why == ENOENT) {
    throw UsageError(message);
  }
  throw Error(message);
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
  double ab_elements = 0;
  if (const auto* t = std::get_if<TiledConfig>(&config)) {
    ab_elements = tiles(t->MWG, t->NWG);
  } else if (const auto* d = std::get_if<DirectConfig>(&config)) {
    ab_elements = tiles(d->WGD, d->WGD);
  } else if (const auto* c = std::get_if<ClassicConfig>(&config)) {
    ab_elements = tiles(c->TILE, c->TILE);
  } else {
    ab_elements = 2.0 * mnk;  // naive: every product reads both operands
  }
  const double bytes = double(p.element_size()) * (ab_elements + c_elements);
  return p.flops() / bytes;
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
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string markdown_escape(std::string_view text) {
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
    // A leading + - = or . could start a list or underline a heading.
    const bool leading = i == 0 && std::string_view("+-=.").find(c) != std::string_view::npos;
    if (special || leading) out += '\\';
    out += c;
  }
  return out;
}

std::string html_escape(std::string_view text) {
  return svg::escape_xml(text);
}

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
  ReportSummary sum;
  sum.devices = report.data().devices.size();
  const auto put = [&](const std::string& name, const std::string& text) {
    write_file(out / name, text);
    sum.files.push_back((out / name).string());
  };
  put("report.html", doc.html("mmtune report"));
  put("report.md", doc.markdown());
  for (const auto& [name, text] : csv_files(report.data())) put(name, text);
  for (const auto& [name, text] : doc.chart_files()) put(name, text);
  sum.charts = doc.chart_files().size();
  return sum;
}

}  // namespace mmtune
