// mmtune: maps the command line onto the library. No tuning logic lives here: one file per
// command group (cmd_*.cpp) maps its options; main() only dispatches.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <signal.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "git_commit.hpp"
#include "mmtune/error.hpp"
#include "opencl/kernel_source.hpp"
#include "store/sql.hpp"
#include "store/store.hpp"

#include "cli_options.hpp"
#include "cmd_bench.hpp"
#include "cmd_device.hpp"
#include "cmd_exchange.hpp"
#include "cmd_help.hpp"
#include "cmd_report.hpp"
#include "cmd_store.hpp"
#include "cmd_tune.hpp"

namespace {

using namespace mmtune;
using cli::GlobalOptions;

void setup_logging(const GlobalOptions& g) {
  auto logger = spdlog::stderr_color_mt("mmtune");
  logger->set_pattern("%^%l%$: %v");
  logger->set_level(g.quiet          ? spdlog::level::err
                    : g.verbose >= 2 ? spdlog::level::trace
                    : g.verbose == 1 ? spdlog::level::debug
                                     : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

// The tune command is the default: "mmtune --device 0 --n 2048" means "mmtune tune ...".
std::vector<std::string> with_default_command(int argc, char** argv, const CLI::App& app) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool has_command = false, wants_global = false;
  for (const auto& a : args) wants_global |= a == "-h" || a == "--help" || a == "--version";
  // The command is the first word that is no option (nor the global --kernels-dir's value): a
  // later word that names one is an option's value ("--db best").
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--kernels-dir") {
      ++i;
      continue;
    }
    if (args[i].rfind('-', 0) == 0) continue;
    for (const auto* sub : app.get_subcommands({})) has_command |= sub->check_name(args[i]);
    break;
  }
  if (!has_command && !(wants_global && args.size() == 1) && !args.empty()) {
    args.insert(args.begin(), "tune");
  }
  return args;
}

// An option given an empty value ("--db ''", "--device $UNSET") is refused: CLI11 takes it,
// and an empty string reads as "not given" everywhere (the default database, the first device).
std::string empty_value(const CLI::App& app) {
  std::vector<const CLI::App*> apps = {&app};
  for (const auto* sub : app.get_subcommands()) apps.push_back(sub);
  for (const auto* a : apps) {
    for (const auto* opt : a->get_options()) {
      if (opt->count() == 0 || opt->get_type_size() == 0) continue;  // not given, or a flag
      for (const auto& value : opt->results()) {
        if (value.empty()) {
          return opt->get_name() + ": an empty value" +
                 (opt->get_required() ? "" : " (leave the option out for its default)");
        }
      }
    }
  }
  return "";
}

// CLI11 (2.1) lists the arguments it did not expect from the reversed vector it consumes: put
// them back in the order they were given.
std::string in_given_order(const CLI::ParseError& e) {
  const std::string what = e.what();
  const auto colon = what.find(": ");
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr || colon == std::string::npos) {
    return what;
  }
  std::vector<std::string> words;
  std::istringstream in(what.substr(colon + 2));
  for (std::string w; in >> w;) words.push_back(w);
  std::string out = what.substr(0, colon + 1);
  for (auto it = words.rbegin(); it != words.rend(); ++it) out += " " + *it;
  return out;
}

// PoCL's CPU devices leave their worker threads to the OS unless POCL_AFFINITY=1: on a 2-core
// machine both workers often shared one core for a whole process (kernel alone at half speed in 3
// of 6 runs at 512^3, every run at full speed pinned; docs/usage.md). Other implementations
// ignore the variable; a user's own setting wins. Returns whether it was set here.
bool pin_pocl_workers() {
  if (std::getenv("POCL_AFFINITY")) return false;
  return setenv("POCL_AFFINITY", "1", 0) == 0;  // before the first OpenCL call
}

}  // namespace

int main(int argc, char** argv) {
  GlobalOptions g;
  for (std::size_t i = 0; i < std::size(cli::kStopSignals); ++i) {
    struct sigaction now = {};
    sigaction(cli::kStopSignals[i], nullptr, &now);
    g.ignored_at_start[i] = now.sa_handler == SIG_IGN;
  }
  const bool pinned = pin_pocl_workers();
  CLI::App app{"mmtune: generates, verifies, times and tunes OpenCL GEMM kernels for a device",
               "mmtune"};
  app.set_version_flag(
      "--version", std::string("mmtune ") + MMTUNE_VERSION + " (commit " + MMTUNE_GIT_COMMIT + ")");
  app.footer(
      "Examples:\n"
      "  mmtune devices                          list OpenCL devices\n"
      "  mmtune --n 2048                         tune a 2048^3 fp32 GEMM on the default device\n"
      "  mmtune space --kernel tiled --device 0  show a kernel's parameter space\n"
      "  mmtune run --kernel tiled --n 1024 --config \"MWG=64 NWG=64 ...\"\n"
      "Exit codes: 0 success, 1 failure, 2 bad usage or input (including a damaged database),\n"
      "3 no usable OpenCL device, 4 the database cannot be written (disk full, I/O error),\n"
      "130 interrupted.");
  app.require_subcommand(0, 1);
  app.fallthrough();
  app.add_flag("-v,--verbose", g.verbose, "more log output (repeat for more)");
  app.add_flag("-q,--quiet", g.quiet, "only errors on stderr");
  app.add_option(
      "--kernels-dir", g.kernels_dir,
      "read kernels/*.cl from this directory instead of the embedded copies (run and tune "
      "of the GEMM kernels; a tune of edited kernels needs its own --db)");

  cli::DeviceCommands device_cmds;
  device_cmds.add(app);
  cli::TuneCommands tune_cmds;
  tune_cmds.add(app);
  cli::StoreCommands store_cmds;
  store_cmds.add(app);
  cli::BenchCommands bench_cmds;
  bench_cmds.add(app);

  mmtune::cli::ExchangeCommands exchange;
  exchange.add(app);
  mmtune::cli::ReportCommand report;
  report.add(app);
  mmtune::cli::HelpCommands help_cmds;
  help_cmds.add(app);

  if (argc == 1) {  // nothing asked: a usage error, its help on stderr (stdout stays for output)
    std::cerr << app.help();
    return kExitUsage;
  }
  try {
    auto args = with_default_command(argc, argv, app);
    std::reverse(args.begin(), args.end());  // CLI11 consumes a reversed vector
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "mmtune: " << one_line(in_given_order(e)) << " (see mmtune --help)\n";
    return kExitUsage;
  }
  if (const std::string empty = empty_value(app); !empty.empty()) {
    std::cerr << "mmtune: " << empty << " (see mmtune --help)\n";
    return kExitUsage;
  }

  setup_logging(g);
  if (pinned) spdlog::debug("POCL_AFFINITY=1: PoCL's worker threads pinned one per core");
  try {
    // Only the GEMM kernels are read from it: elsewhere it was accepted and ignored.
    if (!g.kernels_dir.empty()) {
      const auto parsed = app.get_subcommands();
      const std::string command = parsed.empty() ? "tune" : parsed.front()->get_name();
      if (command != "run" && command != "tune") {
        throw UsageError("--kernels-dir is an option of run and tune (the GEMM kernels): " +
                         command + " does not read it");
      }
    }
    if (const int rc = device_cmds.run(g); rc >= 0) return rc;
    if (const int rc = store_cmds.run(); rc >= 0) return rc;
    if (const int rc = bench_cmds.run(g); rc >= 0) return rc;
    if (const int rc = exchange.run(); rc >= 0) return rc;
    if (const int rc = report.run(); rc >= 0) return rc;
    if (const int rc = help_cmds.run(); rc >= 0) return rc;
    std::string command_line = "mmtune";
    // Recorded with the session: a password in a connection URI stays out of the database, and
    // bytes that are no text (a file name's escape sequence) stay out of its exports.
    for (int i = 1; i < argc; ++i) command_line += " " + sql::redact_url(argv[i]);
    return tune_cmds.run(g, single_line(command_line, kMaxCommandLineBytes));
  } catch (const Error& e) {
    spdlog::error("{}", e.what());
    return e.exit_code();
  } catch (const sql::Error& e) {  // a database failure no command translated itself
    try {
      throw_database_error("", e);
    } catch (const Error& x) {
      spdlog::error("{}", x.what());
      return x.exit_code();
    }
  } catch (const cl::Error& e) {
    spdlog::error("OpenCL call {} failed with error {}", e.what(), e.err());
    return kExitFailure;
  } catch (const std::exception& e) {
    spdlog::error("{}", one_line(e.what()));
    return kExitFailure;
  }
}
