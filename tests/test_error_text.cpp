// Error messages are one line: what a driver or libpq writes over several lines stays readable.
#include <gtest/gtest.h>

#include <string>

#include "mmtune/error.hpp"

namespace mmtune {
namespace {

// libpq's "Connection refused\n\tIs the server running" read "refused??Is the server running".
TEST(ErrorText, LineBreaksBecomeSpacesAndOtherControlsQuestionMarks) {
  EXPECT_EQ(one_line("refused\n\tIs the server running\r\n"), "refused  Is the server running  ");
  EXPECT_EQ(one_line("red \x1b[31mtext\x7f"), "red ?[31mtext?");
  const UsageError e("a\nb");
  EXPECT_EQ(std::string(e.what()), "a b");
}

}  // namespace
}  // namespace mmtune
