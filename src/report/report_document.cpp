#include "report/report_document.hpp"

#include <sstream>

#include "report/report.hpp"

namespace mmtune::report_detail {

namespace {

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

}  // namespace

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
        for (const auto& h : b.table.head) o << ' ' << markdown_cell(h) << " |";
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
            const std::string t = markdown_cell(c.text);
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

}  // namespace mmtune::report_detail
