// One strategy per file, each described by one StrategyInfo (name, meaning, options table,
// factory); registry.cpp lists them in order.
#pragma once

#include <memory>
#include <span>

#include "search/strategy.hpp"

namespace mmtune {

struct StrategyInfo {
  const char* name;
  const char* help;  // one line
  std::span<const StrategyOption> options;
  std::unique_ptr<Strategy> (*make)(const SearchSpace&, const StrategyOptions&);
};

extern const StrategyInfo kExhaustiveStrategy;
extern const StrategyInfo kRandomStrategy;
extern const StrategyInfo kAnnealingStrategy;
extern const StrategyInfo kGeneticStrategy;
extern const StrategyInfo kModelStrategy;

}  // namespace mmtune
