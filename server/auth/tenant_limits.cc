#include "server/auth/tenant_limits.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace resched::server::auth {

absl::StatusOr<TenantLimits> TenantLimits::FromConfig(const ::resched::v1::ServerConfig& config) {
  TenantLimits limits;
  for (int i = 0; i < config.tenant_limits_size(); ++i) {
    const ::resched::v1::TenantLimits& entry = config.tenant_limits(i);
    const std::string at = absl::StrCat("tenant_limits[", i, "]");
    if (entry.tenant().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".tenant: required (a tenant of the tokens file, or '*')"));
    }
    auto non_negative = [&](const char* field, double value) -> absl::Status {
      if (std::isfinite(value) && value >= 0) return absl::OkStatus();
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".", field, ": must be >= 0 (0: no limit), got ", value));
    };
    for (const auto& [field, value] :
         {std::pair<const char*, double>{"calls_per_second", entry.calls_per_second()},
          {"burst", entry.burst()},
          {"max_active_jobs", entry.max_active_jobs()},
          {"max_processor_hours_ahead", entry.max_processor_hours_ahead()}}) {
      if (absl::Status s = non_negative(field, value); !s.ok()) return s;
    }
    TenantLimit limit;
    limit.calls_per_second = entry.calls_per_second();
    limit.burst = entry.burst() > 0 ? entry.burst() : std::max(1.0, entry.calls_per_second());
    limit.max_active_jobs = entry.max_active_jobs();
    limit.max_processor_hours_ahead = entry.max_processor_hours_ahead();
    const bool duplicate = entry.tenant() == "*"
                               ? limits.fallback_.has_value()
                               : !limits.by_tenant_.emplace(entry.tenant(), limit).second;
    if (duplicate) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".tenant: '", entry.tenant(), "' has an earlier entry"));
    }
    if (entry.tenant() == "*") limits.fallback_ = limit;
  }
  return limits;
}

const TenantLimit* TenantLimits::For(const std::string& tenant) const {
  if (auto it = by_tenant_.find(tenant); it != by_tenant_.end()) return &it->second;
  return fallback_ ? &*fallback_ : nullptr;
}

}  // namespace resched::server::auth
