#include "cmd_report.hpp"

#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include "cli_options.hpp"
#include "mmtune/error.hpp"
#include "report/report.hpp"
#include "store/store.hpp"

namespace mmtune::cli {
namespace {

// Starts xdg-open on `path` without a shell; says so when there is none (a server, CI).
void open_in_browser(const std::string& path) {
  const char* argv[] = {"xdg-open", path.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char* const*>(argv), environ) !=
      0) {
    spdlog::warn("no browser opener (xdg-open) here: open {} yourself", path);
    return;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    spdlog::warn("xdg-open could not open {}", path);
  }
}

}  // namespace

void ReportCommand::add(CLI::App& app) {
  cmd = app.add_subcommand(
      "report", "write an HTML and a Markdown report with charts, and CSV files of the results");
  cmd->add_option("--db", db, "tuning database");
  cmd->add_option("-o,--out", out, "output directory")->capture_default_str();
  cmd->add_option("-d,--devices,--device", devices,
                  "stored devices to report: keys or parts of names (default: all)");
  cmd->add_flag("--open", open, "open report.html in a browser (xdg-open) when there is one");
}

int ReportCommand::run() const {
  if (!cmd || !cmd->parsed()) return -1;
  Store store(existing_database_path(db), Store::Access::kReadOnly);
  ReportOptions options;
  options.out_dir = out;
  options.devices = devices;
  options.refuse_target = [&](const std::string& path) { refuse_database_as_output(path, db); };
  const ReportSummary s = write_report(store, options);
  std::printf("Report of %zu device(s), %zu chart(s):\n", s.devices, s.charts);
  for (const auto& f : s.files) std::printf("  %s\n", f.c_str());
  const std::string html = std::filesystem::absolute(s.files.front()).lexically_normal().string();
  std::printf("Open %s\n", html.c_str());
  std::fflush(stdout);
  if (open) open_in_browser(html);
  return kExitOk;
}

}  // namespace mmtune::cli
