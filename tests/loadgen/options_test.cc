// resched-loadgen's flags: defaults, every flag, and bad values named with their limits.
#include "loadgen/options.h"

#include <gtest/gtest.h>

namespace resched::loadgen {
namespace {

TEST(LoadgenOptionsTest, DefaultsAndEveryFlag) {
  auto defaults = ParseOptions({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->clients, 16);
  EXPECT_EQ(defaults->rate, 0);
  EXPECT_EQ(defaults->duration, absl::Seconds(10));
  EXPECT_EQ(defaults->mix.size(), 1u);

  auto all = ParseOptions({"--target",
                           "h:1",
                           "--clients",
                           "4",
                           "--rate",
                           "250",
                           "--duration",
                           "1500ms",
                           "--count",
                           "99",
                           "--clusters",
                           "3",
                           "--processors",
                           "32",
                           "--policy",
                           "easy",
                           "--mix",
                           "submit=3,cancel=1,health=0.5",
                           "--health-baseline",
                           "10",
                           "--json",
                           "--seed",
                           "7"});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->target, "h:1");
  EXPECT_EQ(all->clients, 4);
  EXPECT_EQ(all->rate, 250);
  EXPECT_EQ(all->duration, absl::Milliseconds(1500));
  EXPECT_EQ(all->count, 99);
  EXPECT_EQ(all->clusters, 3);
  EXPECT_EQ(all->processors, 32);
  EXPECT_EQ(all->policy, "easy");
  EXPECT_EQ(all->mix.at(Op::kSubmit), 3);
  EXPECT_EQ(all->mix.at(Op::kCancel), 1);
  EXPECT_EQ(all->mix.at(Op::kHealth), 0.5);
  EXPECT_EQ(all->health_baseline, 10);
  EXPECT_TRUE(all->json);
  EXPECT_EQ(all->seed, 7u);
  EXPECT_TRUE(all->duration_set);
  EXPECT_TRUE(all->processors_set);
  EXPECT_TRUE(all->swf.empty());
  EXPECT_FALSE(defaults->duration_set);
  EXPECT_FALSE(defaults->processors_set);
}

TEST(LoadgenOptionsTest, SwfReplayFlags) {
  auto replay = ParseOptions(
      {"--swf", "/data/KTH.swf.gz", "--speedup", "3600", "--clock", "wall", "--count", "500"});
  ASSERT_TRUE(replay.ok()) << replay.status();
  EXPECT_EQ(replay->swf, "/data/KTH.swf.gz");
  EXPECT_EQ(replay->speedup, 3600);
  EXPECT_TRUE(replay->wall);
  EXPECT_EQ(replay->count, 500);
  auto simulated = ParseOptions({"--swf", "log.swf"});
  ASSERT_TRUE(simulated.ok());
  EXPECT_FALSE(simulated->wall);
  EXPECT_EQ(simulated->speedup, 0);  // as fast as the server answers
}

TEST(LoadgenOptionsTest, BadValuesNameTheFlagAndTheLimit) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--clients", "0"}, "--clients must be an integer in [1, 4096]"},
      {{"--rate", "-3"}, "--rate must be in (0, 1e7]"},
      {{"--duration", "soon"}, "--duration must be a positive duration"},
      {{"--clusters", "65"}, "--clusters must be an integer in [1, 64]"},
      {{"--mix", "submit=1,teleport=2"}, "unknown call 'teleport'"},
      {{"--mix", "submit=0"}, "must not all be 0"},
      {{"--mix", "submit"}, "'submit' must be OP=WEIGHT"},
      {{"--clients"}, "--clients needs a value"},
      {{"--frobnicate", "1"}, "unknown flag '--frobnicate'"},
      {{"--swf", "log.swf", "--speedup", "0"}, "--speedup must be in (0, 1e9]"},
      {{"--swf", "log.swf", "--clock", "lunar"}, "--clock must be simulated or wall"},
      {{"--swf", "log.swf", "--clock", "wall"}, "--clock wall needs --speedup"},
      {{"--clock", "wall", "--speedup", "10"}, "--clock applies to an SWF replay"},
  };
  for (const auto& [args, expected] : cases) {
    auto parsed = ParseOptions(args);
    ASSERT_FALSE(parsed.ok()) << args[0];
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find(expected), std::string::npos) << parsed.status();
  }
}

}  // namespace
}  // namespace resched::loadgen
