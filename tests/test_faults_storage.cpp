// Storage faults through the real mmtune binary on PoCL: a database at its size limit, a full
// disk, and four tunes writing into one database; what was committed before is never lost.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faults_fixture.hpp"
#include "store/sql.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

namespace fs = std::filesystem;
using namespace faults_test;

// The outcome stored for a session.
std::string stored_outcome(const std::string& db, std::int64_t session) {
  sql::Database d(db, sql::OpenMode::kReadWrite);
  auto q = d.prepare("SELECT outcome FROM sessions WHERE id = ?");
  q.bind(1, session);
  return q.step() ? q.text(0) : "no such session";
}

// A first tune commits a few rows, then a second one runs out of space: exit 4, one line, and
// the first tune's rows intact. Its session is never left `running`: it is stored as `failed`
// when the disk still takes that update; when it does not, `history` shows it as abandoned (its
// process is gone) even while the disk is full, and the next tune, given room, stores that.
// `expected_stored`: "failed", "running", or "" for either.
void expect_disk_full_keeps_the_past(const std::string& db, const Env& env,
                                     const std::function<void()>& make_full,
                                     const std::function<void()>& make_room,
                                     std::string expected_stored) {
  const auto first = test::run_mmtune(tune_args(db, "64", "3"), env);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::int64_t last_id = test::count_rows(db, "SELECT MAX(id) FROM measurements");
  const std::string past = measurements_up_to(db, last_id);
  ASSERT_GE(last_id, 3);
  make_full();
  auto args = tune_args(db, "64", "60");
  args.insert(args.end(), {"--fresh", "-q"});
  const auto r = test::run_mmtune(args, env);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(test::line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("is full"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(test::integrity_check(db), "ok");
  EXPECT_EQ(measurements_up_to(db, last_id), past) << "committed rows changed";

  ASSERT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM sessions"), 2);
  if (expected_stored.empty()) {
    expected_stored = stored_outcome(db, 2);
    EXPECT_TRUE(expected_stored == "failed" || expected_stored == "running") << expected_stored;
  }
  EXPECT_EQ(stored_outcome(db, 2), expected_stored);
  const std::string shown = expected_stored == "running" ? "abandoned" : expected_stored;
  const auto history = test::run_mmtune({"history", "--db", db, "--json"}, env);
  ASSERT_EQ(history.exit_code, 0) << history.err;
  const auto h = nlohmann::json::parse(history.out);
  ASSERT_EQ(h.size(), 2u) << h;
  EXPECT_EQ(h[0]["outcome"], "budget");
  EXPECT_EQ(h[1]["outcome"], shown);
  make_room();
  const auto next = test::run_mmtune(tune_args(db, "64", "3"), env);
  ASSERT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(stored_outcome(db, 2), shown);
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM sessions WHERE outcome = 'running'"), 0);
}

TEST(FaultsCli, DatabaseAtItsSizeLimitIsExitFourAndKeepsWhatWasCommitted) {
  test::TempDir dir;
  const std::string db = dir / "tuning.db";
  Env env = {{"XDG_CACHE_HOME", dir / "cache"}};
  expect_disk_full_keeps_the_past(
      db, env,
      [&] {
        // The test hook caps the file at its current size: the next new page is a full disk.
        env["MMTUNE_TEST_DB_MAX_PAGES"] = std::to_string(test::count_rows(db, "PRAGMA page_count"));
      },
      [&] { env.erase("MMTUNE_TEST_DB_MAX_PAGES"); }, "failed");
}

TEST(FaultsCli, DiskFullOnASmallFilesystem) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  test::TempDir dir;
  const std::string mnt = dir / "small";
  fs::create_directories(mnt);
  if (mount("mmtune-test", mnt.c_str(), "tmpfs", 0, "size=1m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs: " << std::strerror(errno);
  }
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{mnt};
  const Env env = {{"XDG_CACHE_HOME", dir / "cache"}};
  // Whether `failed` still fits on the full disk depends on where the failed transaction ran
  // out: the update reuses the WAL space of that transaction's frames, and needs more only
  // when it failed on its first frame. Either way the session must not read as running.
  expect_disk_full_keeps_the_past(
      mnt + "/tuning.db", env,
      [&] {
        // Leave room for SQLite's shared-memory index (32 KiB) and a few WAL frames only.
        struct statvfs st {};
        ASSERT_EQ(statvfs(mnt.c_str(), &st), 0);
        const std::uint64_t free_bytes = std::uint64_t(st.f_bavail) * st.f_frsize;
        ASSERT_GT(free_bytes, 64u * 1024);
        std::ofstream filler(mnt + "/filler", std::ios::binary);
        const std::string block(4096, '\0');
        for (std::uint64_t left = free_bytes - 64 * 1024; left >= block.size();
             left -= block.size()) {
          filler.write(block.data(), std::streamsize(block.size()));
        }
        filler.close();
        ASSERT_TRUE(filler) << "filling the filesystem failed";
      },
      [&] { fs::remove(mnt + "/filler"); }, "");
}

TEST(FaultsCli, FourTunesIntoOneDatabaseAllComplete) {
  test::TempDir dir;
  const std::string db = dir / "shared.db";
  const Env env = {{"XDG_CACHE_HOME", dir / "cache"}};
  std::vector<std::unique_ptr<test::TempDir>> outs;
  std::vector<test::Background> runs;
  for (const char* n : {"56", "64", "72", "80"}) {
    outs.push_back(std::make_unique<test::TempDir>());
    auto args = tune_args(db, n, "3");
    args.push_back("-q");
    runs.push_back(test::spawn_mmtune(args, outs.back()->path, env));
  }
  std::int64_t evaluations = 0;
  for (auto& run : runs) {
    const auto r = run.wait();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("locked"), std::string::npos) << r.err;
    if (r.exit_code != 0) continue;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["outcome"], "budget");
    evaluations += j["evaluations"].get<std::int64_t>();
  }
  EXPECT_EQ(test::integrity_check(db), "ok");
  EXPECT_EQ(rows(db), evaluations) << "every reported evaluation is stored, once";
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM sessions WHERE outcome = 'budget'"), 4);
  EXPECT_EQ(test::count_rows(db, "SELECT COUNT(*) FROM devices"), 1);
}

}  // namespace
}  // namespace mmtune
