// Help generated from the CLI11 definitions themselves, so it cannot drift from them: shell
// completion (`mmtune completion bash`) and the Markdown CLI reference (`mmtune cli-reference`,
// committed as docs/cli.md and compared with it by a test).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace mmtune::cli {

struct HelpCommands {
  // Adds "completion" and "cli-reference" to the application; add them last.
  void add(CLI::App& app);
  // Runs the one that was parsed and returns its exit code; -1 when neither was.
  int run() const;

  CLI::App* root = nullptr;
  CLI::App* completion = nullptr;
  CLI::App* reference = nullptr;
  std::string shell = "bash";
};

// A bash completion script for `app`: its subcommands, and each one's options with the global
// ones.
std::string bash_completion(const CLI::App& app);
// Every command's help, as Markdown.
std::string cli_reference(const CLI::App& app);

}  // namespace mmtune::cli
