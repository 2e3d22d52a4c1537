// W3C traceparent parsing and formatting, and fresh ids.
#include "server/trace/trace_context.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace resched::server::trace {
namespace {

constexpr char kTraceparent[] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(TraceContextTest, ParsesAndFormatsTheW3cExample) {
  const std::optional<SpanContext> context = ParseTraceparent(kTraceparent);
  ASSERT_TRUE(context.has_value());
  EXPECT_EQ(ToHex(context->trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(ToHex(context->span_id), "00f067aa0ba902b7");
  EXPECT_TRUE(context->sampled);
  EXPECT_EQ(FormatTraceparent(*context), kTraceparent);
}

TEST(TraceContextTest, ReadsTheSampledFlagOnly) {
  auto unsampled = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  ASSERT_TRUE(unsampled.has_value());
  EXPECT_FALSE(unsampled->sampled);
  auto other_flags = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03");
  ASSERT_TRUE(other_flags.has_value());
  EXPECT_TRUE(other_flags->sampled);
}

TEST(TraceContextTest, ALaterVersionIsReadByItsPrefix) {
  auto later =
      ParseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next");
  ASSERT_TRUE(later.has_value());
  EXPECT_EQ(ToHex(later->trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
}

TEST(TraceContextTest, RejectsWhatTheRecommendationSaysToIgnore) {
  for (const char* bad : {
           "",
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",    // upper case
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",    // zero trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",    // zero parent id
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",    // forbidden version
           "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",     // short trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",  // v00 has 4 parts
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",    // not hex
       }) {
    EXPECT_FALSE(ParseTraceparent(bad).has_value()) << bad;
  }
}

TEST(TraceContextTest, NewIdsAreNonZeroAndDistinct) {
  std::set<std::string> traces;
  std::set<std::string> spans;
  for (int i = 0; i < 1000; ++i) {
    traces.insert(ToHex(NewTraceId()));
    const SpanId span = NewSpanId();
    EXPECT_FALSE(IsZero(span));
    spans.insert(ToHex(span));
  }
  EXPECT_EQ(traces.size(), 1000u);
  EXPECT_EQ(spans.size(), 1000u);
}

}  // namespace
}  // namespace resched::server::trace
