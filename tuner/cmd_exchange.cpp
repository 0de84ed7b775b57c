#include "cmd_exchange.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>

#include <spdlog/spdlog.h>

#include "core/text.hpp"
#include "exchange/exchange.hpp"
#include "mmtune/error.hpp"
#include "store/store.hpp"

namespace mmtune::cli {
namespace {
// A stored text of bytes that are no UTF-8 (a driver's device name, an older database's command
// line) is written as U+FFFD rather than failing the whole export.
constexpr auto kReplaceInvalidUtf8 = nlohmann::json::error_handler_t::replace;
}  // namespace

void ExchangeCommands::add(CLI::App& app) {
  export_cmd = app.add_subcommand(
      "export",
      "write stored results as JSON, as a CLBlast tuner file, as a Kernel Tuner cache file or as "
      "a C++ header");
  export_cmd->add_option("--format", format, "json (everything), clblast, kerneltuner or header")
      ->check(CLI::IsMember({"json", "clblast", "kerneltuner", "header"}))
      ->capture_default_str();
  export_cmd->add_option("--kernel", kernel, "kerneltuner: the kernel (tiled, direct, kt:NAME)")
      ->capture_default_str();
  export_cmd->add_option("-d,--device", device, "stored device: key or part of its name");
  export_cmd->add_option("--db", db, "tuning database");
  export_cmd->add_option("-o,--out", out, "output file (default: standard output)");
  add_problem_options(export_cmd, problem, "clblast, kerneltuner: ");

  import_cmd = app.add_subcommand(
      "import",
      "merge an mmtune export, a clblast_tuner_xgemm JSON file, a Kernel Tuner cache file or a "
      "Kernel Tuner T4 results file into the database");
  import_cmd->add_option("file", file, "the file to import")->required();
  import_cmd->add_option("--db", db, "tuning database");
  add_problem_options(import_cmd, import_problem, "Kernel Tuner cache: ");
}

int ExchangeCommands::run() const {
  if (export_cmd && export_cmd->parsed()) {
    if (format != "kerneltuner") {
      refuse_given(
          *export_cmd, {"--kernel"},
          " goes with --format kerneltuner; --format " + format + " has no choice of kernel");
    }
    Store store(existing_database_path(db), Store::Access::kReadOnly);
    if (format == "clblast" || format == "kerneltuner") {
      if (!problem.given()) {
        throw UsageError("--format " + format +
                         " needs the problem: --n N (square) or --m M --n N --k K");
      }
      const GemmProblem p = make_problem(problem);
      validate(p);
      const DeviceInfo d = find_stored_device(store, device);
      nlohmann::ordered_json j;
      if (format == "clblast") {
        auto e = export_clblast(store, d.key, p);
        if (!e.note.empty()) spdlog::warn("{}", e.note);
        j = std::move(e.file);
      } else {
        j = export_kerneltuner(store, d.key, p, kernel);
      }
      write_output(out, j.dump(2, ' ', false, kReplaceInvalidUtf8) + "\n", db);
      return kExitOk;
    }
    if (problem.given() || shape_stated(*export_cmd)) {
      throw UsageError("--format " + format + " exports every problem: drop the problem options");
    }
    const std::string key = device.empty() ? "" : find_stored_device(store, device).key;
    if (format == "header") {
      write_output(out, export_header(store, key), db);
    } else {
      write_output(out, export_json(store, key).dump(2, ' ', false, kReplaceInvalidUtf8) + "\n",
                   db);
    }
    return kExitOk;
  }
  if (import_cmd && import_cmd->parsed()) {
    if (!import_problem.given() && shape_stated(*import_cmd)) {
      throw UsageError(
          "--precision, --layout and --trans-* go with --n for a Kernel Tuner file; other files "
          "name their own problems");
    }
    std::optional<ImportProblem> p;
    if (import_problem.given()) {
      p = ImportProblem(make_problem(import_problem), layout_stated(*import_cmd));
      validate(p->problem);
    }
    // Read before the database is opened: a refused file leaves no new, empty database behind.
    const ImportData data = read_import_file(file, p);
    Store store(database_path(db));
    const ImportSummary s = store_import(store, data);
    const std::string repeated =
        s.measurements_repeated
            ? "; " + std::to_string(s.measurements_repeated) + " repeated in the file, stored once"
            : "";
    std::printf(
        "Imported %s (%s): %zu devices added (%zu known), %zu sessions added (%zu known), "
        "%zu measurements added (%zu already stored%s)\n",
        valid_utf8(file, /*keep_lines=*/false).c_str(), s.format.c_str(), s.devices_added,
        s.devices_known, s.sessions_added, s.sessions_known, s.measurements_added,
        s.measurements_known, repeated.c_str());
    return kExitOk;
  }
  return -1;
}

}  // namespace mmtune::cli
