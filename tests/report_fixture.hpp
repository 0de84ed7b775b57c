// Shared by the report tests (test_report.cpp, test_report_parts.cpp): problems, tiled
// configurations and a markup checker.
#pragma once

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "mmtune/gemm_kernels.hpp"
#include "mmtune/problem.hpp"

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

}  // namespace mmtune::report_test
