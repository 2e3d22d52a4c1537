// The per-tenant limits of the configuration (ServerConfig.tenant_limits): a rate limit over all
// of a tenant's calls and quotas on each cluster, looked up by tenant with "*" as the fallback.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "resched/v1/config.pb.h"

namespace resched::server::auth {

struct TenantLimit {
  double calls_per_second = 0;  // 0: no rate limit
  double burst = 0;
  int max_active_jobs = 0;               // per cluster; 0: no quota
  double max_processor_hours_ahead = 0;  // per cluster; 0: no quota
};

class TenantLimits {
 public:
  // INVALID_ARGUMENT naming the entry and field (tenant_limits[1].burst ...).
  static absl::StatusOr<TenantLimits> FromConfig(const ::resched::v1::ServerConfig& config);
  // The tenant's own entry, else the "*" entry, else none.
  const TenantLimit* For(const std::string& tenant) const;
  bool empty() const { return by_tenant_.empty() && !fallback_; }

 private:
  std::map<std::string, TenantLimit> by_tenant_;
  std::optional<TenantLimit> fallback_;
};

}  // namespace resched::server::auth
