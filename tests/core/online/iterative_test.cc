// Iterative and Improved Iterative (Saule §5.4, after Sabin et al.): the width search by hand on
// small cases, its invariants on random queues, and random ClusterPlan runs with every schedule
// validated.
#include "core/online/iterative.h"

#include <gtest/gtest.h>

#include <random>

#include "absl/strings/str_cat.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/random_ops.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::ExpectAllocation;
using testing::kS;
using testing::MakePlanWith;
using testing::RigidJob;
using testing::Submit;

Job IterativeAmdahlJob(Duration t1_s, double alpha, int k_max, Time release_s = 0) {
  Job job;
  job.model = RuntimeModel(AmdahlModel{t1_s * kS, alpha, 1, k_max});
  job.release = release_s * kS;
  return job;
}

Job Table(std::vector<TableModel::Entry> entries) {
  for (auto& e : entries) e.time *= kS;
  Job job;
  job.model = RuntimeModel(TableModel{std::move(entries)});
  return job;
}

// The schedule of a plan on `base`, for the validator (base's bookings as holds).
ScheduleToValidate ToValidate(const Timeline& base, const std::vector<const Job*>& jobs,
                              const IterativePlan& plan) {
  ScheduleToValidate s;
  s.capacity = base.capacity();
  base.ForEachStep(0, kTimeMax, [&](const TimelineStep& step) {
    if (step.free < base.capacity() && step.end < kTimeMax) {
      s.holds.push_back({base.capacity() - step.free, step.start, step.end});
    }
  });
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_TRUE(plan.allocations[i].has_value()) << i;
    if (!plan.allocations[i]) continue;
    s.items.push_back({absl::StrCat("q", i), *plan.allocations[i], jobs[i]->release,
                       &jobs[i]->model, false, std::nullopt});
  }
  return s;
}

// Allocations as comparable tuples.
std::vector<std::tuple<int, Time, Time>> Tuples(const IterativePlan& plan) {
  std::vector<std::tuple<int, Time, Time>> out;
  for (const auto& a : plan.allocations) {
    out.emplace_back(a ? a->k : -1, a ? a->start : 0, a ? a->end : 0);
  }
  return out;
}

FlowSum FlowOf(const std::vector<const Job*>& jobs, const IterativePlan& plan) {
  FlowSum sum = 0;
  for (size_t i = 0; i < jobs.size(); ++i) sum += plan.allocations[i]->end - jobs[i]->release;
  return sum;
}

TEST(IterativeTest, TwoPerfectlyParallelJobsShareTheCluster) {
  // On 4 processors: both on 1 (flows 100 + 100), the first gets a second processor (50 + 100),
  // then the second (50 + 50); a third processor for either delays the other: both roll back.
  Timeline base(4);
  const Job a = IterativeAmdahlJob(100, 0, 4), b = IterativeAmdahlJob(100, 0, 4);
  const std::vector<const Job*> jobs{&a, &b};
  for (auto rule : {IterativeRule::kNextWidth, IterativeRule::kBestGainPerProcessor}) {
    const IterativePlan plan = PlanIterative(base, jobs, 0, rule);
    EXPECT_EQ(plan.steps, 4);
    EXPECT_EQ(plan.accepted, 2);
    EXPECT_EQ(plan.initial_flow, FlowSum{200} * kS);
    EXPECT_EQ(plan.flow, FlowSum{100} * kS);
    for (const auto& allocation : plan.allocations) {
      EXPECT_EQ(allocation->k, 2);
      EXPECT_EQ(allocation->start, 0);
      EXPECT_EQ(allocation->end, 50 * kS);
    }
    EXPECT_OK(ValidateSchedule(ToValidate(base, jobs, plan)));
  }
}

TEST(IterativeTest, StepsStopTheOriginalButNotTheImprovedSearch) {
  // p(1) = p(2): one more processor gains nothing, so Sabin et al.'s search rolls back at once
  // and freezes the job; the improved rule jumps to 3 ((100 - 50) / 2 = 25 per processor), then
  // takes the fourth. Here the improved search also builds more schedules than the original.
  Timeline base(4);
  const Job job = Table({{1, 100}, {2, 100}, {3, 50}, {4, 40}});
  const std::vector<const Job*> jobs{&job};
  const IterativePlan original = PlanIterative(base, jobs, 0, IterativeRule::kNextWidth);
  EXPECT_EQ(original.allocations[0]->k, 1);
  EXPECT_EQ(original.steps, 1);
  EXPECT_EQ(original.accepted, 0);
  const IterativePlan improved = PlanIterative(base, jobs, 0, IterativeRule::kBestGainPerProcessor);
  EXPECT_EQ(improved.allocations[0]->k, 4);
  EXPECT_EQ(improved.steps, 2);
  EXPECT_EQ(improved.accepted, 2);
  EXPECT_EQ(improved.flow, FlowSum{40} * kS);
}

TEST(IterativeTest, BacksOffWhenWidthDelaysOthers) {
  // Two processors, one busy until 100: widening the job to 2 would delay it to 100, so the
  // search rolls back and it stays on 1.
  Timeline base(2);
  ASSERT_OK(base.Add(0, 100 * kS, 1));
  const Job a = IterativeAmdahlJob(40, 0, 2);
  const std::vector<const Job*> jobs{&a};
  const IterativePlan plan = PlanIterative(base, jobs, 0, IterativeRule::kNextWidth);
  EXPECT_EQ(plan.allocations[0]->k, 1);
  EXPECT_EQ(plan.allocations[0]->end, 40 * kS);
  EXPECT_EQ(plan.steps, 1);
  EXPECT_EQ(plan.accepted, 0);
}

TEST(IterativeTest, RandomQueuesNeverGetWorseThanOneProcessorEach) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    Timeline base(8);
    for (int h = 0; h < 3; ++h) {
      const Time start = static_cast<Time>(rng() % 100) * kS;
      (void)base.Add(start, start + (1 + static_cast<Time>(rng() % 50)) * kS,
                     1 + static_cast<int>(rng() % 4));
    }
    std::vector<Job> owned;
    for (int i = 0; i < 25; ++i) owned.push_back(testing::RandomJob(rng, 0, 8, 100));
    std::vector<const Job*> jobs;
    std::int64_t width_count = 0;
    for (const Job& job : owned) {
      jobs.push_back(&job);
      width_count += static_cast<std::int64_t>(job.model.Widths(8).size());
    }
    for (auto rule : {IterativeRule::kNextWidth, IterativeRule::kBestGainPerProcessor}) {
      const IterativePlan plan = PlanIterative(base, jobs, 0, rule);
      EXPECT_OK(ValidateSchedule(ToValidate(base, jobs, plan)))
          << ValidateSchedule(ToValidate(base, jobs, plan));
      EXPECT_LE(plan.flow, plan.initial_flow);
      EXPECT_EQ(plan.flow, FlowOf(jobs, plan));
      // The paper's rule bounds the search: one rejection per job, one acceptance per width.
      EXPECT_LE(plan.steps, width_count);
      EXPECT_EQ(Tuples(PlanIterative(base, jobs, 0, rule)), Tuples(plan));  // determinism
    }
  }
}

// On convex speedup functions the improved rule is the original one (§5.4). IterativeAmdahlJob
// times here are exact in microseconds, so rounding cannot break convexity.
TEST(IterativeTest, ImprovedEqualsOriginalOnConvexSpeedups) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    std::vector<Job> owned;
    for (int i = 0; i < 20; ++i) {
      owned.push_back(IterativeAmdahlJob(840 * (1 + static_cast<Duration>(rng() % 4)),
                                         (rng() % 4) / 4.0, 8, static_cast<Time>(rng() % 2000)));
    }
    std::vector<const Job*> jobs;
    for (const Job& job : owned) jobs.push_back(&job);
    Timeline base(8);
    const IterativePlan original = PlanIterative(base, jobs, 0, IterativeRule::kNextWidth);
    const IterativePlan improved =
        PlanIterative(base, jobs, 0, IterativeRule::kBestGainPerProcessor);
    EXPECT_EQ(Tuples(original), Tuples(improved));
    EXPECT_EQ(original.steps, improved.steps);
  }
}

TEST(IterativeTest, PolicyReplansTheQueueAtEachSubmission) {
  auto plan = MakePlanWith("iterative", 4, {});
  Submit(*plan, RigidJob(4, 10));  // busy until 10
  // Alone in the queue: every extra processor helps, [10, 20) on 4.
  const auto j2 = Submit(*plan, IterativeAmdahlJob(40, 0, 4));
  ExpectAllocation(*plan, j2, 4, 10, 20);
  EXPECT_FALSE(plan->FindJob(j2)->guaranteed);
  // Two in the queue: both end on 2 processors each (flows 30 + 30; 3 for either delays the
  // other), so j2 narrows from 4 to 2.
  const auto j3 = Submit(*plan, IterativeAmdahlJob(40, 0, 4));
  ExpectAllocation(*plan, j2, 2, 10, 30);
  ExpectAllocation(*plan, j3, 2, 10, 30);
  ASSERT_OK(plan->AdvanceTo(10 * kS));
  EXPECT_EQ(plan->FindJob(j2)->state, JobState::kRunning);
  EXPECT_EQ(plan->FindJob(j3)->state, JobState::kRunning);
}

TEST(IterativeTest, RandomRunsStayValid) {
  for (const char* policy : {"iterative", "iterative-improved"}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(std::string(policy) + " seed " + std::to_string(seed));
      auto plan = MakePlanWith(policy, 8, {});
      testing::RunRandomOps({plan.get()}, seed, {.steps = 200, .max_k = 8});
    }
  }
}

TEST(IterativeTest, CopiedPlanKeepsAValidSchedule) {
  auto plan = MakePlanWith("iterative-improved", 8, {});
  testing::RunRandomOps({plan.get()}, 11, {.steps = 100, .max_k = 8});
  auto copy = plan->Copy();
  testing::RunRandomOps({copy.get()}, 12, {.steps = 100, .max_k = 8});
}

}  // namespace
}  // namespace resched
