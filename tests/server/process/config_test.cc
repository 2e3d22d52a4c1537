#include "server/process/config.h"

#include <gtest/gtest.h>

#include "tests/testing/status.h"

namespace resched::server {
namespace {

TEST(ConfigTest, TheEmbeddedDefaultKeepsTheDefaultLimits) {
  auto config = ParseConfig(kDefaultConfigYaml);
  ASSERT_OK(config);
  const ServiceLimits limits = LimitsFrom(*config);
  const ServiceLimits defaults;
  EXPECT_EQ(limits.max_clusters, defaults.max_clusters);
  EXPECT_EQ(limits.max_active_jobs_per_cluster, defaults.max_active_jobs_per_cluster);
  EXPECT_EQ(limits.max_dag_tasks, defaults.max_dag_tasks);
  EXPECT_EQ(limits.max_watch_backlog, defaults.max_watch_backlog);
  EXPECT_EQ(limits.max_waiting_calls, defaults.max_waiting_calls);
}

TEST(ConfigTest, AFileSetsTheLimits) {
  auto config = ParseConfig(
      "max_clusters: 3\nmax_active_jobs_per_cluster: 50\nmax_dag_tasks: 7\n"
      "max_watch_backlog: 20\nmax_waiting_calls: 30\n");
  ASSERT_OK(config);
  const ServiceLimits limits = LimitsFrom(*config);
  EXPECT_EQ(limits.max_clusters, 3);
  EXPECT_EQ(limits.max_active_jobs_per_cluster, 50);
  EXPECT_EQ(limits.max_dag_tasks, 7);
  EXPECT_EQ(limits.max_watch_backlog, 20u);
  EXPECT_EQ(limits.max_waiting_calls, 30u);
}

TEST(ConfigTest, ANegativeLimitIsRefusedByName) {
  auto config = ParseConfig("max_waiting_calls: -1\n");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(config.status().message(),
            "max_waiting_calls must be >= 0 (0 means the default), got -1");
}

}  // namespace
}  // namespace resched::server
