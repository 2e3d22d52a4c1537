// Processor groups of different speeds (grouped_policy.cc): a job goes to the group that ends it
// earliest at that group's speed, the slower group on a tie; a job fits one group or is refused;
// a running job whose booking the plan made stays counted in its group.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/online/plan_test_util.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::ExpectAllocation;
using testing::kS;
using testing::MakePlanOn;
using testing::RigidJob;
using testing::Submit;

const std::vector<ProcessorGroup> kSlow4Fast2 = {{"slow", 4, 1.0}, {"fast", 2, 2.0}};

int GroupOf(const ClusterPlan& plan, const JobId& id) { return plan.FindJob(id)->group; }

TEST(GroupedPolicyTest, AJobGoesToTheGroupThatEndsItFirstAndTheSlowerOnATie) {
  auto plan = MakePlanOn("conservative", kSlow4Fast2);
  const JobId a = Submit(*plan, RigidJob(2, 100));  // fast: ends at 50
  const JobId b = Submit(*plan, RigidJob(2, 100));  // fast after a or slow now: both end at 100
  const JobId c = Submit(*plan, RigidJob(2, 100));  // the same tie
  const JobId d = Submit(*plan, RigidJob(2, 100));  // slow is full until 100: fast, [50, 100)
  ExpectAllocation(*plan, a, 2, 0, 50);
  EXPECT_EQ(GroupOf(*plan, a), 1);
  EXPECT_EQ(plan->FindJob(a)->job.model.speed(), 2.0);
  ExpectAllocation(*plan, b, 2, 0, 100);
  EXPECT_EQ(GroupOf(*plan, b), 0);
  EXPECT_EQ(plan->FindJob(b)->job.model.speed(), 1.0);
  ExpectAllocation(*plan, c, 2, 0, 100);
  EXPECT_EQ(GroupOf(*plan, c), 0);
  ExpectAllocation(*plan, d, 2, 50, 100);
  EXPECT_EQ(GroupOf(*plan, d), 1);
}

TEST(GroupedPolicyTest, AMoldableJobTakesTheWidthsOfItsGroup) {
  auto plan = MakePlanOn("fcfs", kSlow4Fast2);
  Job job;
  job.model = RuntimeModel(AmdahlModel{100 * kS, 0, 1, 0});
  // Slow: 4 processors, 25 s. Fast: 2 processors at speed 2, 25 s: a tie, so the slow group.
  const JobId tie = Submit(*plan, job);
  ExpectAllocation(*plan, tie, 4, 0, 25);
  EXPECT_EQ(GroupOf(*plan, tie), 0);
  // Now the slow group is busy until 25, so it would end the same job at 50; the fast group ends
  // it at 25 on 2 processors (100 / 2 / 2 s).
  const JobId fast = Submit(*plan, job);
  ExpectAllocation(*plan, fast, 2, 0, 25);
  EXPECT_EQ(GroupOf(*plan, fast), 1);
}

TEST(GroupedPolicyTest, AJobWiderThanTheFastGroupRunsInTheSlowOne) {
  auto plan = MakePlanOn("easy", kSlow4Fast2);
  const JobId wide = Submit(*plan, RigidJob(3, 100));
  ExpectAllocation(*plan, wide, 3, 0, 100);
  EXPECT_EQ(GroupOf(*plan, wide), 0);
}

TEST(GroupedPolicyTest, AJobThatFitsNoGroupIsRefusedNamingTheLargest) {
  auto plan = MakePlanOn("conservative", kSlow4Fast2);
  auto refused = plan->Submit(RigidJob(5, 10));  // 5 <= P = 6, but no group has 5
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr("job.model: no allowed width fits one processor group"));
  EXPECT_THAT(std::string(refused.status().message()), ::testing::HasSubstr("'slow', has 4"));
  EXPECT_TRUE(plan->Jobs().empty());
}

// The plan puts its queue back with new bookings after refusing a reservation that displaces
// queued jobs; a job among them that then starts before any policy call is still counted in its
// group (the partition adopts running jobs it did not book).
TEST(GroupedPolicyTest, ARunningJobBookedAgainByThePlanStaysCountedInItsGroup) {
  auto plan = MakePlanOn("conservative", kSlow4Fast2);
  Submit(*plan, RigidJob(2, 100));                  // fast [0, 50)
  Submit(*plan, RigidJob(3, 100));                  // only the slow group holds 3: [0, 100)
  const JobId c = Submit(*plan, RigidJob(2, 100));  // fast [50, 100); slow would end at 200
  ExpectAllocation(*plan, c, 2, 50, 100);
  const auto refused = plan->AddReservation(6, 10 * kS, 20 * kS, "maintenance", true);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  ASSERT_OK(plan->AdvanceTo(50 * kS));
  ASSERT_EQ(plan->FindJob(c)->state, JobState::kRunning);
  // c holds the fast group until 100, so a short job runs on the slow group's free processor.
  const JobId d = Submit(*plan, RigidJob(1, 10));
  ExpectAllocation(*plan, d, 1, 50, 60);
  EXPECT_EQ(GroupOf(*plan, d), 0);
}

TEST(GroupedPolicyTest, AHoldInAGroupTakesThatGroupsProcessors) {
  auto plan = MakePlanOn("conservative", kSlow4Fast2);
  ASSERT_OK(plan->AddReservation(2, 0, 100 * kS, "fast maintenance", false, /*group=*/1));
  const JobId wide = Submit(*plan, RigidJob(2, 100));  // slow [0, 100); fast would end at 150
  ExpectAllocation(*plan, wide, 2, 0, 100);
  EXPECT_EQ(GroupOf(*plan, wide), 0);
  const JobId small = Submit(*plan, RigidJob(1, 40));  // slow [0, 40); fast [100, 120)
  ExpectAllocation(*plan, small, 1, 0, 40);
  // The fast group is full over [50, 60), though the cluster has a processor free there.
  auto full = plan->AddReservation(1, 50 * kS, 60 * kS, "more", false, /*group=*/1);
  EXPECT_THAT(full, testing::StatusIs(absl::StatusCode::kResourceExhausted,
                                      ::testing::HasSubstr("1 processors of group 1 ('fast') are "
                                                           "not free")));
  EXPECT_OK(plan->AddReservation(1, 50 * kS, 60 * kS, "any group", false));
  EXPECT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(GroupedPolicyTest, AHoldNamesAGroupThatExistsAndHoldsIt) {
  auto plan = MakePlanOn("conservative", kSlow4Fast2);
  EXPECT_THAT(plan->AddReservation(1, 0, 10 * kS, "", false, 2),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("group must be unset (any group) or in [0, "
                                                     "2), the cluster's groups; got 2")));
  EXPECT_THAT(plan->AddReservation(3, 0, 10 * kS, "", false, 1),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("the count of group 1 ('fast'); got 3")));
  auto one_speed = testing::MakePlan("conservative", 4);
  EXPECT_THAT(one_speed->AddReservation(1, 0, 10 * kS, "", false, 0),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("all have one speed")));
  EXPECT_TRUE(plan->Reservations().empty());
}

TEST(GroupedPolicyTest, ADisplacingHoldInAGroupMovesThatGroupsQueuedJobs) {
  auto plan = MakePlanOn("conservative", {{"slow", 2, 1.0}, {"fast", 2, 2.0}});
  Submit(*plan, RigidJob(2, 100));                  // fast [0, 50)
  Submit(*plan, RigidJob(2, 100));                  // tie at 100: slow [0, 100)
  const JobId c = Submit(*plan, RigidJob(2, 100));  // fast [50, 100); slow would end at 200
  ExpectAllocation(*plan, c, 2, 50, 100);
  ASSERT_OK(plan->AddReservation(2, 60 * kS, 80 * kS, "fast maintenance", true, /*group=*/1));
  ExpectAllocation(*plan, c, 2, 80, 130);  // still in its group, after the hold
  EXPECT_EQ(GroupOf(*plan, c), 1);
  EXPECT_OK(ValidateSchedule(plan->ToValidate()));
}

}  // namespace
}  // namespace resched
