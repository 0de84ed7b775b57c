#include "cli_options.hpp"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <unistd.h>

#include "core/file_write.hpp"
#include "mmtune/error.hpp"
#include "store/sql.hpp"
#include "store/store.hpp"

namespace mmtune::cli {

void add_device_options(CLI::App* app, DeviceOptions& o, const std::string& device_help) {
  auto* device = app->add_option(
      "-d,--device", o.device,
      !device_help.empty()
          ? device_help
          : "device: index as listed by 'mmtune devices', or part of its name (tune: "
            "all, every device of the host); default: the most capable (compute units "
            "x clock x fp32 vector width, as 'mmtune devices' shows)");
  if (app->get_name() != "tune") device->check(one_device());
  app->add_option("--platform", o.platform,
                  "narrow the device choice to one platform (index or name)");
}

void add_problem_options(CLI::App* app, ProblemOptions& o, const std::string& what) {
  // Checked as given: an empty value ('') read as "not given" and became the square's size.
  app->add_option("--n", o.n, what + "columns of C (and m = k = n unless given)")
      ->check(positive_integer());
  app->add_option("--m", o.m, what + "rows of C (with --n)")->check(positive_integer());
  app->add_option("--k", o.k, what + "inner dimension (with --n)")->check(positive_integer());
  app->add_option("--precision", o.precision, what + "bits: 16, 32 or 64")
      ->check(CLI::IsMember({16, 32, 64}))
      ->capture_default_str();
  app->add_option("--layout", o.layout, what + "storage order of all matrices: row or col")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  app->add_flag("--trans-a", o.trans_a, what + "A is stored transposed");
  app->add_flag("--trans-b", o.trans_b, what + "B is stored transposed");
}

void add_batch_option(CLI::App* app, ProblemOptions& o) {
  app->add_option("--batch", o.batch,
                  "multiplications per call on matrices back to back (a strided-batched GEMM, "
                  "tuned as a problem of its own)")
      ->check(positive_integer());
}

std::string database_path(const std::string& db) {
  return db.empty() ? Store::default_path(true) : db;
}

void refuse_database_as_output(const std::string& path, const std::string& db) {
  const std::string database = db.empty() ? Store::default_path() : db;
  if (sql::is_postgres_url(database)) return;
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    if (std::filesystem::equivalent(path, database + suffix, ec)) {
      throw UsageError("'" + path + "' is the database" +
                       (*suffix ? std::string(" (its ") + (suffix + 1) + " file)" : std::string()) +
                       ": writing there would destroy every stored result");
    }
  }
}

std::string existing_database_path(const std::string& db) {
  const std::string path = db.empty() ? Store::default_path() : db;  // a reader creates nothing
  std::error_code ec;
  if (!sql::is_postgres_url(path) && !std::filesystem::exists(path, ec)) {
    throw UsageError("database '" + path + "' does not exist; tune, bench or import into it first");
  }
  return path;
}

std::size_t parse_size(const char* flag, const std::string& text) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::result_out_of_range) {
    throw UsageError(std::string(flag) + " " + text + " is too large");
  }
  if (ec != std::errc() || ptr != end || v == 0) {
    throw UsageError(std::string(flag) + " must be a positive integer, got '" + text + "'");
  }
  return static_cast<std::size_t>(v);
}

namespace {

// The store keeps counts and seeds as signed 64-bit integers: 2^64 - 1 was stored as -1.
constexpr std::uint64_t kStorable = std::uint64_t(INT64_MAX);

CLI::Validator integer_check(bool positive, std::uint64_t max = kStorable) {
  return CLI::Validator(
      [positive, max](std::string& text) -> std::string {
        std::uint64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (ec == std::errc::result_out_of_range) return "'" + text + "' is too large";
        if (text.empty() || text.front() == '-' || ec != std::errc() || ptr != end ||
            (positive && v == 0)) {
          return std::string("must be a ") + (positive ? "positive" : "non-negative") +
                 " integer, got '" + text.substr(0, 40) + "'";
        }
        if (v > max) return "must be at most " + std::to_string(max) + ", got " + text;
        return "";
      },
      positive           ? "POSITIVE"
      : max == kStorable ? "UINT"
                         : "0-" + std::to_string(max));
}

}  // namespace

CLI::Validator one_device() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        // Not an unknown device (exit 3): a usage of tune's alone.
        return text == "all" ? "all is tune's (every device of the host); this command takes one"
                             : "";
      },
      "");
}

CLI::Validator positive_integer() {
  return integer_check(true);
}

CLI::Validator non_negative_integer() {
  return integer_check(false);
}

CLI::Validator integer_at_most(std::uint64_t max) {
  return integer_check(false, max);
}

GemmProblem make_problem(const ProblemOptions& o) {
  if (!o.given()) throw UsageError("give the problem size: --n N (square) or --m M --n N --k K");
  // --m 5 alone read as a 5^3 GEMM, where the help's "m = k = n unless given" reads 5xNxN.
  if (o.n.empty()) throw UsageError("--m and --k need --n (the columns of C; --n N alone: N^3)");
  GemmProblem p;
  p.n = parse_size("--n", o.n);
  p.m = o.m.empty() ? p.n : parse_size("--m", o.m);
  p.k = o.k.empty() ? p.n : parse_size("--k", o.k);
  p.precision = static_cast<Precision>(o.precision);
  p.layout = o.layout == "col" ? Layout::kColMajor : Layout::kRowMajor;
  p.trans_a = o.trans_a;
  p.trans_b = o.trans_b;
  if (!o.batch.empty()) p.batch = parse_size("--batch", o.batch);
  return p;
}

bool layout_stated(const CLI::App& app) {
  return app.count("--layout") + app.count("--trans-a") + app.count("--trans-b") > 0;
}

bool shape_stated(const CLI::App& app) {
  return layout_stated(app) || app.count("--precision") > 0;
}

void refuse_shape_without_size(const CLI::App& app, const ProblemOptions& o) {
  if (!o.given() && shape_stated(app)) {
    throw UsageError("--precision, --layout and --trans-* describe a problem: give its size too");
  }
}

void refuse_problem_with_spec(const CLI::App& app, const ProblemOptions& o) {
  if (o.given() || !o.batch.empty() || shape_stated(app)) {
    throw UsageError(
        "--spec takes its problem from --size: drop --n, --m, --k and the GEMM's "
        "problem options");
  }
}

void refuse_given(const CLI::App& app, std::initializer_list<const char*> options,
                  const std::string& why) {
  for (const char* option : options) {
    if (app.count(option) > 0) throw UsageError(option + why);
  }
}

void refuse_with_spec(const CLI::App& app, std::initializer_list<const char*> options) {
  refuse_given(app, options, " and --spec exclude each other");
}

KernelSources load_sources(const GlobalOptions& g) {
  return g.kernels_dir.empty() ? KernelSources() : KernelSources(g.kernels_dir);
}

void check_output_writable(const std::string& path, const std::string& db) {
  if (path.empty() || path == "-") return;
  refuse_database_as_output(path, db);
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  if (fs::is_directory(path, ec)) throw UsageError("cannot write '" + path + "': a directory");
  if (fs::exists(path, ec) ? ::access(path.c_str(), W_OK) != 0
                           : ::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError("cannot write '" + path + "': " +
                     (fs::exists(path, ec) ? "the file is not writable"
                                           : "its directory '" + dir +
                                                 "' is missing or not "
                                                 "writable"));
  }
}

void write_output(const std::string& path, const std::string& text, const std::string& db) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) throw Error("cannot write to standard output");
    return;
  }
  refuse_database_as_output(path, db);
  write_text_file(path, text);
}

std::vector<KernelKind> searched_kernels(const std::string& name) {
  std::vector<KernelKind> all;
  std::string names;
  for (const auto& k : FamilyRegistry::builtin().all()) {
    if (k->role() != FamilyRole::kSearched) continue;
    all.push_back(k);
    names += kernel_name(k) + ", ";
  }
  if (name == "all") return all;
  for (const auto& k : all) {
    if (kernel_name(k) == name) return {k};
  }
  throw UsageError("unknown kernel '" + name.substr(0, 40) + "' (" + names + "or all)");
}

// "90s", "10m", "1h", "1h30m" or plain seconds.
double parse_duration(const std::string& text) {
  double total = 0.0;
  std::size_t i = 0;
  const std::string bad = "--time-limit '" + text + "' is not a duration like 90s, 10m or 1h";
  if (text.empty()) throw UsageError(bad);
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.'))
      ++j;
    double v = 0.0;
    // from_chars, not stod: "." or "1.2.3" are input errors, not exceptions from the library.
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + j, v);
    if (j == i || j - i > 12 || ec != std::errc() || end != text.data() + j) throw UsageError(bad);
    double unit = 1.0;
    if (j < text.size()) {
      const char u = text[j++];
      unit = u == 's' ? 1.0 : u == 'm' ? 60.0 : u == 'h' ? 3600.0 : -1.0;
      if (unit < 0) throw UsageError(bad);
    }
    total += v * unit;
    i = j;
  }
  if (!(total > 0.0)) throw UsageError("--time-limit must be positive");
  return total;
}

}  // namespace mmtune::cli
