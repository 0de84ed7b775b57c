// Output files (exports, reports): why a write failed, and which exit code says it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/file_write.hpp"
#include "exchange_fixture.hpp"
#include "mmtune/error.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

// A full disk is a failure (exit 1), a place that cannot hold the file bad input (exit 2).
TEST(FileWrite, AFullDiskIsAFailureAndABadPlaceBadInput) {
  test::TempDir dir;
  write_text_file(dir / "out.txt", "text");
  EXPECT_EQ(test::slurp(dir / "out.txt"), "text");
  try {
    write_text_file(dir.path, "text");
    ADD_FAILURE() << "wrote over a directory";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("Is a directory"), std::string::npos) << e.what();
  }
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  try {
    write_text_file("/dev/full", std::string(1 << 16, 'x'));
    ADD_FAILURE() << "wrote to a full device";
  } catch (const UsageError& e) {
    ADD_FAILURE() << "a full disk is no bad input: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("No space left"), std::string::npos) << e.what();
  }
}

// `export --out` said "cannot write" without a reason, exit 2, for a full disk too.
TEST(FileWrite, ExportSaysWhyItCouldNotWrite) {
  test::TempDir dir;
  {
    Store store(dir / "t.db");
    exchange_test::fill(store);
  }
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const auto full = test::run_mmtune({"export", "--db", dir / "t.db", "--out", "/dev/full"});
  EXPECT_EQ(full.exit_code, kExitFailure) << full.err;
  EXPECT_NE(full.err.find("cannot write '/dev/full': No space left on device"), std::string::npos)
      << full.err;
  const auto place = test::run_mmtune({"export", "--db", dir / "t.db", "--out", dir / "no/x.json"});
  EXPECT_EQ(place.exit_code, kExitUsage) << place.err;
}

}  // namespace
}  // namespace mmtune
