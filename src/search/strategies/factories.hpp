// One factory per strategy file; registry.cpp maps the names onto them in an explicit table.
#pragma once

#include <memory>

#include "search/strategy.hpp"

namespace mmtune {

std::unique_ptr<Strategy> make_exhaustive_strategy(const SearchSpace& space,
                                                   const StrategyOptions& options);
std::unique_ptr<Strategy> make_random_strategy(const SearchSpace& space,
                                               const StrategyOptions& options);
std::unique_ptr<Strategy> make_annealing_strategy(const SearchSpace& space,
                                                  const StrategyOptions& options);
std::unique_ptr<Strategy> make_genetic_strategy(const SearchSpace& space,
                                                const StrategyOptions& options);
std::unique_ptr<Strategy> make_model_strategy(const SearchSpace& space,
                                              const StrategyOptions& options);

}  // namespace mmtune
