// RefuseRequest and its UTF-8 check on requests built in memory: what a route may never see.
#include "server/web/request_guard.h"

#include <gtest/gtest.h>

namespace resched::server::web {
namespace {

httplib::Request GuardRequest(const std::string& path) {
  httplib::Request request;
  request.method = "GET";
  request.path = path;
  return request;
}

TEST(IsPrintableUtf8, TakesTextAndRefusesControlsAndMalformedSequences) {
  EXPECT_TRUE(IsPrintableUtf8(""));
  EXPECT_TRUE(IsPrintableUtf8("/api/v1/clusters/default"));
  EXPECT_TRUE(IsPrintableUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));  // é € 😀
  EXPECT_TRUE(IsPrintableUtf8("\xF4\x8F\xBF\xBF"));                           // U+10FFFF
  EXPECT_FALSE(IsPrintableUtf8("a\nb"));
  EXPECT_FALSE(IsPrintableUtf8("a\rb"));
  EXPECT_FALSE(IsPrintableUtf8("a\tb"));
  EXPECT_FALSE(IsPrintableUtf8(std::string("a\0b", 3)));
  EXPECT_FALSE(IsPrintableUtf8("a\x7F"));
  EXPECT_FALSE(IsPrintableUtf8("\x80"));              // a continuation byte alone
  EXPECT_FALSE(IsPrintableUtf8("\xC3"));              // cut short
  EXPECT_FALSE(IsPrintableUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsPrintableUtf8("\xE0\x80\xAF"));      // overlong '/'
  EXPECT_FALSE(IsPrintableUtf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(IsPrintableUtf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsPrintableUtf8("\xFF"));
}

TEST(RefuseRequest, AnAuthorizationGrpcWouldAbortOnIsRefusedNamingTheHeader) {
  const std::vector<std::string> bad_values = {"Bearer a\nb",
                                               "Bearer \x01",
                                               "Bearer caf\xC3\xA9",
                                               "Bearer \x7F",
                                               std::string("Bearer \0", 8),
                                               "Bearer a\tb"};
  for (const std::string& bad : bad_values) {
    httplib::Request request = GuardRequest("/api/v1/clusters");
    request.headers.emplace("Authorization", bad);  // set_header drops a value with CR or LF
    const std::optional<HttpReply> refused = RefuseRequest(request);
    ASSERT_TRUE(refused.has_value()) << ::testing::PrintToString(bad);
    EXPECT_EQ(refused->status, 400);
    EXPECT_NE(refused->body.find("the Authorization header holds the byte"), std::string::npos)
        << refused->body;
  }
  httplib::Request good = GuardRequest("/api/v1/clusters");
  good.set_header("Authorization", "Bearer abc-DEF_123");
  EXPECT_FALSE(RefuseRequest(good).has_value());

  httplib::Request huge = GuardRequest("/api/v1/clusters");
  huge.set_header("Authorization", "Bearer " + std::string(5000, 'a'));
  ASSERT_TRUE(RefuseRequest(huge).has_value());
  EXPECT_NE(RefuseRequest(huge)->body.find("the limit is 4096"), std::string::npos);

  httplib::Request twice = GuardRequest("/api/v1/clusters");
  twice.set_header("Authorization", "Bearer a");
  twice.set_header("Authorization", "Bearer b");
  ASSERT_TRUE(RefuseRequest(twice).has_value());
  EXPECT_NE(RefuseRequest(twice)->body.find("is given 2 times"), std::string::npos);
}

TEST(RefuseRequest, TheAccessTokenParameterIsCheckedAsTheHeaderIs) {
  httplib::Request request = GuardRequest("/api/v1/clusters/default/events");
  request.params.emplace("access_token", "\n");
  const std::optional<HttpReply> refused = RefuseRequest(request);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 400);
  EXPECT_NE(refused->body.find("query parameter 'access_token'"), std::string::npos)
      << refused->body;
}

TEST(RefuseRequest, PathAndQueryMustBePrintableUtf8) {
  EXPECT_EQ(RefuseRequest(GuardRequest("/api/v1/clusters/a\xFF"))->status, 400);
  EXPECT_NE(RefuseRequest(GuardRequest("/a\nb"))->body.find("the path must be printable UTF-8"),
            std::string::npos);
  httplib::Request value = GuardRequest("/api/v1/clusters/default/jobs");
  value.params.emplace("states", "QUEUED\r\n");
  EXPECT_NE(RefuseRequest(value)->body.find("query parameter 'states' must be printable UTF-8"),
            std::string::npos);
  httplib::Request name = GuardRequest("/api/v1/clusters/default/jobs");
  name.params.emplace("\xC3", "x");
  EXPECT_NE(RefuseRequest(name)->body.find("a query parameter's name"), std::string::npos);
  httplib::Request fine = GuardRequest("/api/v1/clusters/caf\xC3\xA9/jobs");
  fine.params.emplace("states", "QUEUED,RUNNING");
  EXPECT_FALSE(RefuseRequest(fine).has_value());
}

TEST(RefuseRequest, RangesAreFewAscendingAndDisjoint) {
  const auto with_ranges = [](httplib::Ranges ranges) {
    httplib::Request request = GuardRequest("/app.js");
    request.ranges = std::move(ranges);
    return RefuseRequest(request);
  };
  EXPECT_FALSE(with_ranges({}).has_value());
  EXPECT_FALSE(with_ranges({{0, -1}}).has_value());    // 0-
  EXPECT_FALSE(with_ranges({{-1, 100}}).has_value());  // the last 100 bytes
  EXPECT_FALSE(with_ranges({{0, 9}, {20, 29}, {40, 49}}).has_value());
  httplib::Ranges many(2700, {0, -1});
  const std::optional<HttpReply> amplified = with_ranges(many);
  ASSERT_TRUE(amplified.has_value());
  EXPECT_EQ(amplified->status, 416);
  EXPECT_NE(amplified->body.find("asks for 2700 byte ranges; the limit is 8"), std::string::npos);
  EXPECT_EQ(with_ranges({{0, 9}, {5, 19}})->status, 416);   // overlap
  EXPECT_EQ(with_ranges({{20, 29}, {0, 9}})->status, 416);  // descending
  EXPECT_EQ(with_ranges({{0, 9}, {20, -1}})->status, 416);  // open-ended among others
  EXPECT_EQ(with_ranges({{0, 9}, {-1, 5}})->status, 416);   // a suffix among others
  EXPECT_EQ(with_ranges(httplib::Ranges(9, {0, 0}))->status, 416);
}

}  // namespace
}  // namespace resched::server::web
