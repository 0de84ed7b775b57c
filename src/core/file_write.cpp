#include "core/file_write.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mmtune/error.hpp"

namespace mmtune {

// stdio rather than a stream: errno says why a write failed.
void write_text_file(const std::filesystem::path& path, const std::string& text) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int why = errno;
  if (f && std::fclose(f) != 0 && ok) ok = false, why = errno;
  if (ok) return;
  const std::string message = "cannot write '" + path.string() + "': " + std::strerror(why);
  if (why == EACCES || why == EPERM || why == EROFS || why == EISDIR || why == ENOTDIR ||
      why == ENOENT) {
    throw UsageError(message);
  }
  throw Error(message);
}

}  // namespace mmtune
