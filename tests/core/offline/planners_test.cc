// Every offline planner of the registry: hand-checked orders of the baselines, and randomized
// problems with reservations and running jobs on the timeline whose plans all pass the
// validator, start at now or later and keep the lower bounds below the plans.
#include "core/offline/planners.h"

#include <gmock/gmock.h>

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

// `name`'s plan of `problem`, the planner built by the registry with QuickParams.
absl::StatusOr<OfflinePlan> PlanBy(const std::string& name, const OfflineProblem& problem) {
  absl::StatusOr<std::unique_ptr<OfflinePlanner>> planner =
      MakeOfflinePlanner(name, QuickParams(name));
  if (!planner.ok()) return planner.status();
  return (*planner)->Plan(problem, {});
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
    auto plan = PlanBy(name, problem);
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
      auto plan = PlanBy(name, problem);
      ASSERT_OK(plan);
      ExpectValidPlan(problem, *plan, holds);
      for (const Allocation& a : plan->allocations) EXPECT_GE(a.start, problem.now);
      if (plan->makespan_lower_bound) {
        EXPECT_LE(problem.now + *plan->makespan_lower_bound, Makespan(*plan));
      }
    }
  }
}

// Any model the API accepts, monotonic or not: tables and power-of-two steps with times drawn
// independently (often superlinear, sometimes slower when wider), ceil and communication models
// whose time rises and falls with the width.
RuntimeModel RandomModel(std::mt19937_64& rng, int m, std::uint64_t kind) {
  const Duration t = (1 + static_cast<Duration>(rng() % 3600)) * kS;
  switch (kind % 9) {
    case 0:
      return Rigid(1 + static_cast<int>(rng() % m), t / kS);
    case 1:
      return RuntimeModel(AmdahlModel{t, static_cast<double>(rng() % 101) / 100,
                                      1 + static_cast<int>(rng() % 3), 0});
    case 2:
      return RuntimeModel(DowneyModel{t, 1 + static_cast<double>(rng() % 60),
                                      static_cast<double>(rng() % 3), 1, 0});
    case 3:
    case 6: {
      // Times drawn independently, or superlinear (t(k) = t / k^2 from the narrowest width).
      TableModel table;
      const bool superlinear = kind >= 9 || rng() % 2 == 0;
      const int narrowest = 1 + static_cast<int>(rng() % 3);
      for (int k = narrowest; k <= m && table.entries.size() < 5;
           k += 1 + static_cast<int>(rng() % 8)) {
        const Duration time = superlinear ? t * narrowest * narrowest / (k * k)
                                          : (1 + static_cast<Duration>(rng() % 3600)) * kS;
        table.entries.push_back({k, time});
      }
      if (table.entries.empty()) table.entries.push_back({1, t});
      return RuntimeModel(table);
    }
    case 4:
    case 7: {
      PowerOfTwoModel steps;
      for (int i = 0; i < 1 + static_cast<int>(rng() % 6); ++i) {
        steps.times.push_back((1 + static_cast<Duration>(rng() % 3600)) * kS);
      }
      return RuntimeModel(steps);
    }
    case 5:
      return RuntimeModel(CeilModel{1 + static_cast<int>(rng() % (2 * m)), t});
    default:
      return RuntimeModel(CommunicationModel{
          static_cast<double>(1 + rng() % 1000) * 1e9, static_cast<double>(rng() % 4000),
          static_cast<double>(rng() % 100) / 1000, 1e7, 1e9, 1, 0});
  }
}

TEST(OfflinePlannersTest, SuperlinearJobsAroundAHoldArePlannedByEveryPlanner) {
  // Four times faster on 4 than on 2: MRT's least-width allotment gave each job 8 s x processor
  // where 4 suffice, and rejected even the jobs run one after another.
  OfflineProblem problem = Problem(4, {});
  ASSERT_OK(problem.free.Add(0, 1 * kS, 4).status());
  for (int i = 0; i < 8; ++i) {
    problem.jobs.push_back(
        JobOf(absl::StrCat("j", i), RuntimeModel(TableModel{{{2, 4 * kS}, {4, 1 * kS}}})));
  }
  for (const std::string& name : OfflinePlannerNames()) {
    SCOPED_TRACE(name);
    auto plan = PlanBy(name, problem);
    ASSERT_OK(plan);
    ExpectValidPlan(problem, *plan, {{4, 0, 1 * kS}});
    if (plan->makespan_lower_bound) {
      EXPECT_LE(*plan->makespan_lower_bound, Makespan(*plan));
    }
  }
  // MRT's allotment is now each job's least work, 4 processors for 1 s: listed, one after
  // another after the hold.
  auto list = MakeOfflinePlanner("list-mrt", {});
  ASSERT_OK(list);
  auto plan = (*list)->Plan(problem, {});
  ASSERT_OK(plan);
  EXPECT_EQ(Makespan(*plan), 9 * kS);
}

TEST(OfflinePlannersTest, EveryPlannerPlansEveryModelOrNamesTheJob) {
  std::mt19937_64 rng(41);
  const std::vector<std::string> names = OfflinePlannerNames();
  int plans = 0;
  for (int instance = 0; instance < 60; ++instance) {
    const int m = 2 + static_cast<int>(rng() % 40);
    OfflineProblem problem = Problem(m, {});
    std::vector<Allocation> holds;
    for (int h = 0; h < 3; ++h) {
      const Time start = static_cast<Time>(rng() % 2000) * kS;
      const Allocation hold{1 + static_cast<int>(rng() % m), start,
                            start + (1 + static_cast<Time>(rng() % 1000)) * kS};
      if (problem.free.Add(hold.start, hold.end, hold.k).ok()) holds.push_back(hold);
    }
    const int n = 1 + static_cast<int>(rng() % 25);
    // One instance in three has superlinear tables only: mixed with other jobs they rarely
    // decide whether a guess of the makespan is met.
    const bool superlinear_only = instance % 3 == 0;
    for (int i = 0; i < n; ++i) {
      RuntimeModel model = RandomModel(rng, m, superlinear_only ? 12 : rng());
      ASSERT_OK(model.Validate());
      if (model.Widths(m).empty()) continue;  // the API refuses a job that fits no width
      problem.jobs.push_back(JobOf(absl::StrCat("j", i), std::move(model), 1 + rng() % 5));
    }
    for (const std::string& name : names) {
      SCOPED_TRACE(absl::StrCat(name, " instance ", instance));
      auto plan = PlanBy(name, problem);
      if (!plan.ok()) {
        EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument) << plan.status();
        EXPECT_THAT(plan.status().message(), ::testing::HasSubstr("job '"));
        continue;
      }
      ExpectValidPlan(problem, *plan, holds);
      if (plan->makespan_lower_bound) {
        EXPECT_LE(*plan->makespan_lower_bound, Makespan(*plan));
      }
      ++plans;
    }
  }
  EXPECT_EQ(plans, 60 * static_cast<int>(names.size()));  // none refused
}

}  // namespace
}  // namespace resched::testing
