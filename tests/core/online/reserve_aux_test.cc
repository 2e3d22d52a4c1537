// The main/auxiliary reservation scheme (Saule §4): a hand-checked run, the degenerate
// settings that must equal FCFS, and random runs with every schedule validated.
#include <gtest/gtest.h>

#include <map>

#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/random_ops.h"

namespace resched {
namespace {

using testing::ExpectAllocation;
using testing::kS;
using testing::MakePlanWith;
using testing::RigidJob;
using testing::Submit;

TEST(ReserveAuxTest, HighStretchInTheMainPartTriesTheAuxiliaryPart) {
  // Main part: 3 processors, auxiliary part: 1; T = 2.
  auto plan = MakePlanWith("reserve-aux-fcfs", 4, {{"x", 1}, {"t", 2}});
  for (int i = 0; i < 3; ++i) Submit(*plan, RigidJob(1, 100));  // main, stretch 1
  // Main would start it at 100 (stretch 11): the auxiliary part starts it at once.
  const auto j4 = Submit(*plan, RigidJob(1, 10));
  ExpectAllocation(*plan, j4, 1, 0, 10);
  // Main: stretch 11; auxiliary: behind j4, stretch 2.
  const auto j5 = Submit(*plan, RigidJob(1, 10));
  ExpectAllocation(*plan, j5, 1, 10, 20);
  // Main: [100, 1100), stretch 1.1 < T: kept without looking at the auxiliary part.
  const auto j6 = Submit(*plan, RigidJob(1, 1000));
  ExpectAllocation(*plan, j6, 1, 100, 1100);
  // Main: [100, 110), stretch 11; auxiliary: FCFS behind j5, [20, 30), stretch 3.
  const auto j7 = Submit(*plan, RigidJob(1, 10));
  ExpectAllocation(*plan, j7, 1, 20, 30);
  // Main: [100, 200), stretch 2 = T; auxiliary: [30, 130), but j7's stretch 3 makes its
  // maximum 3: main wins.
  const auto j8 = Submit(*plan, RigidJob(1, 100));
  ExpectAllocation(*plan, j8, 1, 100, 200);
  // Main: [100, 110), stretch 11; auxiliary: [30, 40), maximum 4 (j9 itself).
  const auto j9 = Submit(*plan, RigidJob(1, 10));
  ExpectAllocation(*plan, j9, 1, 30, 40);
}

TEST(ReserveAuxTest, JobTooWideForTheMainPartUsesTheAuxiliaryOrTheWholeCluster) {
  auto plan = MakePlanWith("reserve-aux-fcfs", 4, {{"x", 2}, {"t", 1.2}});
  const auto j1 = Submit(*plan, RigidJob(2, 10));  // main, stretch 10 / p(1) = 0.5
  const auto j2 = Submit(*plan, RigidJob(3, 10));  // fits neither part of 2: whole cluster
  // Main: [20, 30) (j1, then only 1 processor beside j2), stretch 1.5 >= T; auxiliary: [0, 10).
  const auto j3 = Submit(*plan, RigidJob(2, 10));
  ExpectAllocation(*plan, j1, 2, 0, 10);
  ExpectAllocation(*plan, j2, 3, 10, 20);
  ExpectAllocation(*plan, j3, 2, 0, 10);
}

TEST(ReserveAuxTest, NoAuxiliaryProcessorsIsFcfs) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    auto aux = MakePlanWith("reserve-aux-fcfs", 6, {{"x", 0}, {"t", 1.2}});
    auto fcfs = MakePlanWith("fcfs", 6, {});
    testing::RunRandomOps({aux.get(), fcfs.get()}, seed, {.steps = 200, .max_k = 6},
                          [&](int) { ASSERT_EQ(testing::Outcome(*aux), testing::Outcome(*fcfs)); });
  }
}

// With a threshold never reached, every job stays in the main part: FCFS on P - X processors.
TEST(ReserveAuxTest, UnreachedThresholdIsFcfsOnTheMainPart) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    auto aux = MakePlanWith("reserve-aux-fcfs", 6, {{"x", 2}, {"t", 1e6}});
    auto fcfs = MakePlanWith("fcfs", 4, {});
    testing::RunRandomOps({aux.get(), fcfs.get()}, seed, {.steps = 200, .max_k = 4, .holds = false},
                          [&](int) { ASSERT_EQ(testing::Outcome(*aux), testing::Outcome(*fcfs)); });
  }
}

// Under load and a low threshold the auxiliary part takes jobs: more than P - X processors are
// busy at some instant, though no job is wider than the main part.
TEST(ReserveAuxTest, AuxiliaryPartTakesJobsUnderLoad) {
  auto plan = MakePlanWith("reserve-aux-fcfs", 8, {{"x", 2}, {"t", 1.2}});
  testing::RunRandomOps({plan.get()}, 5, {.steps = 200, .max_k = 4, .holds = false});
  std::map<Time, int> change;
  for (const ScheduledItem& item : plan->ToValidate().items) {
    change[item.allocation.start] += item.allocation.k;
    change[item.allocation.end] -= item.allocation.k;
  }
  int busy = 0, peak = 0;
  for (const auto& [t, delta] : change) peak = std::max(peak, busy += delta);
  EXPECT_GT(peak, 6);
}

// A copied plan (a dry run) goes on with a valid schedule; the copy keeps the parts.
TEST(ReserveAuxTest, CopiedPlanKeepsAValidSchedule) {
  auto plan = MakePlanWith("reserve-aux-fcfs", 8, {{"x", 3}, {"t", 1.5}});
  testing::RunRandomOps({plan.get()}, 11, {.steps = 100});
  auto copy = plan->Copy();
  testing::RunRandomOps({copy.get()}, 12, {.steps = 100});
}

TEST(ReserveAuxTest, RandomRunsStayValid) {
  for (const char* policy : {"reserve-aux-fcfs", "reserve-aux-dasedf"}) {
    for (double x : {1.0, 3.0, 7.0}) {
      for (double t : {1.2, 2.0, 10.0}) {
        SCOPED_TRACE(std::string(policy) + " x=" + std::to_string(x) + " t=" + std::to_string(t));
        auto plan = MakePlanWith(policy, 8, {{"x", x}, {"t", t}});
        if (plan == nullptr) continue;  // inner policy not built
        testing::RunRandomOps({plan.get()}, static_cast<std::uint64_t>(x * 10 + t), {.steps = 150});
      }
    }
  }
}

// On two speeds each group has a main and an auxiliary part of its own; the scheme chooses a
// part in each group and the job goes to the group whose choice ends it earliest.
TEST(ReserveAuxTest, OnTwoSpeedsEachGroupHasItsOwnAuxiliaryPart) {
  // Slow group: main 3, auxiliary 1; fast group (twice as fast): main 1, auxiliary 1.
  const std::vector<ProcessorGroup> groups = {{"slow", 4, 1.0}, {"fast", 2, 2.0}};
  auto plan = testing::MakePlanOn("reserve-aux-fcfs", groups, {{"x", 1}, {"t", 1.5}});
  const auto j1 = Submit(*plan, RigidJob(1, 10));  // fast main, 5 s: ends first
  ExpectAllocation(*plan, j1, 1, 0, 5);
  // Fast main would end it at 10 (stretch 2 >= T): the fast auxiliary part ends it at 5.
  const auto j2 = Submit(*plan, RigidJob(1, 10));
  ExpectAllocation(*plan, j2, 1, 0, 5);
  // Fast: both parts end it at 10 (stretch 2); slow main too (stretch 1): the slower group.
  const auto j3 = Submit(*plan, RigidJob(1, 10));
  ExpectAllocation(*plan, j3, 1, 0, 10);
  EXPECT_EQ(plan->FindJob(j1)->group, 1);
  EXPECT_EQ(plan->FindJob(j2)->group, 1);
  EXPECT_EQ(plan->FindJob(j3)->group, 0);
}

// Without auxiliary processors, the scheme over FCFS is FCFS run in each group.
TEST(ReserveAuxTest, OnTwoSpeedsNoAuxiliaryProcessorsIsFcfsInEachGroup) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE(seed);
    const std::vector<ProcessorGroup> groups = {{"slow", 8, 1.0}, {"fast", 4, 2.0}};
    auto scheme = testing::MakePlanOn("reserve-aux-fcfs", groups, {{"x", 0}, {"t", 1.2}});
    auto fcfs = testing::MakePlanOn("fcfs", groups);
    testing::RunRandomOps({scheme.get(), fcfs.get()}, seed, {.steps = 250, .max_k = 8}, [&](int) {
      ASSERT_EQ(testing::Outcome(*scheme), testing::Outcome(*fcfs));
    });
  }
}

TEST(ReserveAuxTest, OnTwoSpeedsRandomRunsStayValid) {
  const std::vector<ProcessorGroup> groups = {{"slow", 8, 1.0}, {"fast", 5, 2.5}};
  for (const char* policy : {"reserve-aux-fcfs", "reserve-aux-dasedf"}) {
    for (double x : {1.0, 3.0}) {
      SCOPED_TRACE(std::string(policy) + " x=" + std::to_string(x));
      auto plan = testing::MakePlanOn(policy, groups, {{"x", x}, {"t", 1.5}});
      testing::RunRandomOps({plan.get()}, static_cast<std::uint64_t>(x), {.steps = 150});
      auto copy = plan->Copy();  // a dry run's copy keeps each job's part
      testing::RunRandomOps({copy.get()}, 7, {.steps = 50});
    }
  }
}

}  // namespace
}  // namespace resched
