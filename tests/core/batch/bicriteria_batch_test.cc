// The bicriteria-batch online policy (dutot §2.2 around §3.2): jobs arriving while a batch runs
// wait for it as estimates; the batch's end (planned or early) starts the next one, planned by
// the bi-criteria algorithm. Every schedule goes through the validator (testing::Submit).
#include <gtest/gtest.h>

#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/random_ops.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::ExpectAllocation;
using testing::kS;
using testing::RigidJob;
using testing::Submit;

std::unique_ptr<ClusterPlan> BatchPlan() {
  return testing::MakePlanWith("bicriteria-batch", 4, {});
}

TEST(BicriteriaBatchTest, JobsArrivingDuringABatchWaitForItAndFormTheNextBatch) {
  auto plan = BatchPlan();
  const JobId first = Submit(*plan, RigidJob(4, 10));  // no batch runs: it starts one now
  EXPECT_EQ(plan->FindJob(first)->state, JobState::kRunning);
  const JobId a = Submit(*plan, RigidJob(1, 5));
  const JobId b = Submit(*plan, RigidJob(2, 5));
  // Estimates after the running batch, not promises.
  EXPECT_FALSE(plan->FindJob(a)->guaranteed);
  EXPECT_GE(plan->FindJob(a)->allocation.start, 10 * kS);
  EXPECT_GE(plan->FindJob(b)->allocation.start, 10 * kS);
  ASSERT_OK(plan->AdvanceTo(10 * kS));
  // The batch ended at 10: a and b are the next batch, planned together, side by side.
  ExpectAllocation(*plan, a, 1, 10, 15);
  ExpectAllocation(*plan, b, 2, 10, 15);
  EXPECT_TRUE(plan->FindJob(a)->guaranteed);
  EXPECT_EQ(plan->FindJob(a)->state, JobState::kRunning);
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(BicriteriaBatchTest, AnEarlyEndOfTheBatchStartsTheNextOneEarlier) {
  auto plan = BatchPlan();
  const JobId first = Submit(*plan, RigidJob(4, 10));
  const JobId waiting = Submit(*plan, RigidJob(4, 5));
  ExpectAllocation(*plan, waiting, 4, 10, 15);
  ASSERT_OK(plan->AdvanceTo(4 * kS));
  ASSERT_OK(plan->ReportEnded(first, 4 * kS, false));
  ExpectAllocation(*plan, waiting, 4, 4, 9);
  EXPECT_EQ(plan->FindJob(waiting)->state, JobState::kRunning);
}

TEST(BicriteriaBatchTest, TheBatchIsPlannedByTheBicriteriaAlgorithm) {
  // A running job keeps 2 of 4 processors busy until 10, so the first batch plans around it:
  // the long wide job and four short heavy ones arrive while it runs (after the batch of the
  // blocking job), then are planned together: the short ones first (dutot §3.2's small
  // batches), the long one after.
  auto plan = BatchPlan();
  Submit(*plan, RigidJob(2, 10));
  const JobId wide = Submit(*plan, RigidJob(4, 100));
  std::vector<JobId> small;
  for (int i = 0; i < 4; ++i) {
    Job job = RigidJob(1, 10);
    job.weight = 10;
    small.push_back(Submit(*plan, job));
  }
  ASSERT_OK(plan->AdvanceTo(10 * kS));
  for (const JobId& id : small) ExpectAllocation(*plan, id, 1, 10, 20);
  ExpectAllocation(*plan, wide, 4, 20, 120);
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(BicriteriaBatchTest, RandomOperationsGiveValidSchedules) {
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    SCOPED_TRACE(seed);
    auto plan = testing::MakePlanWith("bicriteria-batch", 8, {});
    testing::RunRandomOps({plan.get()}, seed, {.steps = 150, .max_k = 8});
  }
}

}  // namespace
}  // namespace resched
