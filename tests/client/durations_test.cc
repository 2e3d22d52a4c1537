#include "client/durations.h"

#include <gtest/gtest.h>

namespace resched::cli {
namespace {

constexpr int64_t kS = 1'000'000;

TEST(ParseDuration, UnitsAndCombinations) {
  EXPECT_EQ(*ParseDuration("90s"), 90 * kS);
  EXPECT_EQ(*ParseDuration("5m"), 300 * kS);
  EXPECT_EQ(*ParseDuration("1h30m"), 5400 * kS);
  EXPECT_EQ(*ParseDuration("250ms"), 250'000);
  EXPECT_EQ(*ParseDuration("1.5h"), 5400 * kS);
  EXPECT_EQ(*ParseDuration("100us"), 100);
  EXPECT_EQ(*ParseDuration("100\xC2\xB5s"), 100);
  EXPECT_EQ(*ParseDuration("2d"), 2 * 86400 * kS);
  EXPECT_EQ(*ParseDuration("1m30.5s"), 90 * kS + 500'000);
  EXPECT_EQ(*ParseDuration(" 42 "), 42 * kS);
  EXPECT_EQ(*ParseDuration("0.25"), 250'000);
  EXPECT_EQ(*ParseDuration("0"), 0);
  EXPECT_EQ(*ParseDuration(".5s"), 500'000);
}

TEST(ParseDuration, FractionsRoundUpToTheMicrosecond) {
  EXPECT_EQ(*ParseDuration("0.0000001s"), 1);
  EXPECT_EQ(*ParseDuration("1.0000011s"), kS + 2);
  EXPECT_EQ(*ParseDuration("0.1s"), 100'000);  // exact, no floating point
}

TEST(ParseDuration, Rejects) {
  for (const char* bad : {"", "h", "1x", "-5s", "1h-5m", "5 m", "1.2.3s", "1e3s", "s1",
                          "99999999999999999999s", "400000000000s"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << bad;
  }
  EXPECT_NE(ParseDuration("1x").status().message().find("1x"), std::string::npos);
}

TEST(FormatDuration, CompactAndReadBack) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(100), "100us");
  EXPECT_EQ(FormatDuration(250'000), "250ms");
  EXPECT_EQ(FormatDuration(1'500), "1.5ms");
  EXPECT_EQ(FormatDuration(90 * kS + 250'000), "1m30.25s");
  EXPECT_EQ(FormatDuration(5400 * kS), "1h30m");
  EXPECT_EQ(FormatDuration(3600 * kS), "1h");
  EXPECT_EQ(FormatDuration(3601 * kS), "1h1s");
  EXPECT_EQ(FormatDuration((86400 + 3 * 3600) * kS), "1d3h");
  EXPECT_EQ(FormatDuration(-90 * kS), "-1m30s");
  for (int64_t v : {int64_t{1}, int64_t{999}, int64_t{123456789}, 7 * 86400 * kS + 1}) {
    EXPECT_EQ(*ParseDuration(FormatDuration(v)), v) << FormatDuration(v);
  }
}

absl::StatusOr<int64_t> Now() { return 3600 * kS; }
absl::StatusOr<int64_t> NoNow() { return absl::NotFoundError("no cluster"); }

TEST(ParseTime, Forms) {
  EXPECT_EQ(*ParseTime("1970-01-01T01:00:00Z", NoNow), 3600 * kS);
  EXPECT_EQ(*ParseTime("2026-11-22T10:00:00Z", NoNow), int64_t{1795341600} * kS);
  EXPECT_EQ(*ParseTime("2026-11-22T11:00:00+01:00", NoNow), int64_t{1795341600} * kS);
  EXPECT_EQ(*ParseTime("2026-11-22T10:00:00.25Z", NoNow), int64_t{1795341600} * kS + 250'000);
  EXPECT_EQ(*ParseTime("@3600", NoNow), 3600 * kS);
  EXPECT_EQ(*ParseTime("@1h30m", NoNow), 5400 * kS);
  EXPECT_EQ(*ParseTime("@0", NoNow), 0);
  EXPECT_EQ(*ParseTime("@-5", NoNow), -5 * kS);
  EXPECT_EQ(*ParseTime("now", Now), 3600 * kS);
  EXPECT_EQ(*ParseTime("+30m", Now), 5400 * kS);
}

TEST(ParseTime, Errors) {
  EXPECT_FALSE(ParseTime("tomorrow", NoNow).ok());
  EXPECT_FALSE(ParseTime("2026-11-22", NoNow).ok());
  EXPECT_FALSE(ParseTime("@x", NoNow).ok());
  EXPECT_FALSE(ParseTime("+5x", Now).ok());
  EXPECT_EQ(ParseTime("now", NoNow).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(TimeNeedsNow("+1h"));
  EXPECT_TRUE(TimeNeedsNow("now"));
  EXPECT_FALSE(TimeNeedsNow("@1h"));
}

TEST(FormatTime, Styles) {
  EXPECT_EQ(FormatTime(0, TimeStyle::kSimulated), "@0s");
  EXPECT_EQ(FormatTime(5400 * kS, TimeStyle::kSimulated), "@1h30m");
  EXPECT_EQ(FormatTime(int64_t{1795341600} * kS, TimeStyle::kWall), "2026-11-22T10:00:00Z");
  EXPECT_EQ(FormatTime(int64_t{1795341600} * kS + 500'000, TimeStyle::kWall),
            "2026-11-22T10:00:00Z");
  google::protobuf::Timestamp ts;
  EXPECT_EQ(FormatTime(false, ts, TimeStyle::kWall), "-");
}

TEST(ProtoConversions, RoundTrip) {
  for (int64_t v : {int64_t{0}, int64_t{1}, -int64_t{1}, 90 * kS + 7, -90 * kS - 7}) {
    EXPECT_EQ(ToMicros(ToProtoTimestamp(v)), v);
    google::protobuf::Timestamp ts = ToProtoTimestamp(v);
    EXPECT_GE(ts.nanos(), 0);
  }
  EXPECT_EQ(ToMicros(ToProtoDuration(90 * kS + 7)), 90 * kS + 7);
  EXPECT_EQ(ToProtoDuration(1'500'000).nanos(), 500'000'000);
}

}  // namespace
}  // namespace resched::cli
