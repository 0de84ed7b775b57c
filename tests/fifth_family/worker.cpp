// `mmtune worker` for a program with its own kernel family: the tests' tuning worker that knows
// the rowwise family.
#include <iostream>

#include "fifth_family/rowwise.hpp"
#include "tune/worker.hpp"

int main() {
  return mmtune::run_worker(std::cin, std::cout, mmtune::test::families_with_rowwise());
}
