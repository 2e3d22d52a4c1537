// The per-peer bucket of refused calls' lines, against a plain count of what it should admit.
#include "server/auth/denied_lines.h"

#include <gtest/gtest.h>

#include <random>

#include "absl/strings/str_cat.h"

namespace resched::server::auth {
namespace {

TEST(DeniedLineLimiter, APeerGetsItsBurstThenItsRateAndHearsWhatWasLeftOut) {
  DeniedLineLimiter limiter;
  const absl::Time start = absl::FromUnixSeconds(1'000'000);
  std::int64_t suppressed = -1;
  for (int i = 0; i < kDeniedLineBurst; ++i) {
    ASSERT_TRUE(limiter.Admit("ipv4:10.0.0.1:5000", start, &suppressed)) << i;
    EXPECT_EQ(suppressed, 0);
  }
  // Another port of the same address shares the bucket; another address has its own.
  EXPECT_FALSE(limiter.Admit("ipv4:10.0.0.1:5001", start, &suppressed));
  EXPECT_FALSE(limiter.Admit("ipv4:10.0.0.1:5002", start, &suppressed));
  EXPECT_TRUE(limiter.Admit("ipv4:10.0.0.2:5000", start, &suppressed));
  // A tenth of a second later one line's worth is back, and it tells of the two left out.
  const absl::Time later = start + absl::Milliseconds(100);
  ASSERT_TRUE(limiter.Admit("ipv4:10.0.0.1:5003", later, &suppressed));
  EXPECT_EQ(suppressed, 2);
  EXPECT_FALSE(limiter.Admit("ipv4:10.0.0.1:5003", later, &suppressed));
}

// Random arrivals from a few peers, against a reference that refills each bucket by hand.
TEST(DeniedLineLimiter, MatchesATokenBucketPerAddress) {
  DeniedLineLimiter limiter;
  struct Reference {
    double lines = kDeniedLineBurst;
    absl::Time at = absl::FromUnixSeconds(0);
    std::int64_t left_out = 0;
  };
  std::map<int, Reference> reference;
  std::mt19937 random(7);
  absl::Time now = absl::FromUnixSeconds(0);
  for (int i = 0; i < 20'000; ++i) {
    now += absl::Microseconds(std::uniform_int_distribution<int>(0, 40'000)(random));
    const int peer = std::uniform_int_distribution<int>(0, 3)(random);
    Reference& bucket = reference[peer];
    bucket.lines =
        std::min(kDeniedLineBurst,
                 bucket.lines + absl::ToDoubleSeconds(now - bucket.at) * kDeniedLinesPerSecond);
    bucket.at = now;
    const bool expected = bucket.lines >= 1;
    std::int64_t suppressed = -1;
    const bool admitted = limiter.Admit(absl::StrCat("ipv6:[::", peer, "]:", i), now, &suppressed);
    ASSERT_EQ(admitted, expected) << "arrival " << i;
    if (expected) {
      bucket.lines -= 1;
      EXPECT_EQ(suppressed, bucket.left_out);
      bucket.left_out = 0;
    } else {
      ++bucket.left_out;
    }
  }
}

TEST(DeniedLineLimiter, AddressOfDropsThePortOnly) {
  EXPECT_EQ(DeniedLineLimiter::AddressOf("ipv4:127.0.0.1:5000"), "ipv4:127.0.0.1");
  EXPECT_EQ(DeniedLineLimiter::AddressOf("ipv6:[::1]:5000"), "ipv6:[::1]");
  EXPECT_EQ(DeniedLineLimiter::AddressOf("unix:/tmp/socket"), "unix:/tmp/socket");
  EXPECT_EQ(DeniedLineLimiter::AddressOf("inproc"), "inproc");
}

TEST(DeniedLineLimiter, ManyPeersStayWithinItsMemory) {
  DeniedLineLimiter limiter;
  const absl::Time now = absl::FromUnixSeconds(0);
  std::int64_t suppressed = 0;
  // Every peer spends its whole burst, so none can be forgotten: past the cap, the newcomers
  // share one bucket, which soon refuses them too.
  int admitted_newcomers = 0;
  for (std::size_t p = 0; p < kMaxDeniedPeers + 500; ++p) {
    const std::string peer =
        absl::StrCat("ipv4:10.", p / 65536, ".", p / 256 % 256, ".", p % 256, ":1");
    for (int i = 0; i < kDeniedLineBurst; ++i) {
      if (limiter.Admit(peer, now, &suppressed) && p >= kMaxDeniedPeers) ++admitted_newcomers;
    }
  }
  EXPECT_EQ(admitted_newcomers, kDeniedLineBurst);
}

}  // namespace
}  // namespace resched::server::auth
