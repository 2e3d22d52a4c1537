// The snapshot's and the journal's conversions (proto/resched/snapshot_convert.h) refuse a
// policy state with fields this resched does not read, instead of starting the policy without
// what it remembers.
#include "proto/resched/snapshot_convert.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/plan/cluster_plan.h"
#include "core/plan/cluster_plan_image.h"
#include "core/plan/plan_change.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<ClusterPlan> PartitionedPlan() {
  ClusterSpec spec;
  spec.name = "c";
  spec.groups = {{"", 8, 1.0}};
  spec.clock = ClockKind::kSimulated;
  spec.policy = "split";
  auto plan = ClusterPlan::Create(spec, {}, 0);
  EXPECT_OK(plan);
  return plan.ok() ? *std::move(plan) : nullptr;
}

TEST(SnapshotConvertTest, APolicyStateWithAFieldThisVersionDoesNotReadIsRefused) {
  auto plan = PartitionedPlan();
  ASSERT_NE(plan, nullptr);
  pb::SnapshotPlan snapshot = ToSnapshot(plan->Image());
  ASSERT_OK(FromSnapshot(snapshot));
  // Field 1: where an older resched kept whether the policy was partitioned.
  snapshot.mutable_policy()
      ->GetReflection()
      ->MutableUnknownFields(snapshot.mutable_policy())
      ->AddVarint(1, 1);
  EXPECT_THAT(FromSnapshot(snapshot),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                HasSubstr("snapshot.policy: the policy's state has field 1")));
}

TEST(SnapshotConvertTest, AJournaledPolicyStateWithAFieldThisVersionDoesNotReadIsRefused) {
  auto plan = PartitionedPlan();
  ASSERT_NE(plan, nullptr);
  plan->TrackChanges(true);
  ASSERT_OK(plan->AddReservation(2, 0, 1'000'000, "x", false));
  pb::PlanChange change = ToJournal(plan->TakeChange());
  ASSERT_OK(FromJournal(change));
  change.mutable_policy()
      ->GetReflection()
      ->MutableUnknownFields(change.mutable_policy())
      ->AddVarint(3, 7);
  EXPECT_THAT(FromJournal(change),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                HasSubstr("plan_change.policy: the policy's state has field 3")));
}

}  // namespace
}  // namespace resched
