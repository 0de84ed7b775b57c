// Shared by the spec tests (test_spec_verify.cpp, test_spec_session.cpp): a one-dimensional
// spec and the arguments most of them need.
#pragma once

#include <string>

namespace mmtune::spec_test {

// A spec of kernel `name` in name.cl over one size n, one work-item per element.
inline std::string one_dimensional(const std::string& name, const std::string& parameter,
                                   const std::string& rest) {
  return "name = \"" + name + "\"\nsource = \"" + name + ".cl\"\nkernel = \"" + name +
         "\"\nsizes = [\"n\"]\n[parameters]\n" + parameter +
         "\n[launch]\nproblem = [\"n\"]\nlocal = [8]\n" + rest;
}

// A float output y of n elements and n as an int scalar: the arguments most tests need.
inline const std::string kYAndN = R"([[arguments]]
name = "y"
type = "float"
size = "n"
output = true
[[arguments]]
name = "n"
kind = "scalar"
type = "int"
value = "n"
)";

}  // namespace mmtune::spec_test
