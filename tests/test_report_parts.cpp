// mmtune report's pieces: the arithmetic intensity model, the problem axis, escaping for every
// format and the SVG writer.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/report.hpp"
#include "report/svg_chart.hpp"
#include "report_fixture.hpp"

namespace mmtune {
namespace {

using report_test::square;
using report_test::tiled;
using report_test::well_formed;

TEST(ReportArithmeticIntensity, FollowsTheTrafficModel) {
  const GemmProblem p = square(1024);
  const double m = 1024, n = 1024, k = 1024, mnk = m * n * k;
  const double flops = 2 * mnk;
  // Tiled: each MWG x NWG tile reads (MWG + NWG) k elements; C written once (beta = 0).
  const TiledConfig t = tiled(64, 128, 2);
  EXPECT_DOUBLE_EQ(arithmetic_intensity(p, t),
                   flops / (4 * (mnk * (1.0 / 64 + 1.0 / 128) + m * n)));
  // Read and written when beta != 0.
  GemmProblem beta = p;
  beta.beta = 0.5;
  EXPECT_DOUBLE_EQ(arithmetic_intensity(beta, t),
                   flops / (4 * (mnk * (1.0 / 64 + 1.0 / 128) + 2 * m * n)));
  DirectConfig d;
  d.WGD = 32;
  EXPECT_DOUBLE_EQ(arithmetic_intensity(p, d), flops / (4 * (mnk * (2.0 / 32) + m * n)));
  ClassicConfig c;
  c.TILE = 16;
  EXPECT_DOUBLE_EQ(arithmetic_intensity(p, c), flops / (4 * (mnk * (2.0 / 16) + m * n)));
  EXPECT_DOUBLE_EQ(arithmetic_intensity(p, NaiveConfig{}), flops / (4 * (2 * mnk + m * n)));
  // Double precision moves twice the bytes.
  EXPECT_DOUBLE_EQ(arithmetic_intensity(square(1024, Precision::kDouble), t),
                   arithmetic_intensity(p, t) / 2);
  // Non-square: the same formula with m, n, k.
  GemmProblem r = p;
  r.m = 100, r.n = 300, r.k = 50;
  EXPECT_DOUBLE_EQ(
      arithmetic_intensity(r, t),
      2.0 * 100 * 300 * 50 / (4 * (100.0 * 300 * 50 * (1.0 / 64 + 1.0 / 128) + 100.0 * 300)));
  // A batch: its items' intensity (each item moves its own bytes for its own flops).
  GemmProblem batched = p;
  batched.batch = 100;
  EXPECT_DOUBLE_EQ(arithmetic_intensity(batched, t), arithmetic_intensity(p, t));
  // Bigger tiles, more reuse.
  EXPECT_GT(arithmetic_intensity(p, tiled(128, 128, 2)), arithmetic_intensity(p, t));
  EXPECT_GT(arithmetic_intensity(p, t), arithmetic_intensity(p, NaiveConfig{}));

  // Stored text gives the same, or nothing for what does not parse.
  EXPECT_EQ(arithmetic_intensity(p, "tiled", to_string(t)), arithmetic_intensity(p, t));
  EXPECT_EQ(arithmetic_intensity(p, "naive", ""), arithmetic_intensity(p, NaiveConfig{}));
  EXPECT_EQ(arithmetic_intensity(p, "classic", "TILE=16"), arithmetic_intensity(p, c));
  EXPECT_FALSE(arithmetic_intensity(p, "clblast_xgemm", "KWG=16"));
  EXPECT_FALSE(arithmetic_intensity(p, "tiled", "MWG=7"));
  EXPECT_FALSE(arithmetic_intensity(p, "", ""));
}

TEST(ReportProblemAxis, SquareIsNOtherwiseGeometricMean) {
  EXPECT_EQ(problem_size_axis(square(768)), 768.0);
  GemmProblem p;
  p.m = 1000, p.n = 8000, p.k = 125;
  EXPECT_NEAR(problem_size_axis(p), 1000.0, 1e-9);
}

TEST(ReportEscaping, EveryFormat) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\"\nbye"), "\"say \"\"hi\"\"\nbye\"");
  EXPECT_EQ(html_escape("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  // Invalid UTF-8 and control characters cannot reach an XML document.
  EXPECT_EQ(html_escape("a\xff\x01z"), "a\xEF\xBF\xBD z");
  EXPECT_EQ(html_escape("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(markdown_escape("a|b *c* _d_ [e](f) <g> & #"),
            "a\\|b \\*c\\* \\_d\\_ \\[e\\](f) \\<g\\> \\& \\#");
  EXPECT_EQ(markdown_escape("- item\nnext"), "\\- item next");
  // An imported vendor "1. Ven|dor" started an ordered list.
  EXPECT_EQ(markdown_escape("1. Ven|dor"), "1\\. Ven\\|dor");
  EXPECT_EQ(markdown_escape("12) x 3. y"), "12\\) x 3. y");
  // Only what would start a block is escaped: numbers stay as they are.
  EXPECT_EQ(markdown_escape("2.5 GFLOPS"), "2.5 GFLOPS");
  EXPECT_EQ(markdown_escape("-2.5"), "-2.5");
  EXPECT_EQ(markdown_escape("1."), "1\\.");
  EXPECT_EQ(markdown_escape("---"), "\\---");
  EXPECT_EQ(markdown_escape("=="), "\\==");
  // A table cell starts no list: its numbers stay as they are.
  EXPECT_EQ(markdown_cell("-2.5"), "-2.5");
  EXPECT_EQ(markdown_cell("1. Ven|dor"), "1. Ven\\|dor");
  // Formulas stay text in a spreadsheet; numbers stay numbers.
  EXPECT_EQ(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
  EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_field("-1.5"), "-1.5");
  EXPECT_EQ(csv_field("+cmd"), "'+cmd");
}

TEST(ReportSvg, ChartsAreWellFormedForAnyData) {
  svg::XYChart xy;
  xy.id = "t1";
  xy.title = "A <title> & more \x01\xef\xbf\xbf\xff";  // a stored name: control, U+FFFF, bad
  xy.x = {"size [elements]", svg::Scale::kLog2, std::nullopt, std::nullopt, false};
  xy.y = {"speed [GFLOPS]", svg::Scale::kLog10, std::nullopt, std::nullopt, false};
  for (const auto& pts : std::vector<std::vector<std::pair<double, double>>>{
           {}, {{1024, 5}}, {{0, 0}, {-1, 3}}, {{256, 1}, {512, 10}, {4096, 1e5}}}) {
    xy.series = {{"s \"1\"", pts, svg::Mark::kLinePoints, "", false},
                 {"s2", pts, svg::Mark::kStep, "#123456", true}};
    const std::string s = svg::render(xy, true);
    EXPECT_EQ(s.rfind("<svg", 0), 0u);
    EXPECT_NE(s.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
    EXPECT_EQ(s.substr(s.size() - 7), "</svg>\n");
    EXPECT_TRUE(well_formed(s)) << s;
    EXPECT_EQ(s.find_first_of("\x01\xff"), std::string::npos);
    EXPECT_EQ(s.find("\xef\xbf\xbf"), std::string::npos);
    EXPECT_EQ(svg::render(xy, false).find("http"), std::string::npos);
  }
  svg::BarChart bar;
  bar.id = "t2";
  bar.title = "bars";
  bar.value_label = "ratio [x]";
  bar.categories = {"a very long category name that needs slanting", "b", "c & d"};
  bar.series = {{"one", {1.5, std::nullopt, 3.0}, ""}, {"two", {2.0, 1.0}, ""}};
  for (const bool horizontal : {false, true}) {
    bar.horizontal = horizontal;
    bar.value_suffix = horizontal ? "x" : "";
    const std::string s = svg::render(bar, true);
    EXPECT_TRUE(well_formed(s)) << s;
    EXPECT_EQ(s.substr(s.size() - 7), "</svg>\n");
  }
  bar.categories.clear(), bar.series.clear();
  EXPECT_TRUE(well_formed(svg::render(bar, false)));
}

// The values of the y axis's tick labels (the texts that end at the axis).
std::vector<double> y_ticks(const std::string& svg) {
  std::vector<double> out;
  for (std::size_t at = svg.find("<text"); at != std::string::npos;
       at = svg.find("<text", at + 1)) {
    const std::size_t from = svg.find('>', at) + 1, to = svg.find('<', from);
    if (svg.substr(at, from - at).find("text-anchor=\"end\"") == std::string::npos) continue;
    out.push_back(std::stod(svg.substr(from, to - from)));
  }
  return out;
}

TEST(ReportSvg, AFixedEndOfAnAxisStaysWhereItIs) {
  // A replay whose every run found the optimum: each point at 1.0, the axis's fixed end. The
  // axis ran from 1 to 2 ("fraction of the optimum" 2), the curve on its lower frame.
  svg::XYChart xy;
  xy.id = "t3";
  xy.x = {"evaluations", svg::Scale::kLog2, std::nullopt, std::nullopt, true};
  xy.y = {"fraction", svg::Scale::kLinear, std::nullopt, 1.0, false};
  xy.series = {{"random", {{1, 1.0}, {2, 1.0}, {4, 1.0}}, svg::Mark::kLinePoints, "", false}};
  const auto ticks = y_ticks(svg::render(xy, true));
  ASSERT_GE(ticks.size(), 2u);
  EXPECT_EQ(*std::max_element(ticks.begin(), ticks.end()), 1.0);
  EXPECT_LT(*std::min_element(ticks.begin(), ticks.end()), 1.0);
}

TEST(ReportSvg, ValuesUnder10000AreNotInExponentForm) {
  EXPECT_EQ(svg::format_value(9999.7), "10000");  // was "1e+04"
  EXPECT_EQ(svg::format_value(-9999.7), "-10000");
  EXPECT_EQ(svg::format_value(9999.4), "9999");
  EXPECT_EQ(svg::format_value(123456.0), "123456");
  EXPECT_EQ(svg::format_value(0.25), "0.25");
}

}  // namespace
}  // namespace mmtune
