#include "client/table.h"

#include <gtest/gtest.h>

#include "client/ranges.h"

namespace resched::cli {
namespace {

TEST(Table, AlignsColumnsAndTrimsTrailingSpaces) {
  Table t({"ID", ">K", "NAME"});
  t.AddRow({"j-1", "4", "first"});
  t.AddRow({"j-10", "128", ""});
  t.AddRow({"j-2"});
  EXPECT_EQ(t.rows(), 3u);
  EXPECT_EQ(t.Render(),
            "ID      K  NAME\n"
            "j-1     4  first\n"
            "j-10  128\n"
            "j-2\n");
}

TEST(Table, Utf8Width) {
  Table t({"A", "B"});
  t.AddRow({"\xC2\xB5s", "x"});
  EXPECT_EQ(t.Render(), "A   B\n\xC2\xB5s  x\n");
  EXPECT_EQ(DisplayWidth("\xC2\xB5s"), 2u);
}

TEST(RenderKeyValues, AlignsValues) {
  EXPECT_EQ(RenderKeyValues({{"id", "j-1"}, {"processors", "4"}, {"name", ""}}),
            "id:          j-1\n"
            "processors:  4\n"
            "name:\n");
}

TEST(CompressRanges, Ranges) {
  EXPECT_EQ(CompressRanges({}), "");
  EXPECT_EQ(CompressRanges({5}), "5");
  EXPECT_EQ(CompressRanges({0, 1, 2, 3, 8}), "0-3,8");
  EXPECT_EQ(CompressRanges({8, 3, 2, 1, 0, 2, 10, 11}), "0-3,8,10-11");
}

}  // namespace
}  // namespace resched::cli
