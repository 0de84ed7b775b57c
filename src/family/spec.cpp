#include "family/spec.hpp"

namespace mmtune {

std::size_t type_bytes(SpecType t) {
  switch (t) {
    case SpecType::kChar:
    case SpecType::kUchar:
      return 1;
    case SpecType::kShort:
    case SpecType::kUshort:
      return 2;
    case SpecType::kInt:
    case SpecType::kUint:
    case SpecType::kFloat:
      return 4;
    case SpecType::kLong:
    case SpecType::kUlong:
    case SpecType::kDouble:
      return 8;
  }
  return 0;
}

const char* to_string(SpecType t) {
  switch (t) {
    case SpecType::kChar:
      return "char";
    case SpecType::kUchar:
      return "uchar";
    case SpecType::kShort:
      return "short";
    case SpecType::kUshort:
      return "ushort";
    case SpecType::kInt:
      return "int";
    case SpecType::kUint:
      return "uint";
    case SpecType::kLong:
      return "long";
    case SpecType::kUlong:
      return "ulong";
    case SpecType::kFloat:
      return "float";
    case SpecType::kDouble:
      return "double";
  }
  return "?";
}

const std::vector<std::string>& spec_device_names() {
  static const std::vector<std::string> names = {"local_mem_size",
                                                 "max_work_group_size",
                                                 "max_work_item_size_x",
                                                 "max_work_item_size_y",
                                                 "max_work_item_size_z",
                                                 "compute_units",
                                                 "max_alloc_size",
                                                 "global_mem_size",
                                                 "preferred_vector_width_float",
                                                 "preferred_vector_width_double",
                                                 "preferred_vector_width_int",
                                                 "fp64",
                                                 "image_support"};
  return names;
}

}  // namespace mmtune
