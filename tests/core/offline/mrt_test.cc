// MRT's dual approximation: hand-checked shelves and bounds, plans through the validator, and
// its lower bound never above the exhaustive optimum of tiny instances.
#include "core/offline/mrt.h"

#include <random>

#include "tests/core/offline/offline_testing.h"

namespace resched::testing {
namespace {

TEST(MrtTest, TwoJobsThatFitSideBySide) {
  const OfflineProblem problem = Problem(4, {JobOf("a", Rigid(2, 10)), JobOf("b", Rigid(2, 10))});
  auto plan = MakeMrtPlanner({.epsilon = 1e-3})->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_EQ(Makespan(*plan), 10 * kS);
  EXPECT_EQ(plan->makespan_lower_bound, 10 * kS);  // the area and the longest job
}

TEST(MrtTest, ARejectedGuessProvesMoreThanTheAreaBound) {
  // Two 3-wide jobs of 10 s on 4 processors run one after the other: 20 s. The area bound says
  // 15 s; every guess below 20 s leaves both jobs longer than half of it, so both would need
  // the first shelf (6 > 4 processors): rejected.
  const OfflineProblem problem = Problem(4, {JobOf("a", Rigid(3, 10)), JobOf("b", Rigid(3, 10))});
  absl::StatusOr<MrtShelves> shelves = MrtDualApproximation(problem.jobs, 4, 1e-3, {});
  ASSERT_OK(shelves);
  EXPECT_GE(shelves->lower_bound, 19'980'000);
  EXPECT_LE(shelves->lower_bound, 20 * kS);
  EXPECT_GE(shelves->d, 20 * kS);
  // Both jobs would go to shelf 2 (6 processors on 4): one moves to shelf 1, the other runs on
  // top at d, within 3d/2.
  auto plan = MakeMrtPlanner({.epsilon = 1e-3})->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_EQ(plan->allocations[0].start, 0);
  EXPECT_EQ(plan->allocations[1].start, shelves->d);
  EXPECT_LE(Makespan(*plan), shelves->d * 3 / 2);
}

TEST(MrtTest, ShortSequentialJobsAreSmallAndFillProcessors) {
  // Eight 1-processor jobs of 5 s and one linear job of 40 s of work on 4 processors: the
  // optimum is 20 s (80 s of work); the short jobs are small for any guess >= 10 s.
  std::vector<OfflineJob> jobs;
  for (int i = 0; i < 8; ++i) jobs.push_back(JobOf(absl::StrCat("s", i), Rigid(1, 5)));
  jobs.push_back(JobOf("big", Amdahl(40, 0)));
  const OfflineProblem problem = Problem(4, jobs);
  absl::StatusOr<MrtShelves> shelves = MrtDualApproximation(problem.jobs, 4, 1e-3, {});
  ASSERT_OK(shelves);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(shelves->shelf[i], MrtShelf::kSmall);
  EXPECT_EQ(shelves->lower_bound, 20 * kS);    // the area bound
  EXPECT_EQ(shelves->order.back() < 8, true);  // small jobs come last
  auto plan = MakeMrtPlanner({.epsilon = 1e-3})->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_LE(Makespan(*plan), shelves->d * 3 / 2);
}

TEST(MrtTest, PlansAroundReservationsAndFromNow) {
  OfflineProblem problem = Problem(4, {JobOf("a", Rigid(4, 10)), JobOf("b", Amdahl(20, 0.1))});
  problem.now = 100 * kS;
  const Allocation hold{2, 100 * kS, 130 * kS};
  ASSERT_OK(problem.free.Add(hold.start, hold.end, hold.k));
  auto plan = MakeMrtPlanner({.epsilon = 1e-3})->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan, {hold});
  EXPECT_GE(plan->allocations[0].start, 130 * kS);  // 4 processors are free from 130 s only
}

TEST(MrtTest, AJobWiderThanTheMachineIsNamed) {
  const OfflineProblem problem = Problem(4, {JobOf("wide", Rigid(8, 10))});
  auto plan = MakeMrtPlanner({.epsilon = 1e-3})->Plan(problem, {});
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(plan.status().message().find("wide"), std::string::npos);
}

TEST(MrtTest, StopsWhenAskedTo) {
  std::vector<OfflineJob> jobs;
  for (int i = 0; i < 50; ++i) jobs.push_back(JobOf(absl::StrCat(i), Amdahl(100 + i, 0.2)));
  PlanControl control;
  control.should_stop = [] { return true; };
  auto plan = MakeMrtPlanner({.epsilon = 1e-6})->Plan(Problem(16, jobs), control);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kCancelled);
}

TEST(MrtTest, TheLowerBoundIsNeverAboveTheOptimumOfTinyInstances) {
  std::mt19937_64 rng(7);
  for (int instance = 0; instance < 150; ++instance) {
    const int m = 2 + static_cast<int>(rng() % 3);
    std::vector<OfflineJob> jobs;
    const int n = 2 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
      const Duration t1 = 1 + static_cast<Duration>(rng() % 20);
      if (rng() % 2 == 0) {
        jobs.push_back(JobOf(absl::StrCat(i), Rigid(1 + static_cast<int>(rng() % m), t1)));
      } else {
        jobs.push_back(JobOf(absl::StrCat(i), Amdahl(t1, static_cast<double>(rng() % 11) / 10)));
      }
    }
    const OfflineProblem problem = Problem(m, jobs);
    SCOPED_TRACE(instance);
    auto plan = MakeMrtPlanner({.epsilon = 1e-3})->Plan(problem, {});
    ASSERT_OK(plan);
    ExpectValidPlan(problem, *plan);
    const Time optimum = ExhaustiveMakespan(problem);
    ASSERT_TRUE(plan->makespan_lower_bound.has_value());
    EXPECT_LE(*plan->makespan_lower_bound, optimum);
    EXPECT_GE(Makespan(*plan), optimum);
  }
}

}  // namespace
}  // namespace resched::testing
