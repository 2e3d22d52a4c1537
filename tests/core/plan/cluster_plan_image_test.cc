// ClusterPlan::Image and FromImage, what a snapshot saves and a restart restores: the restored
// plan holds the same jobs, holds, DAG reservations and reservation ids, and from then on the
// same operations give the same schedule on both, for every policy (those that remember parts
// between calls included). A damaged image is refused, naming what does not fit.
#include "core/plan/cluster_plan_image.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/dag/dag_plan.h"
#include "core/plan/cluster_plan.h"
#include "core/plan/replan.h"
#include "core/registry/registry.h"
#include "gtest/gtest.h"
#include "tests/core/online/random_ops.h"
#include "tests/core/plan/same_image.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::ExpectSameImage;
using testing::kS;
using testing::MakePlanWith;
using testing::Outcome;
using testing::RandomOptions;
using testing::RunRandomOps;

std::unique_ptr<ClusterPlan> Restored(const ClusterPlan& plan) {
  auto restored = ClusterPlan::FromImage(plan.Image());
  EXPECT_OK(restored);
  return restored.ok() ? *std::move(restored) : nullptr;
}

// Two DAG reservations of one task each: one that ends while the random operations run (its
// booking is then freed) and one far ahead.
void CommitDags(ClusterPlan& plan) {
  const Dag dag{{{"t", RuntimeModel(RigidModel{1, 100 * kS})}}, {}};
  for (const Time start : {100 * kS, 1'000'000 * kS}) {
    DagPlan placed{{{1, start, start + 100 * kS, {}}}, 0, 0};
    Summarize(placed);
    ASSERT_OK(plan.CommitDag(dag, placed, "heft", "image test", 0));
  }
}

TEST(ClusterPlanImageTest, ARestoredPlanGoesOnAsThePlanDoes) {
  int policies = 0;
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kPolicy) continue;
    ++policies;
    const AlgorithmParams p = testing::PolicyTestParams(info.name);
    for (std::uint64_t seed : {1, 2, 3}) {
      SCOPED_TRACE(info.name + " seed " + std::to_string(seed));
      auto plan = MakePlanWith(info.name, 8, p);
      ASSERT_NE(plan, nullptr);
      CommitDags(*plan);
      const RandomOptions options{.steps = 60, .max_k = 8};
      RunRandomOps({plan.get()}, seed, options);
      (void)plan->TakeChangedJobs();
      auto restored = Restored(*plan);
      ASSERT_NE(restored, nullptr);
      ExpectSameImage(plan->Image(), restored->Image());
      ASSERT_OK(ValidateSchedule(restored->ToValidate()));
      EXPECT_OK(restored->timeline().CheckInvariants());
      RunRandomOps({plan.get(), restored.get()}, seed + 100, options,
                   [&](int) { EXPECT_EQ(Outcome(*plan), Outcome(*restored)); });
      // The next ids continue where the plan's do.
      auto a = plan->AddReservation(1, plan->now() + 5'000'000 * kS, plan->now() + 5'000'001 * kS,
                                    "next", false);
      auto b = restored->AddReservation(1, restored->now() + 5'000'000 * kS,
                                        restored->now() + 5'000'001 * kS, "next", false);
      ASSERT_OK(a);
      ASSERT_OK(b);
      EXPECT_EQ((*a)->id, (*b)->id);
      EXPECT_EQ((*a)->booking, (*b)->booking);
    }
  }
  EXPECT_GE(policies, 10);
}

// On groups of different speeds each job keeps its group and runs at that group's speed.
TEST(ClusterPlanImageTest, ARestoredPlanOnTwoSpeedsGoesOnAsThePlanDoes) {
  for (const std::string policy : {"fcfs", "easy", "conservative", "dasedf"}) {
    SCOPED_TRACE(policy);
    auto plan = testing::MakePlanOn(policy, {{"slow", 8, 1.0}, {"fast", 4, 2.0}},
                                    testing::PolicyTestParams(policy));
    ASSERT_NE(plan, nullptr);
    const RandomOptions options{.steps = 60, .max_k = 8};
    RunRandomOps({plan.get()}, 7, options);
    ASSERT_OK(plan->AddReservation(2, plan->now() + 100'000 * kS, plan->now() + 100'100 * kS,
                                   "fast", false, /*group=*/1));
    // A DAG whose tasks hold processors of each group; the restored plan counts them there.
    const Dag dag{{{"slow", RuntimeModel(RigidModel{3, 100 * kS})},
                   {"fast", RuntimeModel(RigidModel{2, 100 * kS})}},
                  {}};
    const Time at = plan->now() + 200'000 * kS;
    DagPlan placed{{{3, at, at + 100 * kS, {}, 0}, {2, at, at + 50 * kS, {}, 1}}, 0, 0};
    Summarize(placed);
    ASSERT_OK(plan->CommitDag(dag, placed, "cpa", "groups", plan->now()));
    (void)plan->TakeChangedJobs();
    auto restored = Restored(*plan);
    ASSERT_NE(restored, nullptr);
    ExpectSameImage(plan->Image(), restored->Image());
    ASSERT_OK(ValidateSchedule(restored->ToValidate()));
    RunRandomOps({plan.get(), restored.get()}, 107, options,
                 [&](int) { EXPECT_EQ(Outcome(*plan), Outcome(*restored)); });
    // The fast group's 4 processors hold the DAG task's 2 over [at, at + 50 s) on both.
    for (ClusterPlan* p : {plan.get(), restored.get()}) {
      EXPECT_THAT(p->AddReservation(3, at, at + 10 * kS, "fast", false, /*group=*/1),
                  testing::StatusIs(absl::StatusCode::kResourceExhausted,
                                    ::testing::HasSubstr("of group 1")));
    }
  }
}

TEST(ClusterPlanImageTest, AJobOutsideTheGroupsIsRefused) {
  auto plan = testing::MakePlanOn("fcfs", {{"slow", 8, 1.0}, {"fast", 4, 2.0}});
  (void)plan->Submit(testing::RigidJob(2, 10));
  ClusterPlanImage image = plan->Image();
  image.jobs[0].group = 2;
  EXPECT_THAT(
      ClusterPlan::FromImage(image),
      testing::StatusIs(absl::StatusCode::kDataLoss,
                        ::testing::HasSubstr("names processor group 2; the cluster has 2")));
  image.spec.groups[1].speed = 1.0;  // one speed: no job may name a group
  image.policy = {};                 // nor is the policy partitioned
  image.jobs[0].group = 1;
  EXPECT_THAT(ClusterPlan::FromImage(image),
              testing::StatusIs(absl::StatusCode::kDataLoss,
                                ::testing::HasSubstr("on a cluster of one speed")));
}

TEST(ClusterPlanImageTest, AReplannedQueueIsRestoredReplanned) {
  auto mrt = MakeOfflinePlanner("mrt", {});
  ASSERT_OK(mrt);
  for (const std::string policy : {"conservative", "easy", "dasedf"}) {
    SCOPED_TRACE(policy);
    auto plan = MakePlanWith(policy, 8, {});
    ASSERT_NE(plan, nullptr);
    const RandomOptions options{.steps = 40, .max_k = 8};
    RunRandomOps({plan.get()}, 5, options);
    absl::StatusOr<ReplanProposal> proposal =
        ProposeReplan(*plan, **mrt, ReplanObjective::kMakespan, {});
    ASSERT_OK(proposal);
    ASSERT_OK(plan->ApplyReplan(proposal->planned));
    (void)plan->TakeChangedJobs();
    auto restored = Restored(*plan);
    ASSERT_NE(restored, nullptr);
    ExpectSameImage(plan->Image(), restored->Image());
    for (const JobRecord* job : plan->QueuedJobs()) {
      EXPECT_TRUE(restored->FindJob(job->job.id)->replanned) << job->job.id;
    }
    RunRandomOps({plan.get(), restored.get()}, 105, options,
                 [&](int) { EXPECT_EQ(Outcome(*plan), Outcome(*restored)); });
  }
}

TEST(ClusterPlanImageTest, ADamagedImageIsRefusedNamingWhatDoesNotFit) {
  auto plan = MakePlanWith("fcfs", 4, {});
  ASSERT_NE(plan, nullptr);
  RunRandomOps({plan.get()}, 7, RandomOptions{.steps = 30, .max_k = 4, .holds = false});
  ClusterPlanImage image = plan->Image();
  ASSERT_FALSE(image.jobs.empty());

  ClusterPlanImage moved = image;
  JobRecord* placed = nullptr;
  for (JobRecord& job : moved.jobs) {
    if (job.placed) placed = &job;
  }
  ASSERT_NE(placed, nullptr);
  placed->allocation.start += 1;
  auto refused = ClusterPlan::FromImage(moved);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(refused.status().message().find("job " + placed->job.id), std::string::npos)
      << refused.status();

  ClusterPlanImage twice = image;
  twice.timeline.free_slots.push_back(0);
  twice.timeline.free_slots.push_back(0);
  EXPECT_EQ(ClusterPlan::FromImage(twice).status().code(), absl::StatusCode::kDataLoss);

  ClusterPlanImage unknown = image;
  unknown.running.push_back("j999999");
  refused = ClusterPlan::FromImage(unknown);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(refused.status().message().find("j999999"), std::string::npos) << refused.status();
}

}  // namespace
// A policy's tables are its own: one it does not keep, or a row of the wrong shape, is refused
// naming the table.
TEST(ClusterPlanImageTest, ADamagedPolicyTableIsRefusedNamingIt) {
  auto plan = MakePlanWith("reserve-aux-fcfs", 8, testing::PolicyTestParams("reserve-aux-fcfs"));
  ASSERT_NE(plan, nullptr);
  RunRandomOps({plan.get()}, 11, RandomOptions{.steps = 40, .max_k = 8});
  const ClusterPlanImage image = plan->Image();
  ASSERT_NE(image.policy.Find("partition.bookings"), nullptr);
  ASSERT_NE(image.policy.Find("reserve_aux.job_parts"), nullptr);
  ASSERT_OK(ClusterPlan::FromImage(image));

  ClusterPlanImage foreign = image;
  foreign.policy.Put("bicriteria_batch.batch", {{"j1", {}}});
  EXPECT_THAT(ClusterPlan::FromImage(foreign),
              testing::StatusIs(absl::StatusCode::kDataLoss,
                                ::testing::HasSubstr("'bicriteria_batch.batch'")));

  ClusterPlanImage short_row = image;
  short_row.policy.tables["partition.last_start"][0].values.pop_back();
  EXPECT_THAT(ClusterPlan::FromImage(short_row),
              testing::StatusIs(absl::StatusCode::kDataLoss,
                                ::testing::HasSubstr("'partition.last_start' has 1 values")));

  ClusterPlanImage jobless = image;
  jobless.policy.Put("reserve_aux.job_parts", {{"", {0}}});
  EXPECT_THAT(
      ClusterPlan::FromImage(jobless),
      testing::StatusIs(absl::StatusCode::kDataLoss,
                        ::testing::HasSubstr("'reserve_aux.job_parts' has 1 values and no job")));

  ClusterPlanImage half = image;
  half.policy.tables.erase("partition.last_start");
  EXPECT_THAT(ClusterPlan::FromImage(half),
              testing::StatusIs(absl::StatusCode::kDataLoss,
                                ::testing::HasSubstr("lacks the table 'partition.last_start'")));

  // A policy that keeps nothing keeps no table.
  auto fcfs = MakePlanWith("fcfs", 8, {});
  ASSERT_NE(fcfs, nullptr);
  ClusterPlanImage stateless = fcfs->Image();
  EXPECT_TRUE(stateless.policy.empty());
  stateless.policy.Put("partition.bookings", {});
  EXPECT_THAT(ClusterPlan::FromImage(stateless),
              testing::StatusIs(absl::StatusCode::kDataLoss,
                                ::testing::HasSubstr("which this policy does not keep")));
}

}  // namespace resched
