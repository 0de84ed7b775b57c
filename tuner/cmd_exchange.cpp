#include "cmd_exchange.hpp"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "mmtune/error.hpp"
#include "mmtune/exchange.hpp"
#include "mmtune/store.hpp"

namespace mmtune::cli {
namespace {

std::size_t parse_size(const char* flag, const std::string& text) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || v == 0) {
    throw UsageError(std::string(flag) + " must be a positive integer, got '" + text + "'");
  }
  return static_cast<std::size_t>(v);
}

// --n alone means a square problem, as in the other commands.
GemmProblem make_problem(const ExchangeCommands& o) {
  if (o.n.empty() && o.m.empty() && o.k.empty()) {
    throw UsageError("--format clblast needs the problem: --n N (square) or --m M --n N --k K");
  }
  const std::string& base = !o.n.empty() ? o.n : (!o.m.empty() ? o.m : o.k);
  const std::size_t square = parse_size("--n", base);
  GemmProblem p;
  p.m = o.m.empty() ? square : parse_size("--m", o.m);
  p.n = o.n.empty() ? square : parse_size("--n", o.n);
  p.k = o.k.empty() ? square : parse_size("--k", o.k);
  p.precision = static_cast<Precision>(o.precision);
  p.layout = o.layout == "col" ? Layout::kColMajor : Layout::kRowMajor;
  p.trans_a = o.trans_a;
  p.trans_b = o.trans_b;
  validate(p);
  return p;
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) throw Error("cannot write to standard output");
    return;
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) throw UsageError("cannot write '" + path + "'");
}

}  // namespace

void ExchangeCommands::add(CLI::App& app) {
  export_cmd = app.add_subcommand(
      "export", "write stored results as JSON, as a CLBlast tuner file or as a C++ header");
  export_cmd->add_option("--format", format, "json (everything), clblast or header")
      ->check(CLI::IsMember({"json", "clblast", "header"}))
      ->capture_default_str();
  export_cmd->add_option("-d,--device", device, "stored device: key or part of its name");
  export_cmd->add_option("--db", db, "tuning database");
  export_cmd->add_option("-o,--out", out, "output file (default: standard output)");
  export_cmd->add_option("--n", n, "clblast: columns of C (and m = k = n unless given)");
  export_cmd->add_option("--m", m, "clblast: rows of C");
  export_cmd->add_option("--k", k, "clblast: inner dimension");
  export_cmd->add_option("--precision", precision, "clblast: bits, 16, 32 or 64")
      ->check(CLI::IsMember({16, 32, 64}))
      ->capture_default_str();
  export_cmd->add_option("--layout", layout, "clblast: storage order, row or col")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  export_cmd->add_flag("--trans-a", trans_a, "clblast: A is stored transposed");
  export_cmd->add_flag("--trans-b", trans_b, "clblast: B is stored transposed");

  import_cmd = app.add_subcommand(
      "import", "merge an mmtune export or a clblast_tuner_xgemm JSON file into the database");
  import_cmd->add_option("file", file, "the file to import")->required();
  import_cmd->add_option("--db", db, "tuning database");
}

int ExchangeCommands::run() const {
  if (export_cmd && export_cmd->parsed()) {
    Store store(db.empty() ? Store::default_path() : db);
    if (format == "clblast") {
      const GemmProblem problem = make_problem(*this);
      const DeviceInfo d = find_stored_device(store, device);
      write_output(out, export_clblast(store, d.key, problem).dump(2) + "\n");
      return kExitOk;
    }
    const std::string key = device.empty() ? "" : find_stored_device(store, device).key;
    if (format == "header") {
      write_output(out, export_header(store, key));
    } else {
      write_output(out, export_json(store, key).dump(2) + "\n");
    }
    return kExitOk;
  }
  if (import_cmd && import_cmd->parsed()) {
    Store store(db.empty() ? Store::default_path() : db);
    const ImportSummary s = import_file(store, file);
    std::printf(
        "Imported %s (%s): %zu devices added (%zu known), %zu sessions added (%zu known), "
        "%zu measurements added (%zu already stored)\n",
        file.c_str(), s.format.c_str(), s.devices_added, s.devices_known, s.sessions_added,
        s.sessions_known, s.measurements_added, s.measurements_known);
    return kExitOk;
  }
  return -1;
}

}  // namespace mmtune::cli
