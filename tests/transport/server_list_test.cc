// A client given several servers (transport/server_list.h): one server passes through as given,
// several become one gRPC target of every address (resolved now, IPv4 when every server has
// one), the first server naming the authority TLS checks; an empty entry, a missing port, a
// name that does not resolve and a list mixing IPv4-only with IPv6-only servers are refused
// naming the flag.
#include "transport/server_list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/status.h"

namespace resched::transport {
namespace {

using ::resched::testing::OkValue;
using ::resched::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ServerList, OneServerIsTheTargetAsGiven) {
  for (const char* one : {"127.0.0.1:50051", "resched.sched.svc:50051", "dns:///resched:1"}) {
    const ChannelTarget target = OkValue(ResolveServers(one, "--server"));
    EXPECT_EQ(target.target, one);
    EXPECT_TRUE(target.authority.empty());
    EXPECT_FALSE(target.several);
  }
  EXPECT_FALSE(NamesSeveralServers("127.0.0.1:1"));
  EXPECT_TRUE(NamesSeveralServers("127.0.0.1:1,127.0.0.1:2"));
}

TEST(ServerList, SeveralServersBecomeOneTargetOfEveryAddress) {
  ChannelTarget target = OkValue(ResolveServers("127.0.0.1:7001, 127.0.0.2:7002", "--server"));
  EXPECT_EQ(target.target, "ipv4:127.0.0.1:7001,127.0.0.2:7002");
  EXPECT_EQ(target.authority, "127.0.0.1:7001");
  EXPECT_TRUE(target.several);
  // A name resolves to its addresses; the same address twice is kept once.
  target = OkValue(ResolveServers("localhost:7001,127.0.0.1:7001,127.0.0.1:7003", "--target"));
  EXPECT_EQ(target.target, "ipv4:127.0.0.1:7001,127.0.0.1:7003");
  EXPECT_EQ(target.authority, "localhost:7001");
  target = OkValue(ResolveServers("[::1]:7001,[::1]:7002", "--server"));
  EXPECT_EQ(target.target, "ipv6:[::1]:7001,[::1]:7002");
}

TEST(ServerList, BadListsAreRefusedNamingTheFlag) {
  EXPECT_THAT(ResolveServers("127.0.0.1:1,,127.0.0.1:2", "--server"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--server: an empty server")));
  EXPECT_THAT(ResolveServers("127.0.0.1,127.0.0.1:2", "--target"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--target: '127.0.0.1' is not HOST:PORT")));
  EXPECT_THAT(ResolveServers("127.0.0.1:1,127.0.0.1:99999", "--server"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not HOST:PORT")));
  EXPECT_THAT(ResolveServers("no-such-host.invalid:1,127.0.0.1:2", "--server"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--server: cannot resolve 'no-such-host.invalid'")));
  EXPECT_THAT(ResolveServers("[::1]:1,127.0.0.1:2", "--server"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("give one family")));
}

}  // namespace
}  // namespace resched::transport
