// ClusterPlan::TakeChange and ApplyChange (plan_change.h): a follower that applies every change
// a plan records, without running its policy, holds the same image as the plan after each one
// (reservation ids, the replanned queue and the policy's parts included), for every policy, on
// two speeds, through Replans, DAG bookings and a periodic Replan, and afterwards goes on as the
// plan does. The changes of calls that failed travel with the next change. A change that does
// not fit the follower is DATA_LOSS.
#include <memory>
#include <string>

#include "core/plan/cluster_plan.h"
#include "core/plan/cluster_plan_image.h"
#include "core/plan/plan_change.h"
#include "core/plan/replan.h"
#include "core/registry/registry.h"
#include "gtest/gtest.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/random_ops.h"
#include "tests/core/plan/follower.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::CatchUp;
using testing::kS;
using testing::Outcome;
using testing::RandomOptions;
using testing::RunRandomOps;
using testing::StartFollowing;

// Random operations, the follower catching up after most of them (the others' changes travel
// with the next one), then a Replan, a DAG booked and one released; then both go on alike.
void FollowThrough(ClusterPlan& plan, std::uint64_t seed, const RandomOptions& options) {
  auto follower = StartFollowing(plan);
  ASSERT_NE(follower, nullptr);
  RunRandomOps({&plan}, seed, options, [&](int step) {
    if (step % 4 != 3) CatchUp(plan, *follower);
  });
  ASSERT_NO_FATAL_FAILURE(CatchUp(plan, *follower));
  auto mrt = MakeOfflinePlanner("mrt", {});
  ASSERT_OK(mrt);
  absl::StatusOr<ReplanProposal> proposal =
      ProposeReplan(plan, **mrt, ReplanObjective::kMakespan, {});
  ASSERT_OK(proposal);
  ASSERT_OK(plan.ApplyReplan(proposal->planned));
  ASSERT_NO_FATAL_FAILURE(CatchUp(plan, *follower));
  const Dag dag{{{"t", RuntimeModel(RigidModel{1, 100 * kS})}}, {}};
  const Time at = plan.now() + 1'000'000 * kS;
  DagPlan placed{{{1, at, at + 100 * kS, {}, plan.spec().homogeneous() ? -1 : 0}}, 0, 0};
  Summarize(placed);
  absl::StatusOr<const DagReservation*> booked = plan.CommitDag(dag, placed, "heft", "", 0);
  ASSERT_OK(booked);
  const std::string dag_id = (*booked)->id;
  ASSERT_NO_FATAL_FAILURE(CatchUp(plan, *follower));
  ASSERT_OK(plan.ReleaseDag(dag_id));
  ASSERT_NO_FATAL_FAILURE(CatchUp(plan, *follower));
  (void)plan.TakeChangedJobs();
  (void)follower->TakeChangedJobs();
  RunRandomOps({&plan, follower.get()}, seed + 100, options,
               [&](int) { EXPECT_EQ(Outcome(plan), Outcome(*follower)); });
}

TEST(ClusterPlanChangeTest, AFollowerHoldsThePlansImageAfterEveryChangeOnEveryPolicy) {
  int policies = 0;
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kPolicy) continue;
    ++policies;
    for (std::uint64_t seed : {1, 2}) {
      SCOPED_TRACE(info.name + " seed " + std::to_string(seed));
      auto plan = testing::MakePlanWith(info.name, 8, testing::PolicyTestParams(info.name));
      ASSERT_NE(plan, nullptr);
      // A DAG task that ends while the operations run: its booking is freed on the way.
      const Dag dag{{{"t", RuntimeModel(RigidModel{1, 100 * kS})}}, {}};
      DagPlan placed{{{1, 100 * kS, 200 * kS, {}}}, 0, 0};
      Summarize(placed);
      ASSERT_OK(plan->CommitDag(dag, placed, "heft", "change test", 0));
      FollowThrough(*plan, seed, RandomOptions{.steps = 80, .max_k = 8});
    }
  }
  EXPECT_GE(policies, 10);
}

TEST(ClusterPlanChangeTest, AFollowerHoldsThePlansImageOnTwoSpeeds) {
  for (const std::string policy : {"fcfs", "easy", "conservative", "dasedf", "split"}) {
    SCOPED_TRACE(policy);
    auto plan = testing::MakePlanOn(policy, {{"slow", 8, 1.0}, {"fast", 4, 2.0}},
                                    testing::PolicyTestParams(policy));
    ASSERT_NE(plan, nullptr);
    ASSERT_OK(plan->AddReservation(2, 50 * kS, 90 * kS, "fast", false, /*group=*/1));
    FollowThrough(*plan, 11, RandomOptions{.steps = 60, .max_k = 8});
  }
}

TEST(ClusterPlanChangeTest, AFollowerHoldsThePlansImageThroughPeriodicReplans) {
  ClusterSpec spec{"test", {{"", 8, 1.0}}, ClockKind::kSimulated, "fcfs", {}};
  spec.replan.every = 20 * kS;
  spec.replan.algorithm = "bicriteria";
  auto made = ClusterPlan::Create(spec, {}, 0);
  ASSERT_OK(made);
  FollowThrough(**made, 21, RandomOptions{.steps = 80, .max_k = 8});
}

TEST(ClusterPlanChangeTest, AChangeThatDoesNotFitIsDataLoss) {
  auto plan = testing::MakePlanWith("conservative", 8, {});
  ASSERT_NE(plan, nullptr);
  auto follower = StartFollowing(*plan);
  ASSERT_NE(follower, nullptr);
  ASSERT_OK(plan->Submit(testing::RigidJob(2, 10)));
  const PlanChange change = plan->TakeChange();
  ASSERT_OK(follower->ApplyChange(change));
  // Applied twice, its add gets another reservation id.
  EXPECT_THAT(follower->ApplyChange(change),
              testing::StatusIs(absl::StatusCode::kDataLoss, ::testing::HasSubstr("gets id")));

  // One that removes a reservation the follower does not hold.
  PlanChange unknown = plan->TakeChange();
  unknown.removed_reservations.push_back(99);
  EXPECT_THAT(follower->ApplyChange(unknown),
              testing::StatusIs(absl::StatusCode::kDataLoss, ::testing::HasSubstr("r99")));
}

}  // namespace
}  // namespace resched
