// StreamCaps against a plain count: a total and a per-client share, given back on release.
#include "server/base/stream_caps.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "absl/strings/str_cat.h"

namespace resched::server {
namespace {

TEST(StreamCaps, RefusesPastEitherCapNamingItAndNeverTheClient) {
  StreamCaps caps("test streams", 3, 2, "total hint", "client hint");
  EXPECT_TRUE(caps.Acquire("secret-a").ok());
  EXPECT_TRUE(caps.Acquire("secret-a").ok());
  const absl::Status mine = caps.Acquire("secret-a");
  EXPECT_EQ(mine.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(mine.message(),
            "2 test streams are open for one client, the limit per client; client hint");
  EXPECT_TRUE(caps.Acquire("secret-b").ok());
  const absl::Status all = caps.Acquire("secret-c");
  EXPECT_EQ(all.message(), "3 test streams are open, the limit; total hint");
  caps.Release("secret-a");
  EXPECT_TRUE(caps.Acquire("secret-c").ok());
  EXPECT_EQ(caps.open(), 3);
}

TEST(StreamCaps, MatchesAPlainCountUnderRandomAcquiresAndReleases) {
  constexpr int kTotal = 20;
  constexpr int kPerClient = 6;
  StreamCaps caps("streams", kTotal, kPerClient, "", "");
  std::map<int, int> held;
  int open = 0;
  std::mt19937 random(11);
  for (int i = 0; i < 20'000; ++i) {
    const int client = std::uniform_int_distribution<int>(0, 5)(random);
    const std::string name = absl::StrCat("c", client);
    if (random() % 2 == 0) {
      const bool expected = open < kTotal && held[client] < kPerClient;
      ASSERT_EQ(caps.Acquire(name).ok(), expected) << i;
      if (expected) {
        ++held[client];
        ++open;
      }
    } else if (held[client] > 0) {
      caps.Release(name);
      --held[client];
      --open;
    }
    ASSERT_EQ(caps.open(), open);
  }
}

}  // namespace
}  // namespace resched::server
