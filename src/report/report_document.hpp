// The report's document: blocks (headings, text, tables, charts) rendered as HTML and Markdown.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "report/svg_chart.hpp"

namespace mmtune::report_detail {

using Opt = std::optional<double>;

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

inline svg::Axis axis(const std::string& label, svg::Scale scale, Opt min = std::nullopt) {
  svg::Axis a;
  a.label = label, a.scale = scale, a.min = min;
  return a;
}

inline Cell number_cell(double v) {
  return Cell{svg::format_value(v), true};
}
inline Cell text_cell(const std::string& s) {
  return Cell{s};
}
inline Cell code_cell(const std::string& s) {
  return Cell{s, false, true};
}

}  // namespace mmtune::report_detail
