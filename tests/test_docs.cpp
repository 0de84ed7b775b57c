// Every command shown in README.md and docs/ works: a concrete command runs through bash against
// the built mmtune and exits 0; a synopsis ("--device D [--json]") names only options the
// subcommand has. (The C++ programs of the same files are compiled by ConsumerPackage.)
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "store/sql_backend.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

const std::string kSourceDir = std::string(MMTUNE_KERNELS_DIR) + "/..";

struct DocCommand {
  std::string where;  // file:line
  std::string text;   // continuation lines joined, comment removed
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Lines that start with `mmtune` or `scripts/` inside ```, ```sh and ```bash blocks; an indented
// line continues the command above it (the synopses wrap that way).
std::vector<DocCommand> commands_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<DocCommand> out;
  std::string line;
  bool in_block = false, shell = false, continues = false;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.rfind("```", 0) == 0) {
      const std::string lang = trim(line.substr(3));
      shell = !in_block && (lang.empty() || lang == "sh" || lang == "bash");
      in_block = !in_block;
      continues = false;
      continue;
    }
    if (!in_block || !shell) continue;
    std::string text = line;
    if (const auto hash = text.find(" #"); hash != std::string::npos) text.resize(hash);
    if (continues && !text.empty() && (text[0] == ' ' || text[0] == '\t')) {
      out.back().text += " " + trim(text);
      continue;
    }
    text = trim(text);
    continues = text.rfind("mmtune", 0) == 0 || text.rfind("scripts/", 0) == 0;
    if (continues) {
      out.push_back({file.filename().string() + ":" + std::to_string(number), text});
    }
  }
  return out;
}

std::vector<DocCommand> all_commands() {
  std::vector<std::filesystem::path> files = {kSourceDir + "/README.md"};
  for (const auto& e : std::filesystem::directory_iterator(kSourceDir + "/docs")) {
    if (e.path().extension() == ".md") files.push_back(e.path());
  }
  std::sort(files.begin() + 1, files.end());
  std::vector<DocCommand> out;
  for (const auto& f : files) {
    const auto c = commands_in(f);
    out.insert(out.end(), c.begin(), c.end());
  }
  return out;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A synopsis has placeholders: optional parts, alternatives or capitalised names (D, N, FILE).
bool is_synopsis(const std::string& text) {
  if (text.find_first_of("[|") != std::string::npos) return true;
  for (const auto& w : words(text)) {
    if (std::isupper(static_cast<unsigned char>(w[0]))) return true;
  }
  return false;
}

// The subcommand a `mmtune ...` line runs: tuning when the first word is an option.
std::string subcommand(const std::vector<std::string>& w) {
  if (w.size() < 2 || w[1][0] == '-' || w[1] == "[tune]") return "tune";
  return w[1];
}

struct Shell {
  test::TempDir dir;
  Shell() {
    // The documented paths are relative to the repository; what the commands write stays here.
    std::filesystem::create_directory_symlink(kSourceDir + "/examples", dir / "examples");
  }
  // Runs `line` with bash in the scratch directory, mmtune on PATH, a private database.
  test::CommandResult run(const std::string& line) {
    const std::string bin = std::filesystem::path(MMTUNE_BINARY).parent_path().string();
    std::ofstream(dir / "command.sh") << "export PATH='" << bin << "':\"$PATH\"\n"
                                      << "export MMTUNE_DB='" << (dir / "tuning.db") << "'\n"
                                      << "export TMPDIR='" << dir.path << "'\n"
                                      << "cd '" << dir.path << "'\n"
                                      << line << "\n";
    const std::string cmd = "bash '" + (dir / "command.sh") + "' > '" + (dir / "out.txt") +
                            "' 2> '" + (dir / "err.txt") + "' < /dev/null";
    const int status = std::system(cmd.c_str());
    test::CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream o(dir / "out.txt"), e(dir / "err.txt");
    r.out.assign(std::istreambuf_iterator<char>(o), {});
    r.err.assign(std::istreambuf_iterator<char>(e), {});
    return r;
  }
};

// The suite checks that each documented command works as written, in seconds: problem sizes
// over 256 become 128 (in `--size` lists, 256) and tunes get a budget of 2 evaluations. (The
// documented sizes themselves are what the README's figures and the bench measured.)
std::string scaled_down(const std::string& text, bool tune) {
  auto w = words(text);
  bool budget = false;
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    std::string& value = w[i + 1];
    if (w[i] == "--budget") {
      value = "2";
      budget = true;
    } else if ((w[i] == "--n" || w[i] == "--m" || w[i] == "--k") && std::stol(value) > 256) {
      value = "128";
    } else if (w[i] == "--size") {
      std::string out, part;
      std::istringstream in(value);
      while (std::getline(in, part, ',')) {
        out += (out.empty() ? "" : ",") + (std::stol(part) > 256 ? std::string("256") : part);
      }
      value = out;
    }
  }
  std::string out;
  for (const auto& x : w) out += (out.empty() ? "" : " ") + x;
  return budget || !tune ? out : out + " --budget 2";
}

TEST(Docs, EverySynopsisNamesOptionsTheCommandHas) {
  Shell shell;
  int synopses = 0;
  for (const auto& c : all_commands()) {
    if (!is_synopsis(c.text) || c.text.rfind("mmtune", 0) != 0) continue;
    ++synopses;
    const auto w = words(c.text);
    const std::string sub = subcommand(w);
    const auto help = shell.run("mmtune " + sub + " --help");
    ASSERT_EQ(help.exit_code, 0) << c.where << ": mmtune " << sub << " --help: " << help.err;
    for (auto word : w) {
      const auto start = word.find("--");
      if (start == std::string::npos) continue;
      std::size_t end = start + 2;
      while (end < word.size() &&
             (std::isalnum(static_cast<unsigned char>(word[end])) || word[end] == '-')) {
        ++end;
      }
      if (end == start + 2) continue;
      word = word.substr(start, end - start);
      bool found = false;
      for (auto at = help.out.find(word); at != std::string::npos && !found;
           at = help.out.find(word, at + 1)) {
        const char next = at + word.size() < help.out.size() ? help.out[at + word.size()] : ' ';
        found = !(std::isalnum(static_cast<unsigned char>(next)) || next == '-');
      }
      EXPECT_TRUE(found) << c.where << ": `" << word << "` is not an option of mmtune " << sub
                         << " (" << c.text << ")";
    }
  }
  EXPECT_GE(synopses, 10) << "the usage and exchange docs show the commands' synopses";
}

TEST(Docs, EveryCommandRuns) {
  Shell shell;
  int ran = 0;
  for (const auto& c : all_commands()) {
    if (is_synopsis(c.text)) continue;
    auto w = words(c.text);
    std::string line = c.text;
    if (w[0] == "scripts/dev.sh") {
      ASSERT_GE(w.size(), 2u) << c.where;
      if (w[1] == "test") continue;  // the command running this suite
      // `tune` installs and builds (done here), then runs mmtune with the same arguments.
      ASSERT_EQ(w[1], "tune") << c.where << ": a scripts/dev.sh command this test does not know";
      line = "mmtune" + c.text.substr(c.text.find("tune") + 4);
    } else if (w[0].rfind("scripts/", 0) == 0) {
      // The sanitizer and fuzzing stages run in `scripts/dev.sh test` itself.
      EXPECT_EQ(access((kSourceDir + "/" + w[0]).c_str(), X_OK), 0) << c.where << ": " << w[0];
      continue;
    }
    line = scaled_down(line, subcommand(words(line)) == "tune");
    // Mesa's llvmpipe stays off: `--device all` tunes the two PoCL devices.
    const auto r = shell.run("export RUSTICL_ENABLE=\n" + line);
    ++ran;
    EXPECT_EQ(r.exit_code, 0) << c.where << ": " << line << "\n" << r.err.substr(0, 2000);
  }
  EXPECT_GE(ran, 6) << "README.md and docs/usage.md show commands to run";
}

// Committed output (results/) is read on other machines: paths in it are relative to the
// repository, never this machine's (a database path in a summary, a report, a session's command).
TEST(Docs, CommittedOutputNamesNoMachinePaths) {
  const std::vector<std::string> roots = {"/tmp/", "/home/", "/root/", "/work/", "/check/"};
  const auto machine_path = [&](const std::string& text) -> std::string {
    for (const auto& r : roots) {
      if (const auto at = text.find(r); at != std::string::npos) return text.substr(at, 60);
    }
    return "";
  };
  int files = 0, databases = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kSourceDir + "/results")) {
    const auto name = e.path().string();
    if (!e.is_regular_file() || name.find("/.work/") != std::string::npos) continue;
    const auto ext = e.path().extension().string();
    if (ext == ".db") {
      sql::Database d(name, sql::OpenMode::kReadOnly);
      auto q = d.prepare("SELECT command_line FROM sessions");
      while (q.step()) EXPECT_EQ(machine_path(q.text(0)), "") << name << ": " << q.text(0);
      ++databases;
      continue;
    }
    if (ext != ".txt" && ext != ".md" && ext != ".html" && ext != ".json" && ext != ".csv")
      continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(machine_path(text), "") << name;
    ++files;
  }
  EXPECT_GE(files, 10);
  EXPECT_GE(databases, 1);
}

}  // namespace
}  // namespace mmtune
