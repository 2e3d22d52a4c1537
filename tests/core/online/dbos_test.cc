// DBOS(rho) and MoldableEDF (Saule et al. §6, Alg. 2): hand-checked widths, the search's result on
// idle machines, and random online runs (rho = 1.5 against rho = 1).
#include <gtest/gtest.h>

#include <random>

#include "core/online/stretch_search.h"
#include "core/registry/registry.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/stretch_test_util.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::AllocationOf;
using testing::ExpectAllocation;
using testing::HandQueue;
using testing::kS;
using testing::RigidJob;
using testing::Submit;

std::unique_ptr<ClusterPlan> MakeDbos(double rho, int processors) {
  ClusterSpec spec{"test", {{"", processors, 1.0}}, ClockKind::kSimulated, "dbos", {}};
  auto plan = ClusterPlan::Create(spec, {{"rho", rho}}, 0);
  EXPECT_OK(plan);
  return *std::move(plan);
}

Job DbosAmdahlJob(Duration t1_seconds, double alpha, int k_max = 0) {
  Job job;
  job.model = RuntimeModel(AmdahlModel{t1_seconds * kS, alpha, 1, k_max});
  return job;
}

// Alone on 4 processors a perfectly parallel 100 s job reaches stretch 0.25 on all 4. DBOS(1) keeps
// that; DBOS(1.5) relaxes S to 0.375 (deadline 37.5 s), met by 3 processors (33.3 s).
TEST(DbosTest, OnlineFactorRelaxesTheWidth) {
  auto tight = MakeDbos(1, 4);
  const auto a = Submit(*tight, DbosAmdahlJob(100, 0));
  ExpectAllocation(*tight, a, 4, 0, 25);
  auto relaxed = MakeDbos(1.5, 4);
  const auto b = Submit(*relaxed, DbosAmdahlJob(100, 0));
  const Allocation got = AllocationOf(*relaxed, b);
  EXPECT_EQ(got.k, 3);
  EXPECT_EQ(got.start, 0);
  EXPECT_EQ(got.end, 33'333'334);  // 100/3 s rounded up to the microsecond
}

// Behind a full machine, a 10 s sequential job sets S = 2 (it cannot end before 20). The moldable
// job's deadline is then 200 s: one processor meets it, so it takes one and leaves three free,
// although 4 would finish it by 35.
TEST(DbosTest, TakesTheSmallestWidthThatMeetsTheDeadline) {
  auto plan = MakeDbos(1, 4);
  Submit(*plan, RigidJob(4, 10));
  const auto moldable = Submit(*plan, DbosAmdahlJob(100, 0));
  ExpectAllocation(*plan, moldable, 4, 10, 35);  // alone: its best stretch, 0.35
  const auto small = Submit(*plan, RigidJob(1, 10));
  ExpectAllocation(*plan, small, 1, 10, 20);
  ExpectAllocation(*plan, moldable, 1, 10, 110);
  ASSERT_OK(plan->AdvanceTo(200 * kS));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(DbosTest, RegistryRange) {
  EXPECT_OK(MakePolicy("dbos", {{"rho", 1}}));
  EXPECT_OK(MakePolicy("dbos", {{"rho", 1.5}, {"epsilon", 1e-4}}));
  EXPECT_EQ(MakePolicy("dbos", {{"rho", 0.9}}).status().code(), absl::StatusCode::kInvalidArgument);
}

Job RandomMoldable(std::mt19937_64& rng, int processors) {
  Job job;
  const Duration t1 = (5 + static_cast<Duration>(rng() % 200)) * kS;
  if (rng() % 2 == 0) {
    job.model = RuntimeModel(AmdahlModel{t1, (rng() % 30) / 100.0, 1, 0});
  } else {
    job.model = RuntimeModel(DowneyModel{t1, 1.0 + static_cast<double>(rng() % processors),
                                         (rng() % 200) / 100.0, 1, 0});
  }
  return job;
}

// On idle machines: the plan meets the S found, and S·(1 - epsilon) is rejected.
TEST(DbosSearchTest, ResultIsMetAndATighterTargetIsRejected) {
  constexpr double kEpsilon = 1e-3;
  std::mt19937_64 rng(17);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    const int m = 2 + static_cast<int>(rng() % 7);
    const Time now = 100 * kS;
    HandQueue hand;
    const int n = 2 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) {
      hand.Add(RandomMoldable(rng, m).model, static_cast<Time>(rng() % 100) * kS);
    }
    Timeline idle(m);
    JobShapeCache shapes(/*all_widths=*/true);
    const StretchInstance instance = MakeStretchInstance(idle, now, hand.queue(), shapes);
    const StretchSearchResult result = SearchStretch(instance, &MoldableEdfSchedule, kEpsilon);
    ASSERT_OK(ValidateSchedule(testing::PlanToValidate(instance, result.plan)));
    EXPECT_DOUBLE_EQ(instance.MaxStretch(result.plan), result.stretch);
    EXPECT_GE(result.stretch, instance.LowerBound() * (1 - 1e-12));
    std::vector<Allocation> plan;
    EXPECT_FALSE(
        ScheduleForStretch(instance, &MoldableEdfSchedule, result.stretch * (1 - kEpsilon), plan));
  }
}

// The online factor leaves processors for later jobs: over random moldable workloads DBOS(1.5)
// spends no more CPU time than DBOS(1) on average. Every schedule is valid.
TEST(DbosTest, OnlineFactorSavesWorkOnAverage) {
  std::mt19937_64 rng(99);
  double work_1 = 0, work_15 = 0;
  for (int instance = 0; instance < 8; ++instance) {
    std::vector<Job> jobs;
    double t = 0;
    std::exponential_distribution<double> gap(1.0 / 12);
    for (int i = 0; i < 60; ++i) {
      t += gap(rng);
      Job job = RandomMoldable(rng, 16);
      job.release = static_cast<Time>(t * kS);
      jobs.push_back(job);
    }
    work_1 += testing::RunOnline("dbos", {{"rho", 1}}, 16, jobs).cpu_seconds;
    work_15 += testing::RunOnline("dbos", {{"rho", 1.5}}, 16, jobs).cpu_seconds;
  }
  EXPECT_LE(work_15, work_1);
}

// A dry run (Copy, then Submit on the copy) answers what the real submission then does: the plan
// depends on the cluster's state only, not on what the policy computed before.
TEST(DbosTest, DryRunOnACopyMatchesTheRealSubmission) {
  for (const char* policy : {"dbos", "dasedf"}) {
    SCOPED_TRACE(policy);
    std::mt19937_64 rng(4);
    auto plan = testing::MakePlan(policy, 16);
    for (int i = 0; i < 80; ++i) {
      ASSERT_OK(plan->AdvanceTo(plan->now() + static_cast<Time>(rng() % (8 * kS))));
      Job job = RandomMoldable(rng, 16);
      auto copy = plan->Copy();
      ASSERT_OK(copy->Submit(job));
      ASSERT_OK(plan->Submit(job));
      for (const JobRecord* a : plan->Jobs()) {
        const JobRecord* b = copy->FindJob(a->job.id);
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(a->allocation.k, b->allocation.k) << a->job.id;
        EXPECT_EQ(a->allocation.start, b->allocation.start) << a->job.id;
        EXPECT_EQ(a->allocation.end, b->allocation.end) << a->job.id;
      }
    }
    ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  }
}

}  // namespace
}  // namespace resched
