// A SIMULATED cluster's periodic Replans planned ahead on a copy (PlanningReplanner) and handed to
// the cluster's own advance (RecordedReplanner) leave the cluster exactly as planning in place
// does; decisions made for another state are not applied; a stopped planner says so.
#include "core/plan/periodic_replan.h"

#include <memory>
#include <random>
#include <string>

#include "core/metrics/validate.h"
#include "core/plan/cluster_plan.h"
#include "core/plan/cluster_plan_image.h"
#include "gtest/gtest.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/random_ops.h"
#include "tests/core/plan/same_image.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::kS;
using testing::RigidJob;
using testing::Submit;

std::unique_ptr<ClusterPlan> Replanned(const std::string& policy, const std::string& planner,
                                       ReplanObjective objective) {
  ClusterSpec spec{"periodic", {{"", 16, 1.0}}, ClockKind::kSimulated, policy, {}};
  spec.replan = PeriodicReplan{20 * kS, planner, {}, objective};
  return testing::OkValue(ClusterPlan::Create(spec, testing::PolicyTestParams(policy), 0));
}

// Random submissions and advances; each advance is planned ahead on a copy, then made on the
// cluster with the copy's decisions, and on a third plan that plans in place.
void FollowAdvances(const std::string& policy, const std::string& planner,
                    ReplanObjective objective, std::uint64_t seed) {
  SCOPED_TRACE(policy + " / " + planner + " seed " + std::to_string(seed));
  auto cluster = Replanned(policy, planner, objective);
  auto in_place = Replanned(policy, planner, objective);
  std::mt19937_64 rng(seed);
  int replans = 0;
  for (int step = 0; step < 40; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    if (rng() % 3 != 0) {
      const Job job = testing::RandomJob(rng, cluster->now(), 16, 90);
      ASSERT_OK(cluster->Submit(job));
      ASSERT_OK(in_place->Submit(job));
      continue;
    }
    const Time to = cluster->now() + static_cast<Time>(rng() % 70) * kS;
    const bool due = cluster->PeriodicReplanDueBy(to);
    auto copy = cluster->Copy();
    PlanningReplanner ahead;
    ASSERT_OK(copy->AdvanceTo(to, &ahead));
    EXPECT_FALSE(ahead.stopped());
    // Due by `to` with jobs queued now, or nothing to plan on the way (the queue may empty first).
    if (!due) {
      EXPECT_TRUE(ahead.decisions().empty());
    }
    RecordedReplanner recorded(ahead.decisions());
    ASSERT_OK(cluster->AdvanceTo(to, &recorded));
    ASSERT_OK(in_place->AdvanceTo(to));
    EXPECT_EQ(recorded.planned_here(), 0);
    for (const PeriodicPlan& decision : ahead.decisions()) replans += decision.planned ? 1 : 0;
    // A copy books under its own reservation ids: it agrees on every job's outcome.
    EXPECT_EQ(testing::Outcome(*cluster), testing::Outcome(*copy));
    testing::ExpectSameImage(cluster->Image(), in_place->Image());
    ASSERT_OK(ValidateSchedule(cluster->ToValidate()));
  }
  // The instances are busy enough that some Replan was better than the policy's queue.
  EXPECT_GT(replans, 0);
}

TEST(PeriodicReplanAhead, DecisionsMadeOnACopyLeaveTheClusterAsPlanningInPlace) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    FollowAdvances("fcfs", "mrt", ReplanObjective::kMakespan, seed);
    FollowAdvances("conservative", "bicriteria", ReplanObjective::kBicriteria, seed);
    FollowAdvances("easy", "ltf", ReplanObjective::kWeightedCompletion, seed);
  }
}

// FCFS on rigid jobs in a bad order (6 and 3 wide alternating on 8 processors).
std::unique_ptr<ClusterPlan> BadOrder() {
  ClusterSpec spec{"periodic", {{"", 8, 1.0}}, ClockKind::kSimulated, "fcfs", {}};
  spec.replan = PeriodicReplan{60 * kS, "mrt", {}, ReplanObjective::kMakespan};
  auto plan = testing::OkValue(ClusterPlan::Create(spec, {}, 0));
  for (int i = 0; i < 6; ++i) Submit(*plan, RigidJob(i % 2 == 0 ? 6 : 3, 600));
  return plan;
}

TEST(PeriodicReplanAhead, DecisionsForAnotherInstantArePlannedAgain) {
  auto cluster = BadOrder();
  auto copy = cluster->Copy();
  PlanningReplanner ahead;
  ASSERT_OK(copy->AdvanceTo(61 * kS, &ahead));
  ASSERT_EQ(ahead.decisions().size(), 1U);
  ASSERT_TRUE(ahead.decisions()[0].planned.has_value());
  // The cluster moved on meanwhile: its Replan falls due at 120 s, not at 60 s.
  ASSERT_OK(cluster->AdvanceTo(59 * kS));
  ASSERT_OK(cluster->AdvanceTo(61 * kS));
  auto in_place = cluster->Copy();
  RecordedReplanner recorded(ahead.decisions());
  ASSERT_OK(cluster->AdvanceTo(121 * kS, &recorded));
  ASSERT_OK(in_place->AdvanceTo(121 * kS));
  EXPECT_EQ(recorded.planned_here(), 1);
  testing::ExpectSameImage(cluster->Image(), in_place->Image());
}

TEST(PeriodicReplanAhead, AStoppedPlannerKeepsTheQueueAndSaysSo) {
  auto plan = BadOrder();
  PlanningReplanner stopped(PlanControl{[] { return true; }});
  ASSERT_OK(plan->AdvanceTo(61 * kS, &stopped));
  EXPECT_TRUE(stopped.stopped());
  ASSERT_EQ(stopped.decisions().size(), 1U);
  EXPECT_FALSE(stopped.decisions()[0].planned.has_value());
  for (const JobRecord* job : plan->QueuedJobs()) EXPECT_FALSE(job->replanned) << job->job.id;
}

}  // namespace
}  // namespace resched
