// DASEDF (Saule et al. §3.2): hand-checked cases, the search against a brute-force optimum, the
// list-scheduling shortcut against EDF on the timeline, and random online runs against FCFS.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "core/online/stretch_search.h"
#include "core/registry/registry.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/stretch_test_util.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::ExpectAllocation;
using testing::HandQueue;
using testing::kS;
using testing::MakePlan;
using testing::RigidJob;
using testing::Submit;

// §3.2's motivating case: a large task then a small one reach a busy machine. FCFS runs the large
// one first (the small one waits 100 s for 1 s of work); DASEDF runs the small one first.
TEST(DasedfTest, SmallTaskOvertakesALargeOneThatArrivedFirst) {
  for (const char* policy : {"dasedf", "fcfs"}) {
    SCOPED_TRACE(policy);
    auto plan = MakePlan(policy, 1);
    Submit(*plan, RigidJob(1, 10));
    ASSERT_OK(plan->AdvanceTo(1 * kS));
    const auto large = Submit(*plan, RigidJob(1, 100, 1));
    ASSERT_OK(plan->AdvanceTo(2 * kS));
    const auto small = Submit(*plan, RigidJob(1, 1, 2));
    ASSERT_OK(plan->AdvanceTo(200 * kS));
    ASSERT_OK(ValidateSchedule(plan->ToValidate()));
    if (std::string(policy) == "dasedf") {
      ExpectAllocation(*plan, small, 1, 10, 11);  // stretch 9
      ExpectAllocation(*plan, large, 1, 11, 111);
    } else {
      ExpectAllocation(*plan, large, 1, 10, 110);
      ExpectAllocation(*plan, small, 1, 110, 111);  // stretch 109
    }
  }
}

// Four jobs released together behind a full machine: deadlines r + S·p order them shortest first.
// S = 3 (the 5 s job cannot end before 15) is met: 5 s and 10 s at 10, then 20 s, 30 s.
TEST(DasedfTest, EarliestDeadlineFirst) {
  auto plan = MakePlan("dasedf", 2);
  Submit(*plan, RigidJob(2, 10));
  const auto j30 = Submit(*plan, RigidJob(1, 30));
  const auto j20 = Submit(*plan, RigidJob(1, 20));
  const auto j10 = Submit(*plan, RigidJob(1, 10));
  const auto j5 = Submit(*plan, RigidJob(1, 5));
  EXPECT_FALSE(plan->FindJob(j5)->guaranteed);  // a plan, not a promise
  ASSERT_OK(plan->AdvanceTo(100 * kS));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  ExpectAllocation(*plan, j5, 1, 10, 15);
  ExpectAllocation(*plan, j10, 1, 10, 20);
  ExpectAllocation(*plan, j20, 1, 15, 35);
  ExpectAllocation(*plan, j30, 1, 20, 50);
}

TEST(DasedfTest, MoldableJobRunsAtItsSmallestWidth) {
  auto plan = MakePlan("dasedf", 4);
  Job job;
  job.model = RuntimeModel(AmdahlModel{100 * kS, 0, 2, 4});
  const auto id = Submit(*plan, job);
  ExpectAllocation(*plan, id, 2, 0, 50);
}

// Holds and future releases take the timeline path.
TEST(DasedfTest, WorksAroundHoldsAndFutureReleases) {
  auto plan = MakePlan("dasedf", 2);
  ASSERT_OK(plan->AddReservation(2, 10 * kS, 20 * kS, "maintenance", false));
  const auto long_job = Submit(*plan, RigidJob(1, 15));
  ExpectAllocation(*plan, long_job, 1, 20, 35);  // does not fit before the hold
  const auto short_job = Submit(*plan, RigidJob(1, 5));
  ExpectAllocation(*plan, short_job, 1, 0, 5);
  const auto later = Submit(*plan, RigidJob(2, 5, 30));
  // S = 7/3 (the 15 s job) lets the later job (p1 = 2·5 s) end by 53: after the 15 s one.
  ExpectAllocation(*plan, later, 2, 35, 40);
  ASSERT_OK(plan->AdvanceTo(100 * kS));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

// A hold that never ends leaves a job that needs those processors unplanned; the others are
// planned as usual.
// Holds must end (ClusterPlan bounds their end), so a job too wide for the capacity left by a
// very long hold waits behind it while narrower jobs go first.
TEST(DasedfTest, JobBehindAVeryLongHoldWaitsForIt) {
  for (const char* policy : {"dasedf", "dbos"}) {
    SCOPED_TRACE(policy);
    auto plan = MakePlan(policy, 2);
    const Time hold_end = kTimeMax / 2;
    ASSERT_OK(plan->AddReservation(1, 10 * kS, hold_end, "very long", false));
    const auto before = Submit(*plan, RigidJob(2, 5));
    const auto wide = Submit(*plan, RigidJob(2, 20));
    const auto small = Submit(*plan, RigidJob(1, 30));
    ExpectAllocation(*plan, before, 2, 0, 5);
    EXPECT_GE(plan->FindJob(wide)->allocation.start, hold_end);
    ExpectAllocation(*plan, small, 1, 5, 35);
    ASSERT_OK(plan->AdvanceTo(100 * kS));
    ASSERT_OK(ValidateSchedule(plan->ToValidate()));
    EXPECT_EQ(plan->FindJob(small)->state, JobState::kFinished);
  }
}

TEST(DasedfTest, RegistryBuildsItWithItsPrecision) {
  EXPECT_OK(MakePolicy("dasedf", {{"epsilon", 0.01}}));
  EXPECT_EQ(MakePolicy("dasedf", {{"epsilon", 0}}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The optimal maximum stretch of jobs all released by `now` on m idle machines: some list schedule
// is optimal (list-scheduling the jobs of an optimal schedule by start time delays none), so trying
// every order is exact.
double BruteForceMaxStretch(const std::vector<JobRecord*>& queue, int m, Time now) {
  std::vector<int> order(queue.size());
  std::iota(order.begin(), order.end(), 0);
  double best = 1e300;
  do {
    std::vector<Time> free(m, now);
    double worst = 0;
    for (int i : order) {
      auto first = std::min_element(free.begin(), free.end());
      const Duration p = queue[i]->job.model.SequentialTime();
      *first += p;
      worst = std::max(worst, static_cast<double>(*first - queue[i]->job.release) / p);
    }
    best = std::min(best, worst);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

TEST(DasedfSearchTest, MatchesTheOptimumOnOneMachineAndIsFeasibleOnSeveral) {
  constexpr double kEpsilon = 1e-3;
  std::mt19937_64 rng(11);
  for (int instance_id = 0; instance_id < 60; ++instance_id) {
    SCOPED_TRACE(absl::StrCat("instance ", instance_id));
    const int m = 1 + instance_id % 3;
    const Time now = 100 * kS;
    HandQueue hand;
    const int n = 3 + static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      hand.Add(RuntimeModel(RigidModel{1, (1 + static_cast<Duration>(rng() % 40)) * kS}),
               static_cast<Time>(rng() % 100) * kS);
    }
    Timeline idle(m);
    JobShapeCache shapes(/*all_widths=*/false);
    const StretchInstance instance = MakeStretchInstance(idle, now, hand.queue(), shapes);
    const StretchSearchResult result = SearchStretch(instance, &EdfSchedule, kEpsilon);
    ASSERT_OK(ValidateSchedule(testing::PlanToValidate(instance, result.plan)));
    EXPECT_DOUBLE_EQ(instance.MaxStretch(result.plan), result.stretch);
    const double optimum = BruteForceMaxStretch(hand.queue(), m, now);
    EXPECT_GE(result.stretch, optimum * (1 - 1e-12));
    if (m == 1) {
      EXPECT_LE(result.stretch, optimum * (1 + kEpsilon) * (1 + 1e-12));
    }
    // The plan meets S; S·(1 - epsilon) is rejected.
    std::vector<Allocation> plan;
    EXPECT_TRUE(ScheduleForStretch(instance, &EdfSchedule, result.stretch, plan));
    EXPECT_FALSE(ScheduleForStretch(instance, &EdfSchedule, result.stretch * (1 - kEpsilon), plan));
  }
}

// The heap shortcut is EDF on the timeline when every job is sequential and released and the
// machine only gains processors; compare both on random instances.
TEST(DasedfSearchTest, ListSchedulingEqualsEdfOnTheTimeline) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    const int m = 1 + static_cast<int>(rng() % 6);
    const Time now = 50 * kS;
    Timeline timeline(m);
    for (int r = 0; r < 3; ++r) {  // running jobs: they all started before now
      const int k = 1 + static_cast<int>(rng() % m);
      const Time end = now + static_cast<Time>(1 + rng() % 30) * kS;
      (void)timeline.Add(0, end, k);
    }
    HandQueue hand;
    for (int i = 0; i < 12; ++i) {
      hand.Add(RuntimeModel(RigidModel{1, (1 + static_cast<Duration>(rng() % 20)) * kS}),
               static_cast<Time>(rng() % 50) * kS);
    }
    JobShapeCache shapes(false);
    const StretchInstance instance = MakeStretchInstance(timeline, now, hand.queue(), shapes);
    ASSERT_TRUE(instance.base_non_decreasing());
    for (double s : {1.0, 2.5, 7.0, 1e9}) {
      std::vector<Allocation> heap_plan;
      const bool met =
          ScheduleForStretch(instance, &EdfSchedule, s, heap_plan, /*give_up_above=*/1e300);
      std::vector<Due> order;
      instance.DeadlineOrder(s, order);
      Timeline reference = timeline.Copy();
      bool reference_met = true;
      for (const Due& due : order) {
        const Duration d = instance.jobs()[due.job].times[0];
        const Time start = *reference.EarliestStart(now, d, 1);
        ASSERT_OK(reference.Add(start, start + d, 1));
        EXPECT_EQ(heap_plan[due.job].start, start) << "job " << due.job << " S " << s;
        reference_met &= start + d <= due.deadline;
      }
      EXPECT_EQ(met, reference_met);
    }
  }
}

// §4's comparison in miniature: over random loaded sequential workloads, DASEDF's maximum stretch
// is below FCFS's on average (and every schedule is valid).
TEST(DasedfTest, BeatsFcfsOnMaximumStretchOnAverage) {
  std::mt19937_64 rng(2024);
  double dasedf = 0, fcfs = 0;
  constexpr int kInstances = 12;
  for (int i = 0; i < kInstances; ++i) {
    const auto jobs = testing::SequentialWorkload(rng, 150, 20, 7.6);
    dasedf += testing::RunOnline("dasedf", {}, 8, jobs).max_stretch;
    fcfs += testing::RunOnline("fcfs", {}, 8, jobs).max_stretch;
  }
  EXPECT_LT(dasedf / kInstances, fcfs / kInstances);
}

TEST(DasedfTest, SameInputSameSchedule) {
  auto run = [] {
    std::mt19937_64 rng(3);
    const auto jobs = testing::SequentialWorkload(rng, 100, 10, 3.5);
    auto plan = MakePlan("dasedf", 4);
    std::vector<std::tuple<int, Time, Time>> out;
    for (const Job& job : jobs) {
      EXPECT_OK(plan->AdvanceTo(job.release));
      EXPECT_OK(plan->Submit(job));
    }
    for (const JobRecord* job : plan->Jobs()) {
      out.emplace_back(job->allocation.k, job->allocation.start, job->allocation.end);
    }
    return out;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace resched
