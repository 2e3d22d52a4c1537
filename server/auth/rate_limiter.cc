#include "server/auth/rate_limiter.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "server/base/status_details.h"

namespace resched::server::auth {

absl::Status RateLimiter::Admit(const std::string& tenant, absl::Time now) {
  const TenantLimit* limit = limits_->For(tenant);
  if (limit == nullptr || limit->calls_per_second <= 0) return absl::OkStatus();
  MutexLock lock(&mu_);
  auto [it, created] = buckets_.try_emplace(tenant, Bucket{limit->burst, now});
  Bucket& bucket = it->second;
  if (!created && now > bucket.refilled) {
    bucket.tokens =
        std::min(limit->burst, bucket.tokens + absl::ToDoubleSeconds(now - bucket.refilled) *
                                                   limit->calls_per_second);
    bucket.refilled = now;
  }
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return absl::OkStatus();
  }
  const absl::Duration wait = absl::Seconds((1 - bucket.tokens) / limit->calls_per_second);
  return WithRetryDelay(
      absl::ResourceExhaustedError(absl::StrFormat(
          "tenant '%s' is over its rate limit (tenant_limits: calls_per_second %g, burst %g); "
          "retry in %s",
          tenant, limit->calls_per_second, limit->burst,
          absl::FormatDuration(absl::Ceil(wait, absl::Milliseconds(1))))),
      wait);
}

}  // namespace resched::server::auth
