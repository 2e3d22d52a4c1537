// FittedToNow: a Replan's plan made before the clock moved on keeps every job where it was
// planned unless the passed instants push it; a job packed against a later reservation stays.
#include "core/plan/replan.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/metrics/validate.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::kS;
using testing::RigidJob;
using testing::Submit;

Allocation Seconds(int k, Duration start_s, Duration end_s) {
  return Allocation{k, start_s * kS, end_s * kS};
}

TEST(FittedToNow, JobsPackedAgainstALaterReservationStayWhereTheyWerePlanned) {
  // Held [0, 5) and [20, 40) whole; three jobs of the whole machine fill [5, 20) exactly.
  auto plan = testing::MakePlan("fcfs", 4);
  ASSERT_OK(plan->AddReservation(4, 0, 5 * kS, "before", false));
  ASSERT_OK(plan->AddReservation(4, 20 * kS, 40 * kS, "after", false));
  for (int i = 0; i < 3; ++i) Submit(*plan, RigidJob(4, 5));
  const std::vector<PlannedJob> planned = {
      {"j1", Seconds(4, 5, 10)}, {"j2", Seconds(4, 10, 15)}, {"j3", Seconds(4, 15, 20)}};
  ASSERT_OK(plan->AdvanceTo(2 * kS));  // the clock moved on while the plan was made
  absl::StatusOr<std::vector<PlannedJob>> fitted = FittedToNow(*plan, planned);
  ASSERT_OK(fitted);
  for (std::size_t i = 0; i < planned.size(); ++i) {
    EXPECT_EQ((*fitted)[i].allocation, planned[i].allocation) << planned[i].id;
  }
  ASSERT_OK(plan->ApplyReplan(*fitted));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(FittedToNow, AJobPlannedForPassedInstantsStartsNowAndPushesOnlyWhatItMust) {
  // Two of four processors held over [0, 10): a 2-wide job planned at 0 beside the hold, a
  // 4-wide one at 10.
  auto plan = testing::MakePlan("fcfs", 4);
  ASSERT_OK(plan->AddReservation(2, 0, 10 * kS, "hold", false));
  Submit(*plan, RigidJob(4, 5));
  Submit(*plan, RigidJob(2, 8));
  const std::vector<PlannedJob> planned = {{"j1", Seconds(4, 10, 15)}, {"j2", Seconds(2, 0, 8)}};
  ASSERT_OK(plan->AdvanceTo(3 * kS));
  absl::StatusOr<std::vector<PlannedJob>> fitted = FittedToNow(*plan, planned);
  ASSERT_OK(fitted);
  EXPECT_EQ((*fitted)[1].allocation, Seconds(2, 3, 11));   // from now, its width and length
  EXPECT_EQ((*fitted)[0].allocation, Seconds(4, 11, 16));  // pushed by it, by 1 s only
  ASSERT_OK(plan->ApplyReplan(*fitted));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(FittedToNow, JobsNoLongerQueuedAreLeftForApplyReplanToFind) {
  auto plan = testing::MakePlan("fcfs", 4);
  Submit(*plan, RigidJob(4, 5));  // starts at 0
  const std::vector<PlannedJob> planned = {{"j1", Seconds(4, 0, 5)}};
  ASSERT_OK(plan->AdvanceTo(1 * kS));
  absl::StatusOr<std::vector<PlannedJob>> fitted = FittedToNow(*plan, planned);
  ASSERT_OK(fitted);
  EXPECT_EQ((*fitted)[0].allocation, planned[0].allocation);
  EXPECT_EQ(plan->ApplyReplan(*fitted).code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace resched
