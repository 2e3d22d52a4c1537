// chrétien's successive sparse LP (Algorithm 1) and its hybrid (§4.4): the optimum of small
// instances where LTF misses it, never worse than LTF for the hybrid, fixed bookings and
// releases respected on a coarse time step, and a stop request honored.
#include <chrono>
#include <random>

#include "core/offline/planners.h"
#include "core/registry/registry.h"
#include "tests/core/offline/offline_testing.h"

namespace resched::testing {
namespace {

Time LtfMakespan(const OfflineProblem& problem) {
  auto plan = MakeLtfPlanner()->Plan(problem, {});
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? Makespan(*plan) : 0;
}

// Four rigid jobs on 5 processors. LTF (by work) starts d (3 x 4 s) and b (2 x 3 s) at 0, c
// (5 x 2 s) at 4, and a (1 x 2 s) finds no hole before c's end: 8 s. The optimum runs c first,
// then d, b and a beside it: 7 s.
OfflineProblem LtfMissesTheOptimum() {
  return Problem(5, {JobOf("a", Rigid(1, 2)), JobOf("b", Rigid(2, 3)), JobOf("c", Rigid(5, 2)),
                     JobOf("d", Rigid(3, 4))});
}

TEST(SparseLpTest, BothVersionsFindTheOptimumWhereLtfDoesNot) {
  const OfflineProblem problem = LtfMissesTheOptimum();
  const Time optimum = ExhaustiveMakespan(problem);
  ASSERT_LT(optimum, LtfMakespan(problem));
  for (const bool hybrid : {false, true}) {
    SCOPED_TRACE(hybrid ? "hybrid" : "pure");
    auto plan =
        MakeSparseLpPlanner({.p = 0.1, .max_iterations = 200, .time_steps = 100, .hybrid = hybrid})
            ->Plan(problem, {});
    ASSERT_OK(plan);
    ExpectValidPlan(problem, *plan);
    EXPECT_EQ(Makespan(*plan), optimum);
    ASSERT_TRUE(plan->makespan_lower_bound.has_value());
    EXPECT_LE(*plan->makespan_lower_bound, optimum);
    // LTF is above the bound, so LPs were solved; the optimum came from one whose solution
    // placed jobs exactly.
    EXPECT_GE(plan->statistics.at(kSparseLpSolves), 1);
    EXPECT_GT(plan->statistics.at(kSparseLpExactJobShare), 0);
    EXPECT_LE(plan->statistics.at(kSparseLpExactJobShare), 1);
  }
}

TEST(SparseLpTest, NoLpIsSolvedWhenLtfMeetsTheBound) {
  // Two jobs side by side fill the machine for their common length: LTF is optimal at once.
  const OfflineProblem problem = Problem(4, {JobOf("a", Rigid(2, 3)), JobOf("b", Rigid(2, 3))});
  auto plan =
      MakeSparseLpPlanner({.p = 0.1, .max_iterations = 200, .time_steps = 100, .hybrid = false})
          ->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_EQ(Makespan(*plan), 3 * kS);
  EXPECT_EQ(plan->statistics.at(kSparseLpSolves), 0);
  EXPECT_FALSE(plan->statistics.contains(kSparseLpExactJobShare));
}

TEST(SparseLpTest, RandomSmallInstancesLieBetweenTheOptimumAndLtf) {
  std::mt19937_64 rng(7);
  for (int instance = 0; instance < 30; ++instance) {
    const int m = 2 + static_cast<int>(rng() % 4);
    std::vector<OfflineJob> jobs;
    const int n = 2 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
      const int req = 1 + static_cast<int>(rng() % m);
      const Duration time = (1 + static_cast<Duration>(rng() % 6)) * kS;
      jobs.push_back(JobOf(absl::StrCat("j", i),
                           rng() % 2 ? Rigid(req, time / kS) : RuntimeModel(CeilModel{req, time})));
    }
    const OfflineProblem problem = Problem(m, jobs);
    const Time optimum = ExhaustiveMakespan(problem);
    const Time ltf = LtfMakespan(problem);
    SCOPED_TRACE(absl::StrCat("instance ", instance));
    auto plan =
        MakeSparseLpPlanner({.p = 0.1, .max_iterations = 50, .time_steps = 100, .hybrid = true})
            ->Plan(problem, {});
    ASSERT_OK(plan);
    ExpectValidPlan(problem, *plan);
    EXPECT_GE(Makespan(*plan), optimum);
    EXPECT_LE(Makespan(*plan), ltf);
  }
}

TEST(SparseLpTest, CoarseStepsKeepBookingsReleasesAndTheFreeProfile) {
  // Run times of no common unit and more steps than allowed: the step is coarse, and the plan
  // must still fit around a reservation and a running job and after a release.
  std::mt19937_64 rng(11);
  for (int instance = 0; instance < 6; ++instance) {
    OfflineProblem problem = Problem(16, {});
    problem.now = 1000 * kS + 17;
    const std::vector<Allocation> holds = {
        {6, 0, problem.now + 300 * kS}, {10, problem.now + 500 * kS + 3, problem.now + 900 * kS}};
    for (const Allocation& hold : holds) ASSERT_OK(problem.free.Add(hold.start, hold.end, hold.k));
    for (int i = 0; i < 12; ++i) {
      const Duration time = 1 + static_cast<Duration>(rng() % (400 * kS));
      const int req = 1 + static_cast<int>(rng() % 8);
      problem.jobs.push_back(JobOf(absl::StrCat("j", i), RuntimeModel(CeilModel{req, time})));
    }
    problem.jobs[3].release = problem.now + 777 * kS + 1;
    for (const bool hybrid : {false, true}) {
      SCOPED_TRACE(absl::StrCat(hybrid ? "hybrid" : "pure", " instance ", instance));
      auto plan =
          MakeSparseLpPlanner({.p = 0.1, .max_iterations = 30, .time_steps = 20, .hybrid = hybrid})
              ->Plan(problem, {});
      ASSERT_OK(plan);
      ExpectValidPlan(problem, *plan, holds);
      for (const Allocation& a : plan->allocations) EXPECT_GE(a.start, problem.now);
      EXPECT_GE(plan->allocations[3].start, problem.jobs[3].release);
      if (hybrid) {
        EXPECT_LE(Makespan(*plan), LtfMakespan(problem));
      }
    }
  }
}

TEST(SparseLpTest, AStopRequestCancelsThePlanning) {
  const OfflineProblem problem = LtfMissesTheOptimum();
  PlanControl stop;
  stop.should_stop = [] { return true; };
  auto plan =
      MakeSparseLpPlanner({.p = 0.1, .max_iterations = 200, .time_steps = 100, .hybrid = false})
          ->Plan(problem, stop);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kCancelled);
}

// 30 Amdahl jobs on 200 processors: at LTF's makespan cut into 100 steps, each job has about 200
// faster widths, some 600,000 slots in all, above what one LP takes.
OfflineProblem WideAmdahlQueue() {
  std::mt19937_64 rng(30);
  std::vector<OfflineJob> jobs;
  for (int i = 0; i < 30; ++i) {
    jobs.push_back(JobOf(absl::StrCat("a", i), Amdahl(600 + static_cast<Duration>(rng() % 3000),
                                                      static_cast<double>(rng() % 20) / 1000)));
  }
  return Problem(200, std::move(jobs));
}

TEST(SparseLpTest, ALargeQueueGetsACoarserStepInsteadOfARefusal) {
  const OfflineProblem problem = WideAmdahlQueue();
  for (const bool hybrid : {false, true}) {
    SCOPED_TRACE(hybrid ? "hybrid" : "pure");
    SparseLpOptions options{.p = 0.1, .max_iterations = 3, .time_steps = 100, .hybrid = hybrid};
    options.time_limit_s = 1;  // what is checked here is the step, not what the LPs find
    auto plan = MakeSparseLpPlanner(options)->Plan(problem, {});
    ASSERT_OK(plan);
    ExpectValidPlan(problem, *plan);
    // LTF's makespan in at most 100 steps; only the widths that save a whole step are columns,
    // which brings the LP under its budget without a coarser step here.
    const double step = plan->statistics.at(kSparseLpStep);
    EXPECT_GE(step * 100, static_cast<double>(LtfMakespan(problem)) / kMicrosPerSecond);
    EXPECT_GT(plan->statistics.at(kSparseLpSolves), 0);
    if (hybrid) {
      EXPECT_LE(Makespan(*plan), LtfMakespan(problem));
    }
  }
}

TEST(SparseLpTest, AQueueTooLargeForTheStepGetsACoarserOne) {
  // 1,000 linear jobs on 200 processors: even the widths that save a step make over a million
  // slots at 100 steps.
  std::mt19937_64 rng(300);
  std::vector<OfflineJob> jobs;
  for (int i = 0; i < 1000; ++i) {
    jobs.push_back(
        JobOf(absl::StrCat("a", i), Amdahl(600 + static_cast<Duration>(rng() % 3000), 0)));
  }
  const OfflineProblem problem = Problem(200, std::move(jobs));
  SparseLpOptions options{.p = 0.1, .max_iterations = 2, .time_steps = 100, .hybrid = true};
  options.time_limit_s = 1;
  auto plan = MakeSparseLpPlanner(options)->Plan(problem, {});
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  const double step = plan->statistics.at(kSparseLpStep);
  EXPECT_GE(step * 50, static_cast<double>(LtfMakespan(problem)) / kMicrosPerSecond);
  EXPECT_LE(Makespan(*plan), LtfMakespan(problem));
}

TEST(SparseLpTest, TheTimeLimitEndsTheSearchWithTheBestScheduleFound) {
  const OfflineProblem problem = WideAmdahlQueue();
  SparseLpOptions options{.p = 0.1, .max_iterations = 200, .time_steps = 100, .hybrid = true};
  options.time_limit_s = 0.05;
  const auto started = std::chrono::steady_clock::now();
  auto plan = MakeSparseLpPlanner(options)->Plan(problem, {});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_OK(plan);
  ExpectValidPlan(problem, *plan);
  EXPECT_EQ(plan->statistics.at(kSparseLpOutOfTime), 1);
  EXPECT_LE(Makespan(*plan), LtfMakespan(problem));  // the best found: LTF's at worst
  // Building the LP and LTF come on top of the limit; the default 200 iterations take minutes.
  EXPECT_LT(seconds, 30) << "the time limit did not stop the LPs";
}

TEST(SparseLpTest, TheRegistryBuildsBothWithTheirParameters) {
  for (const char* name : {"sparse-lp", "sparse-lp-hybrid"}) {
    SCOPED_TRACE(name);
    EXPECT_OK(MakeOfflinePlanner(
        name, {{"p", 0.5}, {"max_iterations", 10}, {"time_steps", 8}, {"time_limit_s", 2.5}}));
    EXPECT_EQ(MakeOfflinePlanner(name, {{"p", 1.0}}).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace resched::testing
