// The token bucket per tenant: a burst at once, then the rate; a refusal names the limit and
// says when to retry (google.rpc.RetryInfo); tenants do not share buckets.
#include "server/auth/rate_limiter.h"

#include <gtest/gtest.h>

#include "server/base/status_details.h"
#include "server/process/config.h"
#include "server/rpc/to_grpc.h"
#include "tests/testing/retry_info.h"
#include "tests/testing/status.h"

namespace resched::server::auth {
namespace {

std::shared_ptr<const TenantLimits> Limits(const std::string& yaml) {
  absl::StatusOr<::resched::v1::ServerConfig> config = ParseConfig(yaml);
  EXPECT_TRUE(config.ok()) << config.status();
  absl::StatusOr<TenantLimits> limits = TenantLimits::FromConfig(*config);
  EXPECT_TRUE(limits.ok()) << limits.status();
  return std::make_shared<const TenantLimits>(*std::move(limits));
}

TEST(RateLimiter, ABurstAtOnceThenTheRate) {
  RateLimiter limiter(
      Limits("tenant_limits:\n  - {tenant: alice, calls_per_second: 2, burst: 3}\n"));
  const absl::Time t0 = absl::FromUnixSeconds(1'000'000);
  for (int i = 0; i < 3; ++i) EXPECT_OK(limiter.Admit("alice", t0));
  const absl::Status refused = limiter.Admit("alice", t0);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.message(),
            "tenant 'alice' is over its rate limit (tenant_limits: calls_per_second 2, burst 3); "
            "retry in 500ms");
  EXPECT_EQ(resched::testing::RetryDelayOf(ToGrpc(refused)), absl::Milliseconds(500));
  EXPECT_FALSE(limiter.Admit("alice", t0 + absl::Milliseconds(499)).ok());
  // Refilled at 2 calls/s: two calls' worth one second after the bucket ran dry.
  EXPECT_OK(limiter.Admit("alice", t0 + absl::Milliseconds(1000)));
  EXPECT_OK(limiter.Admit("alice", t0 + absl::Milliseconds(1000)));
  EXPECT_FALSE(limiter.Admit("alice", t0 + absl::Milliseconds(1000)).ok());
  // A long quiet spell refills to the burst, no more.
  const absl::Time later = t0 + absl::Hours(1);
  for (int i = 0; i < 3; ++i) EXPECT_OK(limiter.Admit("alice", later));
  EXPECT_FALSE(limiter.Admit("alice", later).ok());
}

TEST(RateLimiter, TenantsHaveBucketsOfTheirOwnAndUnlimitedOnesPass) {
  RateLimiter limiter(
      Limits("tenant_limits:\n  - {tenant: '*', calls_per_second: 1}\n"
             "  - {tenant: batch, max_active_jobs: 5}\n"));
  const absl::Time t0 = absl::FromUnixSeconds(1'000'000);
  EXPECT_OK(limiter.Admit("alice", t0));
  EXPECT_FALSE(limiter.Admit("alice", t0).ok());
  EXPECT_OK(limiter.Admit("bob", t0));                                  // bob's own bucket
  for (int i = 0; i < 100; ++i) EXPECT_OK(limiter.Admit("batch", t0));  // no rate limit
}

}  // namespace
}  // namespace resched::server::auth
