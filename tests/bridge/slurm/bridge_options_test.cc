#include "bridge/slurm/bridge_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace resched::bridge::slurm {
namespace {

using ::testing::HasSubstr;

TEST(BridgeOptionsTest, DefaultsNameTheClusterAndReservationsAfterThePartition) {
  auto options = ParseBridgeOptions({"--slurmrestd", "unix:/run/slurmrestd.sock", "--partition",
                                     "compute", "--users=alice", "--interval", "500ms"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->cluster, "compute");
  EXPECT_EQ(options->sync.name_prefix, "resched-compute");
  EXPECT_EQ(options->sync.hold_source, "slurm");
  EXPECT_EQ(options->sync.users, "alice");
  EXPECT_EQ(options->interval, absl::Milliseconds(500));
  EXPECT_EQ(options->sync.horizon, 24 * 3600 * kMicrosPerSecond);
  EXPECT_TRUE(options->sync.tenant_accounts.empty());
}

TEST(BridgeOptionsTest, TenantsMapToAccounts) {
  auto options = ParseBridgeOptions({"--slurmrestd", "unix:/s", "--users", "ops",
                                     "--tenant-accounts", "climate=clim01,astro=astro7"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->sync.tenant_accounts,
            (std::map<std::string, std::string>{{"climate", "clim01"}, {"astro", "astro7"}}));
  auto bad = ParseBridgeOptions(
      {"--slurmrestd", "unix:/s", "--users", "ops", "--tenant-accounts", "climate"});
  EXPECT_THAT(bad.status().message(), HasSubstr("--tenant-accounts takes TENANT=ACCOUNT"));
}

TEST(BridgeOptionsTest, BadFlagsAreNamed) {
  auto missing_rest = ParseBridgeOptions({"--users", "alice"});
  EXPECT_THAT(missing_rest.status().message(), HasSubstr("--slurmrestd"));
  auto nobody = ParseBridgeOptions({"--slurmrestd", "unix:/s"});
  EXPECT_THAT(nobody.status().message(), HasSubstr("--users or --accounts"));
  auto bad_interval =
      ParseBridgeOptions({"--slurmrestd", "unix:/s", "--users", "a", "--interval", "1ms"});
  EXPECT_THAT(bad_interval.status().message(), HasSubstr("--interval"));
  auto unknown = ParseBridgeOptions({"--slurmrestd", "unix:/s", "--users", "a", "--frob"});
  EXPECT_THAT(unknown.status().message(), HasSubstr("--frob"));
  auto no_value = ParseBridgeOptions({"--slurmrestd"});
  EXPECT_THAT(no_value.status().message(), HasSubstr("--slurmrestd needs a value"));
}

}  // namespace
}  // namespace resched::bridge::slurm
