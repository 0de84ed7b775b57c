// 64-bit FNV-1a fed in pieces: a data file of any size is hashed without being held in memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace mmtune {

class ContentHasher {
 public:
  void add(std::string_view bytes);
  // The file's bytes, read a block at a time; nothing when it cannot be opened (whoever reads
  // it for use says why).
  void add_file(const std::filesystem::path& file);
  // 16 hex digits: the same as content_hash of everything added, concatenated.
  std::string hex() const;

 private:
  std::uint64_t h_ = 14695981039346656037ull;
};

}  // namespace mmtune
