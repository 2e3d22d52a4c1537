// JobLedger through ClusterPlan: the per-owner usage and the utilization it keeps match a scan of
// the jobs after the changes the randomized policy test does not make (a Replan, pruning of
// ended jobs), and in a copy and a plan restored from its image. The randomized runs of every
// policy check them after each step too (tests/core/online/random_plan_test.cc).
#include "core/plan/job_ledger.h"

#include <array>

#include "core/plan/cluster_plan.h"
#include "core/plan/cluster_plan_image.h"
#include "gtest/gtest.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::ExpectSumsMatchAScan;
using testing::kS;
using testing::OkValue;

constexpr std::array<const char*, 3> kOwners = {"", "alice", "bob"};

Job OwnedRigid(const std::string& owner, int k, Duration seconds) {
  Job job = testing::RigidJob(k, seconds);
  job.owner = owner;
  return job;
}

TEST(JobLedger, CountsAJobOnceWhateverItsChangesAndForgetsIt) {
  JobLedger ledger;
  JobRecord job;
  job.sequence = 7;
  job.job.owner = "alice";
  job.allocation = Allocation{2, 10, 30};
  ledger.Account(job);
  ledger.Account(job);
  EXPECT_EQ(ledger.Owner("alice").active_jobs, 1);
  EXPECT_EQ(ledger.Owner("alice").queued_area, 40);
  job.state = JobState::kRunning;
  ledger.Account(job);
  EXPECT_EQ(ledger.Owner("alice").queued_area, 0);
  EXPECT_EQ(ledger.first_start(), 10);
  job.state = JobState::kFinished;
  job.allocation.end = 20;
  ledger.Account(job);
  EXPECT_EQ(ledger.Owner("alice").active_jobs, 0);
  EXPECT_EQ(ledger.ended_area(), 20);
  ledger.Forget(job);
  EXPECT_EQ(ledger.ended_area(), 0);
  EXPECT_EQ(ledger.first_start(), std::nullopt);
  EXPECT_EQ(ledger.Owner("nobody").active_jobs, 0);
}

TEST(JobLedger, PlanSumsSurvivePruningAReplanACopyAndAnImage) {
  ClusterSpec spec{"test", {{"", 4, 1.0}}, ClockKind::kSimulated, "fcfs", {}};
  ClusterLimits limits;
  limits.max_retained_ended = 2;  // ended jobs are pruned as the clock moves
  auto plan = OkValue(ClusterPlan::Create(spec, {}, 0, limits));
  for (int i = 0; i < 6; ++i) {
    testing::Submit(*plan, OwnedRigid(kOwners[i % 3], 1 + i % 4, 10 + i));
  }
  ExpectSumsMatchAScan(*plan, kOwners);
  ASSERT_OK(plan->AdvanceTo(25 * kS));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  ExpectSumsMatchAScan(*plan, kOwners);
  EXPECT_GT(plan->PastUtilization(), 0);

  // A Replan moving every queued job later, one after the other, each on its own width.
  std::vector<PlannedJob> planned;
  Time start = 200 * kS;
  for (const JobRecord* job : plan->QueuedJobs()) {
    const Duration length = job->allocation.end - job->allocation.start;
    planned.push_back({job->job.id, Allocation{job->allocation.k, start, start + length}});
    start += length;
  }
  ASSERT_FALSE(planned.empty());
  ASSERT_OK(plan->ApplyReplan(planned));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  ExpectSumsMatchAScan(*plan, kOwners);

  ExpectSumsMatchAScan(*plan->Copy(), kOwners);
  (void)plan->TakeChangedJobs();  // an image holds the plan as its last published change left it
  auto restored = OkValue(ClusterPlan::FromImage(plan->Image()));
  ExpectSumsMatchAScan(*restored, kOwners);
  ASSERT_OK(restored->AdvanceTo(1000 * kS));
  ExpectSumsMatchAScan(*restored, kOwners);
  EXPECT_EQ(restored->UsageOf("alice").active_jobs, 0);
}

}  // namespace
}  // namespace resched
