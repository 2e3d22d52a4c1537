// Replan on processor groups of different speeds: every offline planner plans each group's
// queued jobs in that group; the jobs keep their group and its speed, the groups' policy plans
// around them, they move only earlier and only where their group has room, and every schedule
// goes through the validator (per group).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/plan/cluster_plan.h"
#include "core/plan/replan.h"
#include "core/registry/registry.h"
#include "gtest/gtest.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/random_ops.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::kS;

const std::vector<ProcessorGroup> kReplanGroups = {{"slow", 8, 1.0}, {"fast", 4, 2.0}};

TEST(ReplanOnGroups, EveryOfflinePlannerKeepsEachJobInItsGroupAndTheScheduleValid) {
  int planners = 0;
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kPlanner) continue;
    ++planners;
    auto planner = testing::OkValue(MakeOfflinePlanner(info.name, {}));
    for (std::uint64_t seed : {1, 2}) {
      SCOPED_TRACE(absl::StrCat(info.name, " seed ", seed));
      auto plan = testing::MakePlanOn("conservative", kReplanGroups);
      testing::RunRandomOps({plan.get()}, seed, {.steps = 40, .max_k = 6});
      ASSERT_OK(plan->AddReservation(2, plan->now() + 50 * kS, plan->now() + 90 * kS, "fast", true,
                                     /*group=*/1));
      std::map<JobId, int> group_of;
      for (const JobRecord* job : plan->QueuedJobs()) group_of[job->job.id] = job->group;
      const ReplanProposal proposal = testing::OkValue(
          ProposeReplan(*plan, *planner, ReplanObjective::kBicriteria, {}, /*lower_bounds=*/true));
      if (!group_of.empty()) {
        ASSERT_TRUE(proposal.makespan_lower_bound.has_value());
        EXPECT_LE(*proposal.makespan_lower_bound, proposal.trial.after.makespan);
        ASSERT_TRUE(proposal.weighted_completion_lower_bound.has_value());
        EXPECT_LE(*proposal.weighted_completion_lower_bound,
                  proposal.trial.after.weighted_completion * (1 + 1e-9));
      }
      ASSERT_OK(plan->ApplyReplan(proposal.planned));
      ASSERT_OK(ValidateSchedule(plan->ToValidate()));
      for (const auto& [id, group] : group_of) EXPECT_EQ(plan->FindJob(id)->group, group) << id;
      // Then the groups' policy around them, capacity freed early, holds: still valid.
      testing::RunRandomOps({plan.get()}, seed + 50, {.steps = 60, .max_k = 6});
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GE(planners, 5);
}

TEST(ReplanOnGroups, AReplannedJobMovesEarlierOnlyWhereItsGroupHasRoom) {
  auto plan = testing::MakePlanOn("fcfs", kReplanGroups);
  const JobId fast_runs = testing::Submit(*plan, testing::RigidJob(4, 100));  // fast: [0, 50)
  const JobId slow_runs = testing::Submit(*plan, testing::RigidJob(8, 100));  // slow: [0, 100)
  ASSERT_EQ(plan->FindJob(fast_runs)->group, 1);
  ASSERT_EQ(plan->FindJob(slow_runs)->group, 0);
  const JobId waiting = testing::Submit(*plan, testing::RigidJob(4, 100));
  ASSERT_EQ(plan->FindJob(waiting)->group, 1);  // 50 + 50 s on the fast group
  ASSERT_OK(plan->ApplyReplan({{waiting, Allocation{4, 60 * kS, 110 * kS}}}));
  ASSERT_TRUE(plan->FindJob(waiting)->replanned);
  // The slow group frees 8 processors at 20 s: the cluster has room from then on, the fast
  // group only from 50 s, where the job moves.
  ASSERT_OK(plan->AdvanceTo(20 * kS));
  ASSERT_OK(plan->ReportEnded(slow_runs, 20 * kS, false));
  testing::ExpectAllocation(*plan, waiting, 4, 50, 100);
  // The fast group frees at 30 s: the replanned job moves there.
  ASSERT_OK(plan->AdvanceTo(30 * kS));
  ASSERT_OK(plan->ReportEnded(fast_runs, 30 * kS, false));
  EXPECT_EQ(plan->FindJob(waiting)->state, JobState::kRunning);
  testing::ExpectAllocation(*plan, waiting, 4, 30, 80);
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(ReplanOnGroups, APlanOutsideAJobsGroupIsRefusedNamingIt) {
  auto plan = testing::MakePlanOn("fcfs", kReplanGroups);
  testing::Submit(*plan, testing::RigidJob(8, 10));   // slow: [0, 10)
  testing::Submit(*plan, testing::RigidJob(4, 100));  // fast: [0, 50)
  const JobId queued = testing::Submit(*plan, testing::RigidJob(4, 100));
  ASSERT_EQ(plan->FindJob(queued)->group, 1);  // ends at 100 s there, 110 s on the slow group
  EXPECT_THAT(plan->ApplyReplan({{queued, Allocation{6, 60 * kS, 110 * kS}}}),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("in [1, 4] (its group 1, 'fast')")));
  // Room on the cluster (the slow group is idle from 10 s), none in the fast group.
  EXPECT_THAT(plan->ApplyReplan({{queued, Allocation{4, 20 * kS, 70 * kS}}}),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                ::testing::HasSubstr("of group 1 ('fast')")));
  testing::ExpectAllocation(*plan, queued, 4, 50, 100);
}

TEST(ReplanOnGroups, APeriodicReplanRunsOnSeveralSpeeds) {
  ClusterSpec spec{"periodic", kReplanGroups, ClockKind::kSimulated, "fcfs", {}};
  spec.replan = PeriodicReplan{60 * kS, "mrt", {}, ReplanObjective::kMakespan};
  auto plan = testing::OkValue(ClusterPlan::Create(spec, {}, 0));
  testing::RunRandomOps({plan.get()}, 9, {.steps = 120, .max_k = 6});
}

}  // namespace
}  // namespace resched
