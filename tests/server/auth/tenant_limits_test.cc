// tenant_limits in the configuration: each bad entry named with its field, and lookups that fall
// back to the "*" entry.
#include "server/auth/tenant_limits.h"

#include <gtest/gtest.h>

#include "server/process/config.h"
#include "tests/testing/status.h"

namespace resched::server::auth {
namespace {

absl::StatusOr<TenantLimits> FromYaml(const std::string& yaml) {
  absl::StatusOr<::resched::v1::ServerConfig> config = ParseConfig(yaml);
  if (!config.ok()) return config.status();
  return TenantLimits::FromConfig(*config);
}

TEST(TenantLimits, TheTenantsOwnEntryElseTheFallback) {
  absl::StatusOr<TenantLimits> limits = FromYaml(
      "tenant_limits:\n"
      "  - {tenant: alice, calls_per_second: 5, max_active_jobs: 10}\n"
      "  - {tenant: '*', calls_per_second: 0.5, burst: 3, max_processor_hours_ahead: 100}\n");
  ASSERT_OK(limits);
  const TenantLimit* alice = limits->For("alice");
  ASSERT_NE(alice, nullptr);
  EXPECT_EQ(alice->calls_per_second, 5);
  EXPECT_EQ(alice->burst, 5);  // unset: max(1, calls_per_second)
  EXPECT_EQ(alice->max_active_jobs, 10);
  EXPECT_EQ(alice->max_processor_hours_ahead, 0);  // alice's own entry, not merged
  const TenantLimit* bob = limits->For("bob");
  ASSERT_NE(bob, nullptr);
  EXPECT_EQ(bob->burst, 3);
  EXPECT_EQ(bob->max_processor_hours_ahead, 100);
  absl::StatusOr<TenantLimits> none = FromYaml("listen: 127.0.0.1:1\n");
  ASSERT_OK(none);
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(none->For("alice"), nullptr);
}

TEST(TenantLimits, BadEntriesAreNamed) {
  EXPECT_EQ(FromYaml("tenant_limits:\n  - {calls_per_second: 1}\n").status().message(),
            "tenant_limits[0].tenant: required (a tenant of the tokens file, or '*')");
  EXPECT_EQ(FromYaml("tenant_limits:\n  - {tenant: a, max_active_jobs: 1}\n"
                     "  - {tenant: b, calls_per_second: -2}\n")
                .status()
                .message(),
            "tenant_limits[1].calls_per_second: must be >= 0 (0: no limit), got -2");
  EXPECT_EQ(FromYaml("tenant_limits:\n  - {tenant: '*'}\n  - {tenant: '*'}\n").status().message(),
            "tenant_limits[1].tenant: '*' has an earlier entry");
  EXPECT_EQ(FromYaml("tenant_limits:\n  - {tenant: a}\n  - {tenant: a}\n").status().message(),
            "tenant_limits[1].tenant: 'a' has an earlier entry");
}

}  // namespace
}  // namespace resched::server::auth
