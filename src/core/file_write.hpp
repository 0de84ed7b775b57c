// Writing a whole output file (a report, an export) with the reason a write failed.
#pragma once

#include <filesystem>
#include <string>

namespace mmtune {

// Writes `text` to `path`, replacing it. A place the user chose that cannot hold the file (no
// such directory, a directory, no permission, a read-only file system) is a UsageError (exit 2);
// a full disk or an I/O error an Error (exit 1). Both name the file and errno's reason.
void write_text_file(const std::filesystem::path& path, const std::string& text);

}  // namespace mmtune
