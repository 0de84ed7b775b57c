#include "cmd_report.hpp"

#include <cstdio>
#include <filesystem>

#include "mmtune/error.hpp"
#include "mmtune/report.hpp"
#include "mmtune/sql.hpp"
#include "mmtune/store.hpp"

namespace mmtune::cli {

void ReportCommand::add(CLI::App& app) {
  cmd = app.add_subcommand(
      "report", "write an HTML and a Markdown report with charts, and CSV files of the results");
  cmd->add_option("--db", db, "tuning database");
  cmd->add_option("-o,--out", out, "output directory")->capture_default_str();
  cmd->add_option("-d,--devices", devices,
                  "stored devices to report: keys or parts of names (default: all)");
}

int ReportCommand::run() const {
  if (!cmd || !cmd->parsed()) return -1;
  const std::string path = db.empty() ? Store::default_path() : db;
  // A report reads: a database that does not exist is a mistake, not an empty report (opening it
  // would create it).
  std::error_code ec;
  if (!sql::is_postgres_url(path) && !std::filesystem::exists(path, ec)) {
    throw UsageError("database '" + path + "' does not exist; tune, bench or import into it first");
  }
  Store store(path);
  ReportOptions options;
  options.out_dir = out;
  options.devices = devices;
  const ReportSummary s = write_report(store, options);
  std::printf("Report of %zu device(s), %zu chart(s):\n", s.devices, s.charts);
  for (const auto& f : s.files) std::printf("  %s\n", f.c_str());
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace mmtune::cli
