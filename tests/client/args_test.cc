#include "client/args.h"

#include <gtest/gtest.h>

#include <array>

#include "tests/testing/status.h"

namespace resched::cli {
namespace {

constexpr std::array<FlagSpec, 4> kSpec = {
    {{"cluster"}, {"file", 'f'}, {"force", 0, false}, {"param", 0, true, true}}};

absl::StatusOr<ParsedArgs> Parse(std::vector<std::string> args) { return ParseArgs(args, kSpec); }

TEST(ParseArgs, FlagsAndPositionals) {
  absl::StatusOr<ParsedArgs> a =
      Parse({"x", "--cluster", "sim", "-f", "job.yaml", "--force", "--param=a=1", "--param", "b=2",
             "-5", "-", "--", "--force"});
  ASSERT_OK(a);
  EXPECT_EQ(a->Get("cluster"), "sim");
  EXPECT_EQ(a->Get("file"), "job.yaml");
  EXPECT_TRUE(a->Has("force"));
  EXPECT_EQ(a->All("param"), (std::vector<std::string>{"a=1", "b=2"}));
  EXPECT_EQ(a->positional(), (std::vector<std::string>{"x", "-5", "-", "--force"}));
  EXPECT_EQ(a->GetOr("missing", "dflt"), "dflt");
  EXPECT_TRUE(a->All("missing").empty());
}

TEST(ParseArgs, ValuesMayLookLikeFlags) {
  absl::StatusOr<ParsedArgs> a = Parse({"--cluster", "--force"});
  ASSERT_OK(a);
  EXPECT_EQ(a->Get("cluster"), "--force");
  EXPECT_FALSE(a->Has("force"));
}

TEST(ParseArgs, Errors) {
  EXPECT_EQ(Parse({"--nope"}).status().message(), "unknown flag --nope");
  EXPECT_EQ(Parse({"-x"}).status().message(), "unknown flag -x");
  EXPECT_EQ(Parse({"--cluster"}).status().message(), "--cluster needs a value");
  EXPECT_EQ(Parse({"--force=yes"}).status().message(), "--force takes no value");
  EXPECT_EQ(Parse({"--cluster", "a", "--cluster=b"}).status().message(),
            "--cluster given more than once");
}

}  // namespace
}  // namespace resched::cli
