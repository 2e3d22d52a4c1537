// EASY deciding a new job alone (easy.cc): a plan doing so and one passing over the whole queue
// at every decision (the reference) are driven in lockstep and must place every job alike,
// through random submissions (some released later), cancels, early ends, holds, displacing
// holds and clock moves, and through a DAG task whose end gives capacity back between events.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <tuple>
#include <vector>

#include "core/dag/dag_plan.h"
#include "core/online/policies.h"
#include "core/plan/cluster_plan.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/random_ops.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::kS;

std::unique_ptr<ClusterPlan> EasyPlan(int processors, bool decide_new_jobs_alone) {
  const ClusterSpec spec{"test", {{"", processors, 1.0}}, ClockKind::kSimulated, "easy", {}};
  return testing::OkValue(
      ClusterPlan::CreateWithPolicy(spec, {}, 0, MakeEasyPolicy(decide_new_jobs_alone)));
}

// Every job's state and allocation, and whether it is a promise (the head's) or an estimate.
std::vector<std::tuple<JobId, int, int, Time, Time, bool>> EasyOutcome(const ClusterPlan& plan) {
  std::vector<std::tuple<JobId, int, int, Time, Time, bool>> out;
  for (const JobRecord* job : plan.Jobs()) {
    out.emplace_back(job->job.id, static_cast<int>(job->state), job->allocation.k,
                     job->allocation.start, job->allocation.end, job->guaranteed);
  }
  return out;
}

TEST(EasyAlone, DecidesAsPassingOverTheWholeQueueDoes) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    auto alone = EasyPlan(8, true);
    auto reference = EasyPlan(8, false);
    testing::RunRandomOps({alone.get(), reference.get()}, seed, {.steps = 400, .max_k = 8},
                          [&](int) { ASSERT_EQ(EasyOutcome(*alone), EasyOutcome(*reference)); });
    if (::testing::Test::HasFailure()) return;
  }
}

// A deep backlog with the clock moving between submissions, jobs of any release.
TEST(EasyAlone, FollowsADeepBacklogAsThePassDoes) {
  auto alone = EasyPlan(16, true);
  auto reference = EasyPlan(16, false);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 600; ++i) {
    const Job job = testing::RandomJob(rng, alone->now(), 16, 600);
    ASSERT_OK(alone->Submit(job));
    ASSERT_OK(reference->Submit(job));
    if (i % 5 == 4) {
      const Time t = alone->now() + static_cast<Time>(rng() % 30) * kS;
      ASSERT_OK(alone->AdvanceTo(t));
      ASSERT_OK(reference->AdvanceTo(t));
    }
    ASSERT_EQ(EasyOutcome(*alone), EasyOutcome(*reference)) << "after job " << i;
  }
  EXPECT_GT(alone->queued_count(), 100);
  ASSERT_OK(ValidateSchedule(alone->ToValidate()));
}

// A new job that backfills now beside the head but where an estimate lies moves that estimate,
// as a pass does: it is not decided alone.
TEST(EasyAlone, AJobBackfillingWhereAnEstimateLiesMovesIt) {
  for (bool decide_new_jobs_alone : {true, false}) {
    SCOPED_TRACE(decide_new_jobs_alone);
    auto plan = EasyPlan(4, decide_new_jobs_alone);
    const JobId running = testing::Submit(*plan, testing::RigidJob(2, 50));
    const JobId head = testing::Submit(*plan, testing::RigidJob(3, 10));
    const JobId waiting = testing::Submit(*plan, testing::RigidJob(4, 100));
    testing::ExpectAllocation(*plan, running, 2, 0, 50);
    testing::ExpectAllocation(*plan, head, 3, 50, 60);
    testing::ExpectAllocation(*plan, waiting, 4, 60, 160);  // an estimate behind the head
    // One processor beside the running job and the head, over [0, 100): it starts now, and
    // the estimate moves behind it.
    const JobId backfilled = testing::Submit(*plan, testing::RigidJob(1, 100));
    testing::ExpectAllocation(*plan, backfilled, 1, 0, 100);
    EXPECT_EQ(plan->FindJob(backfilled)->state, JobState::kRunning);
    testing::ExpectAllocation(*plan, waiting, 4, 100, 200);
  }
}

// A DAG task's end is no event of the plan, but the capacity it gives back lets a waiting job
// start at the next instant the plan settles, as a pass there decides.
TEST(EasyAlone, ADagTaskEndingBetweenEventsLetsAWaitingJobStart) {
  for (bool decide_new_jobs_alone : {true, false}) {
    SCOPED_TRACE(decide_new_jobs_alone);
    auto plan = EasyPlan(4, decide_new_jobs_alone);
    const RuntimeModel task_model(RigidModel{2, 10 * kS});
    DagPlan dag_plan{{{2, 0, 10 * kS, {}}}, 0, 0};
    Summarize(dag_plan);
    ASSERT_OK(plan->CommitDag(Dag{{{"task", task_model}}, {}}, dag_plan, "cpa", "", 0));
    ASSERT_OK(plan->AddReservation(4, 100 * kS, 200 * kS, "hold", false));
    const JobId running = testing::Submit(*plan, testing::RigidJob(2, 50));
    const JobId head = testing::Submit(*plan, testing::RigidJob(4, 60));  // after the hold
    const JobId waiting = testing::Submit(*plan, testing::RigidJob(2, 30));
    testing::ExpectAllocation(*plan, running, 2, 0, 50);
    testing::ExpectAllocation(*plan, head, 4, 200, 260);
    testing::ExpectAllocation(*plan, waiting, 2, 260, 290);  // an estimate behind the head
    ASSERT_OK(plan->AdvanceTo(20 * kS));                     // the task ended at 10 s
    testing::ExpectAllocation(*plan, waiting, 2, 20, 50);
    EXPECT_EQ(plan->FindJob(waiting)->state, JobState::kRunning);
  }
}

}  // namespace
}  // namespace resched
