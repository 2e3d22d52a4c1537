// Which listen addresses count as reachable from this machine only.
#include "transport/listen_address.h"

#include <gtest/gtest.h>

namespace resched::transport {
namespace {

TEST(IsLoopbackOnly, LoopbackHostsAndUnixSockets) {
  for (const char* address : {"127.0.0.1:50051", "127.1.2.3:1", "localhost:50051", "LocalHost:8080",
                              "[::1]:50051", "unix:/tmp/resched.sock", "unix-abstract:resched"}) {
    EXPECT_TRUE(IsLoopbackOnly(address)) << address;
  }
}

TEST(IsLoopbackOnly, WildcardsOtherHostsAndGarbageAreReachable) {
  for (const char* address : {"0.0.0.0:50051", "[::]:50051", ":50051", "10.0.0.5:50051",
                              "128.0.0.1:1", "example.org:50051", "[::ffff:127.0.0.1]:1",
                              "[::1:50051", "127.0.0.1", "", "localhost.evil.example:1"}) {
    EXPECT_FALSE(IsLoopbackOnly(address)) << address;
  }
}

}  // namespace
}  // namespace resched::transport
