// ClusterPlan's own figures (what GetCluster reports from it).
#include "core/plan/cluster_plan.h"

#include "gtest/gtest.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::kS;

TEST(ClusterPlanUtilization, IsTheShareOfProcessorTimeUsedSinceTheFirstStart) {
  auto plan = testing::MakePlan("fcfs", 4);
  EXPECT_EQ(plan->PastUtilization(), 0) << "nothing has run yet";
  testing::Submit(*plan, testing::RigidJob(2, 10));
  EXPECT_EQ(plan->PastUtilization(), 0) << "a job starting now has used nothing yet";
  ASSERT_OK(plan->AdvanceTo(5 * kS));
  EXPECT_DOUBLE_EQ(plan->PastUtilization(), 0.5);  // 2 of 4 processors for 5 s
  ASSERT_OK(plan->AdvanceTo(20 * kS));
  EXPECT_DOUBLE_EQ(plan->PastUtilization(), 2.0 * 10 / (4 * 20));  // idle after it ended
}

TEST(ClusterPlanUtilization, CountsFromTheFirstStartNotFromTheClusterCreation) {
  auto plan = testing::MakePlan("fcfs", 4);
  ASSERT_OK(plan->AdvanceTo(100 * kS));
  testing::Submit(*plan, testing::RigidJob(4, 10, 100));
  ASSERT_OK(plan->AdvanceTo(110 * kS));
  EXPECT_DOUBLE_EQ(plan->PastUtilization(), 1.0);
}

TEST(ClusterPlanReportStarted, AcknowledgesARunningJobAndRefusesAQueuedOneSayingWhy) {
  auto plan = testing::MakePlan("fcfs", 4);
  const JobId running = testing::Submit(*plan, testing::RigidJob(4, 10));
  const JobId queued = testing::Submit(*plan, testing::RigidJob(4, 10));
  EXPECT_OK(plan->ReportStarted(running, 0));
  EXPECT_THAT(plan->ReportStarted(queued, 0),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                ::testing::HasSubstr("QUEUED, planned to start at")));
  EXPECT_THAT(plan->ReportStarted(queued, 20 * kS),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::StartsWith("time must not be after the cluster's now")));
  testing::ExpectAllocation(*plan, queued, 4, 10, 20);  // refused: nothing changed
}

TEST(ClusterPlanGroups, GroupsOfOneSpeedAreOnePool) {
  auto plan = testing::MakePlanOn("conservative", {{"a", 2, 1.0}, {"b", 2, 1.0}});
  const JobId wide = testing::Submit(*plan, testing::RigidJob(4, 10));  // spans both groups
  EXPECT_EQ(plan->FindJob(wide)->group, -1);
  EXPECT_TRUE(plan->FreeByGroup().empty());
}

}  // namespace
}  // namespace resched
