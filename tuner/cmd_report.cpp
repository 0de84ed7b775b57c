#include "cmd_report.hpp"

#include <cstdio>

#include "cli_options.hpp"
#include "mmtune/error.hpp"
#include "report/report.hpp"
#include "store/store.hpp"

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
  Store store(existing_database_path(db), Store::Access::kReadOnly);
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
