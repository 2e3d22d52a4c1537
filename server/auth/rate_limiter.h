// Per-tenant rate limits: a token bucket per tenant, refilled at its calls_per_second up to its
// burst. A call that finds the bucket empty is refused with RESOURCE_EXHAUSTED naming the limit,
// and a google.rpc.RetryInfo saying when one call's worth will be back.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "server/auth/tenant_limits.h"
#include "server/base/mutex.h"

namespace resched::server::auth {

class RateLimiter {
 public:
  explicit RateLimiter(std::shared_ptr<const TenantLimits> limits) : limits_(std::move(limits)) {}

  // Takes one call from `tenant`'s bucket at `now`; OK when the tenant has no rate limit.
  absl::Status Admit(const std::string& tenant, absl::Time now);

 private:
  struct Bucket {
    double tokens = 0;
    absl::Time refilled;
  };
  const std::shared_ptr<const TenantLimits> limits_;
  Mutex mu_;
  std::map<std::string, Bucket> buckets_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server::auth
