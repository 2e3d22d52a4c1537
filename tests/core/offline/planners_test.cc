// Every offline planner of the registry: hand-checked orders of the baselines, and randomized
// problems with reservations and running jobs on the timeline whose plans all pass the
// validator, start at now or later and keep the lower bounds below the plans.
#include "core/offline/planners.h"

#include <random>

#include "core/registry/registry.h"
#include "tests/core/offline/offline_testing.h"

namespace resched::testing {
namespace {

std::vector<std::string> OfflinePlannerNames() {
  std::vector<std::string> names;
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind == AlgorithmKind::kPlanner) names.push_back(info.name);
  }
  return names;
}

// The sparse LPs' iterations shortened, so that forty instances of up to 40 jobs stay quick
// (sparse_lp_test.cc checks what the iterations find).
AlgorithmParams QuickParams(const std::string& name) {
  if (name.starts_with("sparse-lp")) return {{"max_iterations", 3}, {"time_steps", 12}};
  return {};
}

TEST(OfflinePlannersTest, GangRunsEachJobOnTheWholeMachineBySmithsRatio) {
  // Linear jobs: on 4 processors a takes 10 s, b 5 s; b's weight over time is higher.
  const OfflineProblem problem =
      Problem(4, {JobOf("a", Amdahl(40, 0), 1), JobOf("b", Amdahl(20, 0), 1)});
  auto plan = MakeGangPlanner()->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_EQ(plan->allocations[1], (Allocation{4, 0, 5 * kS}));
  EXPECT_EQ(plan->allocations[0], (Allocation{4, 5 * kS, 15 * kS}));
}

TEST(OfflinePlannersTest, SequentialLptfPutsTheLongestFirstOnOneProcessor) {
  const OfflineProblem problem = Problem(
      2, {JobOf("a", Amdahl(3, 0.5)), JobOf("b", Amdahl(9, 0.5)), JobOf("c", Amdahl(5, 0.5))});
  auto plan = MakeSequentialLptfPlanner()->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_EQ(plan->allocations[1], (Allocation{1, 0, 9 * kS}));       // b, the longest
  EXPECT_EQ(plan->allocations[2], (Allocation{1, 0, 5 * kS}));       // c on the other one
  EXPECT_EQ(plan->allocations[0], (Allocation{1, 5 * kS, 8 * kS}));  // a after c
}

TEST(OfflinePlannersTest, SmallestAreaFirstStartsTheSmallJobsFirst) {
  // Rigid jobs keep their widths; on 2 processors the two 1-wide jobs go first, side by side.
  const OfflineProblem problem =
      Problem(2, {JobOf("big", Rigid(2, 10)), JobOf("s1", Rigid(1, 2)), JobOf("s2", Rigid(1, 3))});
  auto plan = MakeListPlanner(ListOrder::kSaf, {.epsilon = 1e-3})->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_EQ(plan->allocations[1].start, 0);
  EXPECT_EQ(plan->allocations[2].start, 0);
  EXPECT_EQ(plan->allocations[0].start, 3 * kS);
  ASSERT_TRUE(plan->makespan_lower_bound.has_value());
  EXPECT_EQ(*plan->makespan_lower_bound, 12'500'000);  // the area: 25 s of work on 2
}

TEST(OfflinePlannersTest, WeightOverTimeOrdersTheList) {
  const OfflineProblem problem =
      Problem(1, {JobOf("light", Rigid(1, 10), 1), JobOf("heavy", Rigid(1, 10), 5)});
  auto plan = MakeListPlanner(ListOrder::kWlptf, {.epsilon = 1e-3})->Plan(problem, {});
  ASSERT_OK(plan);
  EXPECT_EQ(plan->allocations[1].start, 0);
  EXPECT_EQ(plan->allocations[0].start, 10 * kS);
}

TEST(OfflinePlannersTest, BicriteriaPutsHeavyShortJobsInTheFirstBatches) {
  // One long job and four short heavy ones on 4 processors: the short ones fit the first
  // batches and start at once; the long one waits for a later, longer batch.
  std::vector<OfflineJob> jobs = {JobOf("long", Rigid(4, 100), 1)};
  for (int i = 0; i < 4; ++i) jobs.push_back(JobOf(absl::StrCat("s", i), Rigid(1, 10), 10));
  const OfflineProblem problem = Problem(4, jobs);
  auto plan = MakeBicriteriaPlanner({.epsilon = 1e-3, .shuffles = 0, .seed = 1})->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  for (int i = 1; i <= 4; ++i) EXPECT_EQ(plan->allocations[i].start, 0) << i;
  EXPECT_EQ(plan->allocations[0].start, 10 * kS);
  ASSERT_TRUE(plan->makespan_lower_bound.has_value());
  EXPECT_EQ(*plan->makespan_lower_bound, 110 * kS);  // the area: 440 s of work on 4
}

TEST(OfflinePlannersTest, BicriteriaPlacesManyWideJobsOneBatchEach) {
  // Each batch holds one job of the whole machine: 100 batches, more than the doublings a batch
  // length can take (the length stops growing once every job fits; UBSan checks the overflow).
  std::vector<OfflineJob> jobs;
  for (int i = 0; i < 100; ++i) jobs.push_back(JobOf(absl::StrCat("w", i), Rigid(16, 60)));
  const OfflineProblem problem = Problem(16, jobs);
  auto plan = MakeBicriteriaPlanner({.epsilon = 1e-3, .shuffles = 2, .seed = 1})->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_EQ(Makespan(*plan), 100 * 60 * kS);
}

TEST(OfflinePlannersTest, BicriteriaShufflesAreReproducibleAndNeverWorse) {
  std::mt19937_64 rng(5);
  std::vector<OfflineJob> jobs;
  for (int i = 0; i < 60; ++i) {
    jobs.push_back(JobOf(absl::StrCat(i), Amdahl(1 + static_cast<Duration>(rng() % 900), 0.3),
                         1 + static_cast<double>(rng() % 10)));
  }
  const OfflineProblem problem = Problem(32, jobs);
  auto weighted = [&](const OfflinePlan& plan) {
    double sum = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      sum += jobs[i].weight * static_cast<double>(plan.allocations[i].end);
    }
    return sum;
  };
  auto plain =
      MakeBicriteriaPlanner({.epsilon = 1e-3, .shuffles = 0, .seed = 1})->Plan(problem, {});
  auto shuffled =
      MakeBicriteriaPlanner({.epsilon = 1e-3, .shuffles = 20, .seed = 1})->Plan(problem, {});
  auto again =
      MakeBicriteriaPlanner({.epsilon = 1e-3, .shuffles = 20, .seed = 1})->Plan(problem, {});
  ASSERT_OK(plain);
  ASSERT_OK(shuffled);
  ASSERT_OK(again);
  ExpectValidPlan(problem, *shuffled);
  EXPECT_LE(weighted(*shuffled), weighted(*plain));
  EXPECT_EQ(shuffled->allocations, again->allocations);
}

TEST(OfflinePlannersTest, LtfListsTheLargestWorkFirst) {
  // Works: a 20, c 15, b 12 processor-seconds on 4 processors. a and c start at once side by
  // side; b needs the whole machine and waits for c.
  const OfflineProblem problem =
      Problem(4, {JobOf("a", Rigid(2, 10)), JobOf("b", Rigid(4, 3)), JobOf("c", Rigid(1, 15))});
  auto plan = MakeLtfPlanner()->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_EQ(plan->allocations[0], (Allocation{2, 0, 10 * kS}));
  EXPECT_EQ(plan->allocations[2], (Allocation{1, 0, 15 * kS}));
  EXPECT_EQ(plan->allocations[1], (Allocation{4, 15 * kS, 18 * kS}));
}

TEST(OfflinePlannersTest, LtfGivesAMoldableJobTheWidthThatEndsFirst) {
  // Chrétien's ceil model, t(n) = ceil(req / n) x time. x (work 40) first, on all 4: [0, 10).
  // y (work 20) then ends first on 2 processors: [10, 20) (on 1 it would end at 30).
  const OfflineProblem problem = Problem(4, {JobOf("y", RuntimeModel(CeilModel{2, 10 * kS})),
                                             JobOf("x", RuntimeModel(CeilModel{4, 10 * kS}))});
  auto plan = MakeLtfPlanner()->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_EQ(plan->allocations[1], (Allocation{4, 0, 10 * kS}));
  EXPECT_EQ(plan->allocations[0], (Allocation{2, 10 * kS, 20 * kS}));
}

TEST(OfflinePlannersTest, NoPlannerStartsAJobBeforeItsRelease) {
  OfflineProblem problem = Problem(4, {JobOf("early", Rigid(1, 10)), JobOf("late", Rigid(1, 10))});
  problem.jobs[1].release = 50 * kS;
  for (const std::string& name : OfflinePlannerNames()) {
    SCOPED_TRACE(name);
    auto planner = MakeOfflinePlanner(name, QuickParams(name));
    ASSERT_OK(planner);
    auto plan = (*planner)->Plan(problem, {});
    ASSERT_OK(plan);
    ExpectValidPlan(problem, *plan);
    EXPECT_GE(plan->allocations[1].start, 50 * kS);
  }
}

TEST(OfflinePlannersTest, EveryPlannerIsBuiltByTheRegistry) {
  for (const char* name : {"mrt", "bicriteria", "gang", "seq-lptf", "list-mrt", "list-wlptf",
                           "list-saf", "ltf", "sparse-lp", "sparse-lp-hybrid"}) {
    SCOPED_TRACE(name);
    EXPECT_OK(MakeOfflinePlanner(name, {}));
  }
  EXPECT_EQ(MakeOfflinePlanner("fcfs", {}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(OfflinePlannersTest, RandomProblemsAroundFixedBookingsGiveValidPlans) {
  std::mt19937_64 rng(2026);
  const std::vector<std::string> names = OfflinePlannerNames();
  ASSERT_GE(names.size(), 10u);
  for (int instance = 0; instance < 40; ++instance) {
    const int m = 4 + static_cast<int>(rng() % 60);
    OfflineProblem problem = Problem(m, {});
    problem.now = static_cast<Time>(rng() % 1000) * kS;
    // Running jobs (from before now) and reservations (ahead) on the timeline.
    std::vector<Allocation> holds;
    for (int h = 0; h < 6; ++h) {
      const int k = 1 + static_cast<int>(rng() % m);
      const Time start =
          problem.now + static_cast<Time>(rng() % 3000) * kS - (h < 2 ? 500 * kS : 0);
      const Allocation hold{k, start, start + (1 + static_cast<Time>(rng() % 2000)) * kS};
      if (problem.free.Add(hold.start, hold.end, hold.k).ok()) holds.push_back(hold);
    }
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const Duration t = 1 + static_cast<Duration>(rng() % 3600);
      const double weight = 1 + static_cast<double>(rng() % 10);
      switch (rng() % 3) {
        case 0:
          problem.jobs.push_back(
              JobOf(absl::StrCat("r", i), Rigid(1 + static_cast<int>(rng() % m), t), weight));
          break;
        case 1:
          problem.jobs.push_back(JobOf(absl::StrCat("a", i),
                                       Amdahl(t, static_cast<double>(rng() % 101) / 100), weight));
          break;
        default:
          problem.jobs.push_back(JobOf(
              absl::StrCat("d", i),
              RuntimeModel(DowneyModel{t * kS, 1 + static_cast<double>(rng() % 60), 1.0, 1, 0}),
              weight));
      }
    }
    for (const std::string& name : names) {
      SCOPED_TRACE(absl::StrCat(name, " instance ", instance));
      auto planner = MakeOfflinePlanner(name, QuickParams(name));
      ASSERT_OK(planner);
      auto plan = (*planner)->Plan(problem, {});
      ASSERT_OK(plan);
      ExpectValidPlan(problem, *plan, holds);
      for (const Allocation& a : plan->allocations) EXPECT_GE(a.start, problem.now);
      if (plan->makespan_lower_bound) {
        EXPECT_LE(problem.now + *plan->makespan_lower_bound, Makespan(*plan));
      }
    }
  }
}

}  // namespace
}  // namespace resched::testing
