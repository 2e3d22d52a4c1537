// ClusterPlan::ApplyReplan and the replanned queue: hand-checked placements, all or nothing on
// stale or malformed plans, and, for every policy over random operations, replanned jobs that
// keep their width and order and never move later; every schedule through the validator.
#include <algorithm>
#include <map>
#include <random>

#include "core/plan/cluster_plan.h"
#include "core/plan/replan.h"
#include "core/registry/registry.h"
#include "gtest/gtest.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/random_ops.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::AllocationOf;
using testing::ExpectAllocation;
using testing::kS;
using testing::RigidJob;
using testing::Submit;

Allocation Seconds(int k, Duration start_s, Duration end_s) {
  return Allocation{k, start_s * kS, end_s * kS};
}

// A 4-processor FCFS cluster: j1 runs on all of it over [0, 10); j2 (1 processor) and j3 (3)
// are queued at 10 side by side.
std::unique_ptr<ClusterPlan> BusyFcfs() {
  auto plan = testing::MakePlan("fcfs", 4);
  Submit(*plan, RigidJob(4, 10));
  Submit(*plan, RigidJob(1, 10));
  Submit(*plan, RigidJob(3, 10));
  ExpectAllocation(*plan, "j2", 1, 10, 20);
  ExpectAllocation(*plan, "j3", 3, 10, 20);
  (void)plan->TakeChangedJobs();
  return plan;
}

TEST(ApplyReplan, PlacesTheListedJobsExactlyAndKeepsThemOutOfThePolicysQueue) {
  auto plan = BusyFcfs();
  ASSERT_OK(plan->ApplyReplan({{"j3", Seconds(3, 10, 20)}, {"j2", Seconds(1, 20, 30)}}));
  ExpectAllocation(*plan, "j2", 1, 20, 30);
  ExpectAllocation(*plan, "j3", 3, 10, 20);
  EXPECT_TRUE(plan->FindJob("j2")->replanned);
  EXPECT_EQ(plan->queued_count(), 2);
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  const auto changed = plan->TakeChangedJobs();
  ASSERT_EQ(changed.size(), 1u);  // j3 did not move
  EXPECT_EQ(changed[0]->job.id, "j2");

  // FCFS places a new job around the replanned ones, which do not move.
  const JobId j4 = Submit(*plan, RigidJob(1, 5));
  ExpectAllocation(*plan, j4, 1, 10, 15);
  ExpectAllocation(*plan, "j2", 1, 20, 30);
}

TEST(ApplyReplan, ReplannedJobsMoveEarlierInTheirOrderAndWidthWhenCapacityIsFreed) {
  auto plan = BusyFcfs();
  ASSERT_OK(plan->ApplyReplan({{"j3", Seconds(3, 10, 20)}, {"j2", Seconds(1, 20, 30)}}));
  // j1 ends at 4 instead of 10: j3 moves to 4, then j2 can start no earlier than j3 (order kept)
  // and fits beside it at 4.
  ASSERT_OK(plan->AdvanceTo(4 * kS));
  ASSERT_OK(plan->ReportEnded("j1", 4 * kS, false));
  EXPECT_EQ(plan->FindJob("j3")->state, JobState::kRunning);
  ExpectAllocation(*plan, "j3", 3, 4, 14);
  ExpectAllocation(*plan, "j2", 1, 4, 14);
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(ApplyReplan, ACancelInFrontMovesLaterReplannedJobsUp) {
  auto plan = BusyFcfs();
  ASSERT_OK(plan->ApplyReplan({{"j3", Seconds(3, 10, 20)}, {"j2", Seconds(1, 20, 30)}}));
  ASSERT_OK(plan->Cancel("j3"));
  ExpectAllocation(*plan, "j2", 1, 10, 20);
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(ApplyReplan, JobsTheListMissesArePlacedByThePolicyAfterwards) {
  auto plan = BusyFcfs();
  // A plan made before j3 was submitted: j2 alone, at 10. FCFS then places j3 from scratch.
  ASSERT_OK(plan->ApplyReplan({{"j2", Seconds(1, 10, 20)}}));
  EXPECT_TRUE(plan->FindJob("j2")->replanned);
  EXPECT_FALSE(plan->FindJob("j3")->replanned);
  ExpectAllocation(*plan, "j3", 3, 10, 20);
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(ApplyReplan, AStalePlanChangesNothingAndNamesTheJob) {
  auto plan = BusyFcfs();
  const auto before = testing::Outcome(*plan);
  const Timeline free_before = plan->FreeForQueued();
  // j2 over the running j1: the capacity is not free.
  EXPECT_THAT(plan->ApplyReplan({{"j3", Seconds(3, 10, 20)}, {"j2", Seconds(1, 5, 15)}}),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                ::testing::HasSubstr("job 'j2' of the plan no longer fits")));
  EXPECT_THAT(plan->ApplyReplan({{"j1", Seconds(4, 10, 20)}}),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                ::testing::HasSubstr("'j1' of the plan is no longer queued")));
  ExpectAllocation(*plan, "j2", 1, 10, 20);
  ExpectAllocation(*plan, "j3", 3, 10, 20);
  EXPECT_FALSE(plan->FindJob("j2")->replanned);
  EXPECT_EQ(testing::Outcome(*plan), before);
  // The bookings left are those of before: the free capacity for queued jobs is the same.
  const Timeline free_after = plan->FreeForQueued();
  for (Time t = 0; t < 40 * kS; t += kS) {
    EXPECT_EQ(free_after.MinFree(t, t + kS), free_before.MinFree(t, t + kS)) << t;
  }
  EXPECT_TRUE(plan->TakeChangedJobs().empty());
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  EXPECT_OK(plan->timeline().CheckInvariants());
}

TEST(ApplyReplan, AMalformedPlanIsRefusedNamingTheEntryAndTheLimit) {
  auto plan = BusyFcfs();
  EXPECT_THAT(plan->ApplyReplan({{"j2", Seconds(1, 10, 25)}}),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("plan[0]: job 'j2' runs 10000000 us")));
  EXPECT_THAT(plan->ApplyReplan({{"j2", Seconds(2, 10, 20)}}),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("cannot run on 2 processors")));
  EXPECT_THAT(plan->ApplyReplan({{"j2", Seconds(1, 10, 20)}, {"j2", Seconds(1, 10, 20)}}),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("plan[1]: job 'j2' appears twice")));
  ASSERT_OK(plan->AdvanceTo(2 * kS));
  EXPECT_THAT(plan->ApplyReplan({{"j2", Seconds(1, 1, 11)}}),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("must start at or after")));
  ExpectAllocation(*plan, "j2", 1, 10, 20);
}

TEST(ApplyReplan, ADisplacingReservationReturnsReplannedJobsToThePolicy) {
  auto plan = BusyFcfs();
  ASSERT_OK(plan->ApplyReplan({{"j3", Seconds(3, 10, 20)}, {"j2", Seconds(1, 20, 30)}}));
  ASSERT_OK(plan->AddReservation(4, 10 * kS, 12 * kS, "maintenance", true));
  EXPECT_FALSE(plan->FindJob("j2")->replanned);
  EXPECT_FALSE(plan->FindJob("j3")->replanned);
  ExpectAllocation(*plan, "j2", 1, 12, 22);  // FCFS order again
  ExpectAllocation(*plan, "j3", 3, 12, 22);
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

// Every policy: random work, a Replan with MRT, more random work (no holds: a displacing hold
// may legitimately return replanned jobs to the policy). While queued, a replanned job keeps
// its width, never starts later than the Replan put it, and keeps its order among the others.
TEST(ApplyReplan, EveryPolicyKeepsReplannedJobsInWidthAndOrderAndNeverLater) {
  auto mrt = MakeOfflinePlanner("mrt", {});
  ASSERT_OK(mrt);
  int policies = 0;
  int checked = 0;  // replanned jobs seen queued after a later step
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kPolicy) continue;
    ++policies;
    for (std::uint64_t seed : {1, 2, 3}) {
      SCOPED_TRACE(info.name + " seed " + std::to_string(seed));
      auto plan = testing::MakePlanWith(info.name, 8, testing::PolicyTestParams(info.name));
      ASSERT_NE(plan, nullptr);
      testing::RunRandomOps({plan.get()}, seed, {.steps = 40, .max_k = 8});
      absl::StatusOr<ReplanProposal> proposal =
          ProposeReplan(*plan, **mrt, ReplanObjective::kMakespan, {});
      ASSERT_OK(proposal);
      ASSERT_OK(plan->ApplyReplan(proposal->planned));
      ASSERT_OK(ValidateSchedule(plan->ToValidate()));
      std::map<JobId, Allocation> replanned;
      for (const JobRecord* job : plan->QueuedJobs()) replanned[job->job.id] = job->allocation;
      const testing::RandomOptions options{.steps = 40, .max_k = 8, .holds = false};
      testing::RunRandomOps({plan.get()}, seed + 50, options, [&](int) {
        Time previous = kTimeMin;
        std::vector<const JobRecord*> order;
        for (const JobRecord* job : plan->QueuedJobs()) {
          if (job->replanned) order.push_back(job);
        }
        std::sort(order.begin(), order.end(), [&](const JobRecord* a, const JobRecord* b) {
          return replanned[a->job.id].start < replanned[b->job.id].start ||
                 (replanned[a->job.id].start == replanned[b->job.id].start &&
                  a->sequence < b->sequence);
        });
        for (const JobRecord* job : order) {
          const Allocation& at_replan = replanned[job->job.id];
          EXPECT_EQ(job->allocation.k, at_replan.k) << job->job.id;
          EXPECT_LE(job->allocation.start, at_replan.start) << job->job.id;
          EXPECT_GE(job->allocation.start, previous) << job->job.id << " overtook its predecessor";
          previous = job->allocation.start;
          ++checked;
        }
      });
    }
  }
  EXPECT_GE(policies, 10);
  EXPECT_GT(checked, 1000);
}

// FCFS on 8 processors with rigid jobs in a bad order (6 and 3 wide alternating, 10 minutes
// each): each waits for the one before. The cluster replans every minute with MRT.
std::unique_ptr<ClusterPlan> PeriodicallyReplanned(Duration every) {
  ClusterSpec spec{"periodic", {{"", 8, 1.0}}, ClockKind::kSimulated, "fcfs", {}};
  spec.replan = PeriodicReplan{every, "mrt", {}, ReplanObjective::kMakespan};
  auto plan = testing::OkValue(ClusterPlan::Create(spec, {}, 0));
  for (int i = 0; i < 6; ++i) Submit(*plan, RigidJob(i % 2 == 0 ? 6 : 3, 600));
  return plan;
}

TEST(PeriodicReplan, ASimulatedClusterReplansWhenItsClockPassesThePeriod) {
  auto plan = PeriodicallyReplanned(60 * kS);
  const QueueFigures before = FiguresOfQueue(*plan);
  ASSERT_OK(plan->AdvanceTo(59 * kS));
  for (const JobRecord* job : plan->QueuedJobs()) EXPECT_FALSE(job->replanned) << job->job.id;
  ASSERT_OK(plan->AdvanceTo(61 * kS));
  int replanned = 0;
  for (const JobRecord* job : plan->QueuedJobs()) replanned += job->replanned ? 1 : 0;
  EXPECT_EQ(replanned, plan->queued_count());
  EXPECT_LT(FiguresOfQueue(*plan).makespan, before.makespan);
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  // The same plan advanced in other steps replans the same way (a replay of the journal).
  auto again = PeriodicallyReplanned(60 * kS);
  ASSERT_OK(again->AdvanceTo(61 * kS));
  EXPECT_EQ(testing::Outcome(*again), testing::Outcome(*plan));
}

TEST(PeriodicReplan, APlanThatIsNotBetterIsNotApplied) {
  auto plan = PeriodicallyReplanned(60 * kS);
  ASSERT_OK(plan->AdvanceTo(61 * kS));  // replanned: MRT's plan is now the schedule
  (void)plan->TakeChangedJobs();
  ASSERT_OK(plan->AdvanceTo(121 * kS));  // MRT again: the same makespan, not strictly better
  for (const JobRecord* job : plan->TakeChangedJobs()) {
    EXPECT_NE(job->state, JobState::kQueued) << job->job.id << " moved without a better plan";
  }
}

TEST(PeriodicReplan, APeriodUnderOneSecondOrAnUnknownPlannerIsRefused) {
  ClusterSpec spec{"periodic", {{"", 8, 1.0}}, ClockKind::kSimulated, "fcfs", {}};
  spec.replan = PeriodicReplan{kS / 2, "mrt", {}, ReplanObjective::kMakespan};
  EXPECT_THAT(ClusterPlan::Create(spec, {}, 0),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("cluster.replan_every must be 0 (never) or "
                                                     "at least 1s")));
  spec.replan = PeriodicReplan{60 * kS, "fcfs", {}, ReplanObjective::kMakespan};
  EXPECT_THAT(ClusterPlan::Create(spec, {}, 0),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("cluster.replan_algorithm.name must be a "
                                                     "planner")));
}

TEST(ProposeReplan, BoundsAreBelowThePlanAndTheTrialIsWhatApplyingGives) {
  auto plan = testing::MakePlan("conservative", 8);
  ASSERT_OK(plan->AddReservation(4, 30 * kS, 90 * kS, "hold", false));
  std::mt19937_64 rng(7);
  for (int i = 0; i < 30; ++i) Submit(*plan, testing::RandomJob(rng, 0, 8, 60));
  for (const std::string name : {"mrt", "bicriteria", "list-saf"}) {
    SCOPED_TRACE(name);
    auto planner = MakeOfflinePlanner(name, {});
    ASSERT_OK(planner);
    absl::StatusOr<ReplanProposal> proposal =
        ProposeReplan(*plan, **planner, ReplanObjective::kBicriteria, {});
    ASSERT_OK(proposal);
    ASSERT_TRUE(proposal->makespan_lower_bound.has_value());
    ASSERT_TRUE(proposal->weighted_completion_lower_bound.has_value());
    const ReplanTrial& trial = proposal->trial;
    EXPECT_LE(*proposal->makespan_lower_bound, trial.after.makespan);
    EXPECT_LE(*proposal->makespan_lower_bound, trial.before.makespan);
    EXPECT_LE(*proposal->weighted_completion_lower_bound, trial.after.weighted_completion);
    EXPECT_LE(*proposal->weighted_completion_lower_bound, trial.before.weighted_completion);
    EXPECT_EQ(trial.before.jobs, plan->queued_count());
    EXPECT_EQ(trial.after.jobs, plan->queued_count());
    auto copy = plan->Copy();
    ASSERT_OK(copy->ApplyReplan(proposal->planned));
    ASSERT_OK(ValidateSchedule(copy->ToValidate()));
    const QueueFigures applied = FiguresOfQueue(*copy);
    EXPECT_EQ(applied.makespan, trial.after.makespan);
    EXPECT_DOUBLE_EQ(applied.weighted_completion, trial.after.weighted_completion);
    int moved = 0;
    for (const JobRecord* job : plan->QueuedJobs()) {
      moved += copy->FindJob(job->job.id)->allocation != job->allocation ? 1 : 0;
    }
    EXPECT_EQ(static_cast<int>(trial.moves.size()), moved);
  }
}

TEST(IsWorse, JudgesTheChosenObjectiveOnly) {
  const QueueFigures before{3, 100, 50.0, 1.0, 2.0, 20.0};
  QueueFigures later_makespan = before;
  later_makespan.makespan = 101;
  later_makespan.weighted_completion = 40;
  later_makespan.weighted_completion_from_now = 10;
  EXPECT_TRUE(IsWorse(ReplanObjective::kMakespan, before, later_makespan));
  EXPECT_FALSE(IsWorse(ReplanObjective::kWeightedCompletion, before, later_makespan));
  EXPECT_TRUE(IsWorse(ReplanObjective::kBicriteria, before, later_makespan));
  QueueFigures stretchier = before;
  stretchier.max_stretch = 2.5;
  EXPECT_TRUE(IsWorse(ReplanObjective::kMaxStretch, before, stretchier));
  EXPECT_FALSE(IsWorse(ReplanObjective::kMakespan, before, stretchier));
  EXPECT_FALSE(IsWorse(ReplanObjective::kBicriteria, before, before));
}

TEST(IsWorse, WeightedCompletionIsComparedFromThePresentNotFromTheEpoch) {
  // A WALL cluster's sums of w C are near 1.8e10 s: 0.17 s worse is below 1e-9 of that.
  const QueueFigures before{10, 0, 17959062280.2200, 1.0, 1.0, 120.2200};
  QueueFigures after = before;
  after.weighted_completion = 17959062280.3916;
  after.weighted_completion_from_now = 120.3916;
  EXPECT_TRUE(IsWorse(ReplanObjective::kWeightedCompletion, before, after));
  EXPECT_TRUE(IsBetter(ReplanObjective::kWeightedCompletion, after, before));
  EXPECT_FALSE(IsBetter(ReplanObjective::kWeightedCompletion, before, after));
}

TEST(FiguresOfQueue, TheSumFromThePresentIsTheSumOfWeightsTimesTimeLeft) {
  auto plan = testing::MakePlan("fcfs", 4);
  Submit(*plan, testing::RigidJob(4, 10));  // runs over [0, 10)
  Job heavy = testing::RigidJob(4, 5);
  heavy.weight = 3;
  Submit(*plan, heavy);  // queued over [10, 15)
  ASSERT_OK(plan->AdvanceTo(2 * kS));
  const QueueFigures figures = FiguresOfQueue(*plan);
  EXPECT_EQ(figures.jobs, 1);
  EXPECT_DOUBLE_EQ(figures.weighted_completion_from_now, 3 * 13.0);
}

}  // namespace
}  // namespace resched
