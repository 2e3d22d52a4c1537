// A follower of a plan: a copy that applies the changes the plan records (ClusterPlan::TakeChange,
// as the journal carries them) without running the policy, and must hold the plan's image after
// each one. An operation's test follows it through the operation: that is what a restart from the
// journal, or a standby, does with it.
#pragma once

#include <memory>

#include "core/metrics/validate.h"
#include "core/plan/cluster_plan.h"
#include "core/plan/cluster_plan_image.h"
#include "core/plan/plan_change.h"
#include "gtest/gtest.h"
#include "tests/core/plan/same_image.h"
#include "tests/testing/status.h"

namespace resched::testing {

// A copy of `plan` as it is now, which `plan` then records its changes for.
inline std::unique_ptr<ClusterPlan> StartFollowing(ClusterPlan& plan) {
  (void)plan.TakeChangedJobs();
  auto follower = ClusterPlan::FromImage(plan.Image());
  EXPECT_OK(follower);
  plan.TrackChanges(true);
  return follower.ok() ? *std::move(follower) : nullptr;
}

// Applies what `plan` changed since the last call and expects the same image and a valid schedule.
inline void CatchUp(ClusterPlan& plan, ClusterPlan& follower) {
  ASSERT_OK(follower.ApplyChange(plan.TakeChange()));
  ExpectSameImage(plan.Image(), follower.Image());
  ASSERT_OK(ValidateSchedule(follower.ToValidate()));
  EXPECT_OK(follower.timeline().CheckInvariants());
}

}  // namespace resched::testing
