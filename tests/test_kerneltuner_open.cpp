// A Kernel Tuner cache its run left open (interrupted: Kernel Tuner appends each result and
// closes the file only at the end) imports as Kernel Tuner itself reads it.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.hpp"

namespace mmtune {
namespace {

// The first `entries` results of a real cache, written as Kernel Tuner writes them during a
// run: the header, then one `"key": {...},` line per result, never closed.
std::string open_cache(std::size_t entries) {
  std::ifstream in(std::string(MMTUNE_LANDSCAPES_DIR) + "/convolution_A100_run1.json");
  const auto full = nlohmann::json::parse(in);
  nlohmann::json header = full;
  header.erase("cache");
  std::string text = header.dump();
  text.pop_back();  // the closing brace: the cache follows
  text += ", \"cache\": {";
  std::size_t n = 0;
  for (const auto& [key, value] : full["cache"].items()) {
    if (n++ == entries) break;
    text += "\n" + nlohmann::json(key).dump() + ": " + value.dump() + ",";
  }
  return text + "\n";
}

TEST(KernelTunerOpenCache, ImportsAsKernelTunerReadsIt) {
  test::TempDir dir;
  std::ofstream(dir / "open.json") << open_cache(20);
  auto r = test::run_mmtune({"import", dir / "open.json", "--db", dir / "t.db", "--n", "4096"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("left open"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("20 measurements added"), std::string::npos) << r.out;
  // A result cut off mid-entry is no result: refused, as Kernel Tuner refuses it.
  std::string cut = open_cache(20);
  cut.resize(cut.size() - 30);
  std::ofstream(dir / "cut.json") << cut;
  r = test::run_mmtune({"import", dir / "cut.json", "--db", dir / "t.db", "--n", "4096"});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.out;
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
}

// A CLBlast or Kernel Tuner file carries no date: its rows are dated with the file's time. A copy
// or a `touch` gave the same file another date, and importing it again stored it twice.
TEST(KernelTunerOpenCache, AFileImportedAgainAddsOnlyWhatIsNewWhateverItsTime) {
  test::TempDir dir;
  const auto db = dir / "t.db";
  const auto later = [](const std::string& file, int hours) {
    std::filesystem::last_write_time(
        file, std::filesystem::last_write_time(file) + std::chrono::hours(hours));
  };
  const auto rows = [&](const char* table) {
    return test::count_rows(db, std::string("SELECT COUNT(*) FROM ") + table);
  };
  const auto import = [&](const std::string& file) {
    return test::run_mmtune({"-q", "import", file, "--db", db, "--n", "4096"});
  };
  // The run's cache written as `text`, dated `hours` later than now, imported.
  const auto import_run = [&](const std::string& text, int hours) {
    std::ofstream(dir / "run.json") << text;
    later(dir / "run.json", hours);
    return import(dir / "run.json");
  };
  ASSERT_EQ(import_run(open_cache(20), 0).exit_code, 0);
  auto r = import_run(open_cache(20), 1);  // the same file, touched
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 sessions added (1 known), 0 measurements added (20 already stored"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(rows("sessions"), 1);
  EXPECT_EQ(rows("measurements"), 20);
  // The interrupted run went on: its cache grew. The new results come in as a session of their
  // own; the 20 stored are not stored again.
  r = import_run(open_cache(30), 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 sessions added (0 known), 10 measurements added (20 already stored"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(rows("measurements"), 30);
  // Another run of the same kernel: the same configurations, one time not the same. It is not
  // the file imported before, so every row of it is stored, those of equal times too.
  std::string other = open_cache(20);
  other.replace(other.find("\"time\":"), 7, "\"time\":1");
  r = import_run(other, 3);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 sessions added (0 known), 20 measurements added (0 already stored"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(rows("measurements"), 50);

  // A CLBlast tuner file copied (cp gives the copy a time of its own) imports once.
  const std::string clblast =
      std::string(MMTUNE_KERNELS_DIR) + "/../tests/data/clblast/clblast_xgemm_1_32.json";
  std::filesystem::copy_file(clblast, dir / "a.json");
  r = test::run_mmtune({"-q", "import", dir / "a.json", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto stored = rows("measurements");
  std::filesystem::copy_file(clblast, dir / "b.json");
  later(dir / "b.json", 3);
  r = test::run_mmtune({"-q", "import", dir / "b.json", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" 0 measurements added"), std::string::npos) << r.out;
  EXPECT_EQ(rows("measurements"), stored);
  EXPECT_EQ(rows("sessions"), 4);
}

}  // namespace
}  // namespace mmtune
