// Small cases with hand-checked answers for fcfs, easy and conservative.
#include <gtest/gtest.h>

#include "core/registry/registry.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::ExpectAllocation;
using testing::kS;
using testing::MakePlan;
using testing::RigidJob;
using testing::Submit;

TEST(ConservativeTest, BackfillsIntoAHoleWithoutDelayingEarlierJobs) {
  auto plan = MakePlan("conservative", 4);
  const auto j1 = Submit(*plan, RigidJob(2, 10));
  const auto j2 = Submit(*plan, RigidJob(4, 10));
  const auto j3 = Submit(*plan, RigidJob(2, 5));
  ExpectAllocation(*plan, j1, 2, 0, 10);
  ExpectAllocation(*plan, j2, 4, 10, 20);
  ExpectAllocation(*plan, j3, 2, 0, 5);  // the hole beside j1
  EXPECT_EQ(plan->FindJob(j3)->state, JobState::kRunning);
  EXPECT_EQ(plan->FindJob(j2)->state, JobState::kQueued);
  EXPECT_TRUE(plan->FindJob(j2)->guaranteed);
}

TEST(ConservativeTest, MoldableJobTakesTheEarliestCompletion) {
  auto plan = MakePlan("conservative", 4);
  Submit(*plan, RigidJob(2, 100));
  Job moldable;
  moldable.model = RuntimeModel(AmdahlModel{100 * kS, 0, 1, 4});
  // k=1 at 0 ends 100; k=2 at 0 ends 50; k=4 waits until 100 and ends 125.
  const auto j2 = Submit(*plan, moldable);
  ExpectAllocation(*plan, j2, 2, 0, 50);
}

TEST(ConservativeTest, TiesGoToFewerProcessors) {
  auto plan = MakePlan("conservative", 4);
  Job job;
  job.model = RuntimeModel(TableModel{{{1, 10 * kS}, {2, 10 * kS}, {4, 12 * kS}}});
  const auto id = Submit(*plan, job);
  ExpectAllocation(*plan, id, 1, 0, 10);
}

TEST(ConservativeTest, EarlyFinishLetsQueuedJobsMoveEarlier) {
  auto plan = MakePlan("conservative", 4);
  const auto j1 = Submit(*plan, RigidJob(4, 10));
  const auto j2 = Submit(*plan, RigidJob(4, 10));
  ASSERT_OK(plan->AdvanceTo(5 * kS));
  ASSERT_OK(plan->ReportEnded(j1, 5 * kS, /*failed=*/false));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  ExpectAllocation(*plan, j1, 4, 0, 5);
  ExpectAllocation(*plan, j2, 4, 5, 15);
  EXPECT_EQ(plan->FindJob(j2)->state, JobState::kRunning);
}

TEST(ConservativeTest, CancelCompressesTheQueue) {
  auto plan = MakePlan("conservative", 4);
  Submit(*plan, RigidJob(4, 10));
  const auto j2 = Submit(*plan, RigidJob(4, 10));
  const auto j3 = Submit(*plan, RigidJob(4, 10));
  ASSERT_OK(plan->Cancel(j2));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  EXPECT_EQ(plan->FindJob(j2)->state, JobState::kCancelled);
  ExpectAllocation(*plan, j3, 4, 10, 20);
}

TEST(FcfsTest, NeverStartsAJobBeforeAnEarlierOne) {
  auto plan = MakePlan("fcfs", 4);
  const auto j1 = Submit(*plan, RigidJob(2, 10));
  const auto j2 = Submit(*plan, RigidJob(4, 10));
  const auto j3 = Submit(*plan, RigidJob(2, 5));
  ExpectAllocation(*plan, j1, 2, 0, 10);
  ExpectAllocation(*plan, j2, 4, 10, 20);
  ExpectAllocation(*plan, j3, 2, 20, 25);  // conservative would have used the hole at 0
}

TEST(FcfsTest, SameStartIsAllowed) {
  auto plan = MakePlan("fcfs", 4);
  const auto j1 = Submit(*plan, RigidJob(2, 10));
  const auto j2 = Submit(*plan, RigidJob(2, 5));
  ExpectAllocation(*plan, j1, 2, 0, 10);
  ExpectAllocation(*plan, j2, 2, 0, 5);
}

TEST(EasyTest, OnlyTheHeadIsGuaranteedAndSmallJobsBackfill) {
  auto plan = MakePlan("easy", 4);
  const auto j1 = Submit(*plan, RigidJob(2, 10));
  const auto j2 = Submit(*plan, RigidJob(4, 10));
  const auto j3 = Submit(*plan, RigidJob(2, 5));
  const auto j4 = Submit(*plan, RigidJob(2, 15));
  ExpectAllocation(*plan, j1, 2, 0, 10);
  ExpectAllocation(*plan, j2, 4, 10, 20);  // the head's reservation
  ExpectAllocation(*plan, j3, 2, 0, 5);    // backfilled: ends before the head starts
  EXPECT_EQ(plan->FindJob(j3)->state, JobState::kRunning);
  EXPECT_TRUE(plan->FindJob(j2)->guaranteed);
  // j4 would delay the head if it started now: it waits, as an estimate behind the head.
  ExpectAllocation(*plan, j4, 2, 20, 35);
  EXPECT_FALSE(plan->FindJob(j4)->guaranteed);
}

TEST(EasyTest, DecidesAgainWhenAJobEnds) {
  auto plan = MakePlan("easy", 4);
  const auto j1 = Submit(*plan, RigidJob(2, 10));
  const auto j2 = Submit(*plan, RigidJob(4, 10));
  const auto j3 = Submit(*plan, RigidJob(2, 15));
  ExpectAllocation(*plan, j3, 2, 20, 35);
  ASSERT_OK(plan->AdvanceTo(3 * kS));
  ASSERT_OK(plan->ReportEnded(j1, 3 * kS, false));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  // The head now starts at 3; j3 still cannot start before the head ends.
  ExpectAllocation(*plan, j2, 4, 3, 13);
  EXPECT_EQ(plan->FindJob(j2)->state, JobState::kRunning);
  ExpectAllocation(*plan, j3, 2, 13, 28);
  EXPECT_TRUE(plan->FindJob(j3)->guaranteed);  // it is the head now
}

TEST(PlanTest, ClockStartsAndEndsJobs) {
  auto plan = MakePlan("conservative", 4);
  const auto j1 = Submit(*plan, RigidJob(4, 10));
  const auto j2 = Submit(*plan, RigidJob(4, 10));
  EXPECT_EQ(plan->FindJob(j1)->state, JobState::kRunning);
  (void)plan->TakeChangedJobs();
  ASSERT_OK(plan->AdvanceTo(15 * kS));
  EXPECT_EQ(plan->FindJob(j1)->state, JobState::kFinished);
  EXPECT_EQ(plan->FindJob(j2)->state, JobState::kRunning);
  EXPECT_EQ(plan->TakeChangedJobs().size(), 2u);
  EXPECT_FALSE(plan->AdvanceTo(1).ok());  // the clock never goes back
}

TEST(PlanTest, FutureReleaseIsRespected) {
  auto plan = MakePlan("conservative", 4);
  const auto j1 = Submit(*plan, RigidJob(1, 10, /*release=*/50));
  ExpectAllocation(*plan, j1, 1, 50, 60);
}

TEST(PlanTest, ReservationMustFitUnlessItDisplacesQueuedJobs) {
  auto plan = MakePlan("conservative", 4);
  Submit(*plan, RigidJob(4, 10));
  const auto j2 = Submit(*plan, RigidJob(4, 10));  // [10, 20)
  auto refused = plan->AddReservation(2, 12 * kS, 30 * kS, "maintenance", false);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  ExpectAllocation(*plan, j2, 4, 10, 20);  // nothing changed
  auto held = plan->AddReservation(2, 12 * kS, 30 * kS, "maintenance", true);
  ASSERT_OK(held);
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  ExpectAllocation(*plan, j2, 4, 30, 40);  // moved behind the hold
  ASSERT_OK(plan->RemoveReservation((*held)->id));
  ExpectAllocation(*plan, j2, 4, 10, 20);  // and back once it is gone
  EXPECT_EQ(plan->RemoveReservation("r99").code(), absl::StatusCode::kNotFound);
  // A hold that cannot fit even without queued jobs changes nothing.
  auto impossible = plan->AddReservation(1, 0, 5 * kS, "", true);
  EXPECT_EQ(impossible.status().code(), absl::StatusCode::kResourceExhausted);
  ExpectAllocation(*plan, j2, 4, 10, 20);
}

TEST(PlanTest, ErrorsChangeNothing) {
  auto plan = MakePlan("conservative", 4);
  const auto j1 = Submit(*plan, RigidJob(4, 10));
  EXPECT_EQ(plan->Submit(RigidJob(8, 10)).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(plan->Cancel("j42").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(plan->ReportEnded(j1, 20 * kS, false).status().code(),
            absl::StatusCode::kInvalidArgument);  // after the cluster's now
  EXPECT_EQ(plan->Jobs().size(), 1u);
  ExpectAllocation(*plan, j1, 4, 0, 10);
}

// Valid input that no online policy can place yet: UNIMPLEMENTED, saying what is missing.
TEST(PlanTest, UnknownPolicyIsRefused) {
  ClusterSpec spec{"u", {{"", 4, 1.0}}, ClockKind::kSimulated, "no-such-policy", {}};
  auto plan = ClusterPlan::Create(spec, {}, 0);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(plan.status().message().find("policy.name must be a policy"), std::string::npos);
}

}  // namespace
}  // namespace resched

namespace resched {
namespace {

// A job submitted earlier with a later release arrives after the head in the EASY sense: when it
// arrives, the head keeps its reservation (a guaranteed allocation is never moved later).
TEST(EasyTest, AJobArrivingLaterDoesNotTakeTheHeadsReservation) {
  auto plan = testing::MakePlan("easy", 16);
  const auto j1 = testing::Submit(*plan, testing::RigidJob(16, 1000));
  const auto j2 = testing::Submit(*plan, testing::RigidJob(8, 3000, /*release=*/500));
  const auto j3 = testing::Submit(*plan, testing::RigidJob(16, 1000));
  testing::ExpectAllocation(*plan, j1, 16, 0, 1000);
  testing::ExpectAllocation(*plan, j3, 16, 1000, 2000);
  ASSERT_TRUE(plan->FindJob(j3)->guaranteed);
  ASSERT_OK(plan->AdvanceTo(600 * testing::kS));  // j2 has arrived
  testing::ExpectAllocation(*plan, j3, 16, 1000, 2000);
  testing::ExpectAllocation(*plan, j2, 8, 2000, 5000);
  EXPECT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(PlanTest, ReservationWithoutAnEndIsRefused) {
  for (const char* policy : {"fcfs", "easy", "conservative"}) {
    auto plan = testing::MakePlan(policy, 4);
    auto held = plan->AddReservation(4, 0, kTimeMax, "forever", false);
    EXPECT_EQ(held.status().code(), absl::StatusCode::kInvalidArgument) << policy;
    const auto id = testing::Submit(*plan, testing::RigidJob(4, 10));
    testing::ExpectAllocation(*plan, id, 4, 0, 10);
  }
}

}  // namespace
}  // namespace resched
