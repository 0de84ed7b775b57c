// Import's outer door: reading a file within the limits, parsing JSON without hostile nesting,
// and recognising which format it is (the readers validate; store/import.cpp stores).
#include <sys/stat.h>

#include <cctype>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "core/text.hpp"
#include "exchange/exchange.hpp"
#include "mmtune/error.hpp"

namespace mmtune {
namespace {

using json = nlohmann::json;

std::string file_timestamp(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return now_utc();
  std::tm tm{};
  gmtime_r(&st.st_mtime, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

json parse_exchange_json(const std::string& text) {
  if (text.size() > kMaxImportBytes) {
    throw UsageError("input is larger than " + std::to_string(kMaxImportBytes >> 20) + " MiB");
  }
  // Depth first, so that no parser ever sees hostile nesting.
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxImportDepth) {
        throw UsageError("JSON nested deeper than " + std::to_string(kMaxImportDepth) + " levels");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    std::string what = e.what();
    if (const auto p = what.find("] ");
        what.rfind("[json.exception", 0) == 0 && p != std::string::npos) {
      what = what.substr(p + 2);
    }
    // The parser quotes what it read last: keep raw bytes out of a one-line message.
    for (char& c : what) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    throw UsageError("not valid JSON: " + what.substr(0, 300));
  }
}

namespace {

// Kernel Tuner appends each result to its cache file and closes the file only when the run
// ends: an interrupted run leaves it open. Kernel Tuner reads such a file (correct_open_cache)
// with a trailing comma dropped and the cache and file closed; so does the import. Nothing for
// any other text.
std::optional<json> closed_kerneltuner_cache(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (text.empty() || text.find("\"tune_params_keys\"") == std::string::npos ||
      text.find("\"cache\"") == std::string::npos || text.ends_with("}\n}") ||
      text.ends_with("}}}")) {
    return std::nullopt;
  }
  if (text.back() == ',') text.pop_back();
  try {
    json j = parse_exchange_json(text + "}\n}");
    if (is_kerneltuner_cache(j)) return j;
  } catch (const UsageError&) {
  }
  return std::nullopt;
}

// import_text's reading half: no database is touched.
ImportData read_import_text(const std::string& text, const std::string& name,
                            const std::string& timestamp,
                            const std::optional<ImportProblem>& problem) {
  ImportData data;
  try {
    json j;
    bool closed_here = false;
    try {
      j = parse_exchange_json(text);
    } catch (const UsageError&) {
      auto closed = closed_kerneltuner_cache(text);
      if (!closed) throw;
      j = std::move(*closed);
      closed_here = true;
    }

    if (j.is_object() && j.contains("format")) {
      if (problem)
        throw UsageError("an mmtune export names its problems: drop the problem options");
      data = read_mmtune_export(j);
    } else if (is_clblast_tuner_file(j)) {
      if (problem) {
        throw UsageError("a CLBlast tuner file names its problem: drop the problem options");
      }
      data = read_clblast_tuner_file(j, name, timestamp.empty() ? now_utc() : timestamp);
    } else if (is_kerneltuner_cache(j)) {
      data = read_kerneltuner_cache(j, name, timestamp.empty() ? now_utc() : timestamp, problem);
    } else if (is_t4_results(j)) {
      data = read_kerneltuner_cache(t4_as_cache(j, name), name,
                                    timestamp.empty() ? now_utc() : timestamp, problem);
    } else {
      throw UsageError(
          "neither an mmtune export, a CLBlast tuner file nor a Kernel Tuner cache or T4 file");
    }
    if (closed_here)
      data.format += ", a cache its interrupted run left open, read as Kernel Tuner does";
  } catch (const UsageError& e) {
    throw UsageError("cannot import '" + name + "': " + e.what());
  }
  return data;
}

}  // namespace

ImportSummary import_text(Store& store, const std::string& text, const std::string& name,
                          const std::string& timestamp,
                          const std::optional<ImportProblem>& problem) {
  return store_import(store, read_import_text(text, name, timestamp, problem));
}

ImportedSession foreign_session(const std::string& device_key, const std::string& tool,
                                const std::string& kernels, const std::string& space,
                                std::size_t results, const GemmProblem& problem,
                                const std::string& name, const std::string& timestamp) {
  ImportedSession session;
  session.mmtune_version = MMTUNE_VERSION;
  SessionRecord& s = session.record;
  s.id = 1;
  s.device_key = device_key;
  const std::string file = std::filesystem::path(name).filename().string();
  // A file's name may hold any bytes but '/' and NUL: the session's text must be text.
  s.command_line =
      tool + " (imported from " + valid_utf8(file.substr(0, 1000), /*keep_lines=*/false) + ")";
  s.strategy = tool;
  s.kernels = kernels;
  s.space = space;
  s.budget = results;
  s.problem = problem;
  s.started_at = s.ended_at = timestamp;
  s.outcome = kImportedOutcome;
  return session;
}

std::string read_exchange_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw UsageError("cannot read '" + path + "': no such file");
  // "read", not "import": bench --clblast-tuned reads its files through here too.
  if (!S_ISREG(st.st_mode)) throw UsageError("cannot read '" + path + "': not a regular file");
  if (std::uint64_t(st.st_size) > kMaxImportBytes) {
    throw UsageError("cannot read '" + path + "': larger than " +
                     std::to_string(kMaxImportBytes >> 20) + " MiB");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read '" + path + "'");
  std::string text;
  text.resize(std::size_t(st.st_size));
  in.read(text.data(), std::streamsize(text.size()));
  if (std::size_t(in.gcount()) != text.size()) throw UsageError("cannot read '" + path + "'");
  return text;
}

ImportData read_import_file(const std::string& path, const std::optional<ImportProblem>& problem) {
  return read_import_text(read_exchange_file(path), path, file_timestamp(path), problem);
}

ImportSummary import_file(Store& store, const std::string& path,
                          const std::optional<ImportProblem>& problem) {
  return store_import(store, read_import_file(path, problem));
}

}  // namespace mmtune
