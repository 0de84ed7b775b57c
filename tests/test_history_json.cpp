// `mmtune history --json`: a session still running has no end yet.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "session_fixture.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace mmtune {
namespace {

// Its ended_at was "" where the export writes null.
TEST(HistoryJson, ARunningSessionsEndIsNull) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  {
    Store store(db);
    const DeviceInfo& dev = test::pocl_device("pthread").info;
    store.upsert_device(dev);
    const SessionRecord session = test::small_session(dev);
    store.begin_session(session);  // this process: running
    store.end_session(store.begin_session(session), "budget");
  }
  const auto r = test::run_mmtune({"history", "--db", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u) << r.out;
  std::size_t running = 0;
  for (const auto& s : j) {
    EXPECT_EQ(s["device"], test::pocl_device("pthread").info.name) << "which device's session";
    if (s["outcome"] == "running") {
      ++running;
      EXPECT_TRUE(s["ended_at"].is_null()) << s;
    } else {
      EXPECT_TRUE(s["ended_at"].is_string()) << s;
      EXPECT_FALSE(s["ended_at"].get<std::string>().empty()) << s;
    }
  }
  EXPECT_EQ(running, 1u);
  const auto text = test::run_mmtune({"history", "--db", db});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("(" + test::pocl_device("pthread").info.name + ")\n"), std::string::npos)
      << text.out;
}

// A user's or a recorded kernel's session has sizes, not a GEMM problem: history showed
// "64x48x3 fp32 row NN" for a convolution's 64,48,3, as the report does not.
TEST(HistoryJson, ARecordedKernelsProblemIsItsSizes) {
  test::TempDir dir;
  const std::string db = dir / "t.db";
  {
    Store store(db);
    const DeviceInfo& dev = test::pocl_device("pthread").info;
    store.upsert_device(dev);
    SessionRecord session = test::small_session(dev);
    session.kernels = "kt:convolution";
    session.problem.m = 64, session.problem.n = 48, session.problem.k = 3;
    store.end_session(store.begin_session(session), "imported");
  }
  const auto r = test::run_mmtune({"history", "--db", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u) << r.out;
  EXPECT_EQ(j[0]["problem"], nlohmann::json({{"sizes", {64, 48, 3}}})) << r.out;
  const auto text = test::run_mmtune({"history", "--db", db});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(" 64,48,3 "), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("fp32"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace mmtune
