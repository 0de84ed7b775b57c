#include "core/content_hash.hpp"

#include <array>
#include <cstdio>
#include <fstream>

#include "mmtune/device_info.hpp"

namespace mmtune {

void ContentHasher::add(std::string_view bytes) {
  for (unsigned char c : bytes) {
    h_ ^= c;
    h_ *= 1099511628211ull;
  }
}

void ContentHasher::add_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::array<char, 1 << 16> block;
  while (in.read(block.data(), block.size()) || in.gcount() > 0) {
    add(std::string_view(block.data(), std::size_t(in.gcount())));
  }
}

std::string ContentHasher::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
  return buf;
}

std::string content_hash(const std::string& text) {
  ContentHasher h;
  h.add(text);
  return h.hex();
}

}  // namespace mmtune
