// Which Host and Origin headers the web view answers: its IP addresses and localhost, the names
// it is told, and same-site requests; not another site's name or page.
#include "server/web/site_guard.h"

#include "gtest/gtest.h"

namespace resched::server::web {
namespace {

std::optional<HttpReply> Check(const std::string& host, const std::string& origin = "",
                               const SiteNames& names = {}) {
  httplib::Request request;
  if (!host.empty()) request.set_header("Host", host);
  if (!origin.empty()) request.set_header("Origin", origin);
  return RefuseForeignSite(request, names);
}

TEST(SiteGuard, AddressesAndLocalhostAreServed) {
  for (const char* host : {"127.0.0.1", "127.0.0.1:8080", "10.1.2.3:80", "[::1]:8080", "[::1]",
                           "localhost", "LOCALHOST:8080", "view.localhost:8080"}) {
    EXPECT_FALSE(Check(host).has_value()) << host;
  }
  EXPECT_FALSE(Check("").has_value());  // no Host: not a browser, nothing to rebind
}

TEST(SiteGuard, AnotherNameIsRefusedUnlessAllowed) {
  for (const char* host : {"evil.example", "evil.example:8080", "localhost.evil.example",
                           "127.0.0.1.evil.example", "[::1", "::1"}) {
    const std::optional<HttpReply> refused = Check(host);
    ASSERT_TRUE(refused.has_value()) << host;
    EXPECT_EQ(refused->status, 403);
    EXPECT_NE(refused->body.find("header Host"), std::string::npos) << refused->body;
  }
  const SiteNames names{{"resched.example.org"}};
  EXPECT_FALSE(Check("RESCHED.example.org:443", "", names).has_value());
  EXPECT_TRUE(Check("other.example.org", "", names).has_value());
}

TEST(SiteGuard, AnOriginOtherThanTheHostIsRefused) {
  EXPECT_FALSE(Check("127.0.0.1:8080", "http://127.0.0.1:8080").has_value());
  EXPECT_FALSE(Check("localhost:8080", "http://LOCALHOST:8080").has_value());
  for (const char* origin : {"http://evil.example", "http://127.0.0.1:9999", "null",
                             "http://127.0.0.1:8080.evil.example"}) {
    const std::optional<HttpReply> refused = Check("127.0.0.1:8080", origin);
    ASSERT_TRUE(refused.has_value()) << origin;
    EXPECT_EQ(refused->status, 403);
    EXPECT_NE(refused->body.find("header Origin"), std::string::npos) << refused->body;
  }
}

}  // namespace
}  // namespace resched::server::web
