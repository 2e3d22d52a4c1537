// Split(rho) (Saule §3.3.2, Alg. 1): hand-checked routing, equivalence with FCFS for one group
// and with independent FCFS clusters for several, random runs with every schedule validated.
#include <gtest/gtest.h>

#include <map>

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

const AlgorithmParams kTwoGroups{{"rho", 2}, {"p_min", 1}, {"p_max", 100}};  // boundary 10 s

TEST(SplitTest, RoutesJobsToGroupsByProcessingTime) {
  auto plan = MakePlanWith("split", 4, kTwoGroups);
  const auto j1 = Submit(*plan, RigidJob(2, 50));  // p(1) = 100 s: the long group
  const auto j2 = Submit(*plan, RigidJob(2, 50));
  const auto j3 = Submit(*plan, RigidJob(1, 5));  // 5 s: the short group
  const auto j4 = Submit(*plan, RigidJob(2, 4));  // 8 s
  ExpectAllocation(*plan, j1, 2, 0, 50);
  ExpectAllocation(*plan, j2, 2, 50, 100);  // the short group's processors are not its own
  ExpectAllocation(*plan, j3, 1, 0, 5);
  ExpectAllocation(*plan, j4, 2, 5, 9);  // FCFS inside the group of 2
}

TEST(SplitTest, JobWiderThanAGroupUsesTheWholeCluster) {
  auto plan = MakePlanWith("split", 4, kTwoGroups);
  const auto j1 = Submit(*plan, RigidJob(1, 50));
  const auto j2 = Submit(*plan, RigidJob(4, 10));
  const auto j3 = Submit(*plan, RigidJob(1, 5));
  ExpectAllocation(*plan, j1, 1, 0, 50);
  ExpectAllocation(*plan, j2, 4, 50, 60);
  ExpectAllocation(*plan, j3, 1, 0, 5);
}

TEST(SplitTest, MoldableJobsUseOnlyTheirGroupsWidths) {
  auto plan = MakePlanWith("split", 8, {{"rho", 2}, {"p_min", 1}, {"p_max", 10000}});
  Job job;
  job.model = RuntimeModel(AmdahlModel{400 * kS, 0, 1, 8});  // 400 s: the long group of 4
  const auto id = Submit(*plan, job);
  ExpectAllocation(*plan, id, 4, 0, 100);
}

TEST(SplitTest, BoundaryTimeGoesToTheHigherGroup) {
  auto plan = MakePlanWith("split", 2, kTwoGroups);
  const auto j1 = Submit(*plan, RigidJob(1, 100));  // the long group
  const auto j2 = Submit(*plan, RigidJob(1, 10));   // exactly on the boundary
  ExpectAllocation(*plan, j1, 1, 0, 100);
  ExpectAllocation(*plan, j2, 1, 100, 110);
}

TEST(SplitTest, OneGroupIsFcfs) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    auto split = MakePlanWith("split", 6, {{"rho", 1}});
    auto fcfs = MakePlanWith("fcfs", 6, {});
    testing::RunRandomOps({split.get(), fcfs.get()}, seed, {.steps = 200, .max_k = 6}, [&](int) {
      ASSERT_EQ(testing::Outcome(*split), testing::Outcome(*fcfs));
    });
  }
}

// Without holds the groups are independent clusters: each group's jobs are planned exactly as
// FCFS plans them alone on a cluster of the group's size.
TEST(SplitTest, GroupsAreIndependentFcfsClusters) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    auto split = MakePlanWith("split", 6, kTwoGroups);
    std::vector<std::unique_ptr<ClusterPlan>> groups;
    groups.push_back(MakePlanWith("fcfs", 3, {}));
    groups.push_back(MakePlanWith("fcfs", 3, {}));
    std::map<JobId, std::pair<int, JobId>> twin;  // split's job -> (group, id there)
    for (int step = 0; step < 300; ++step) {
      if (rng() % 3 == 0) {
        const Time t = split->now() + static_cast<Time>(rng() % (30 * kS));
        ASSERT_OK(split->AdvanceTo(t));
        for (auto& g : groups) ASSERT_OK(g->AdvanceTo(t));
        continue;
      }
      const Job job = testing::RandomJob(rng, split->now(), 3, 40);
      const int group = job.model.SequentialTime() >= 10 * kS ? 1 : 0;
      const JobId id = Submit(*split, job);
      twin[id] = {group, Submit(*groups[group], job)};
    }
    for (const auto& [id, where] : twin) {
      const Allocation a = testing::AllocationOf(*split, id);
      const Allocation b = testing::AllocationOf(*groups[where.first], where.second);
      EXPECT_EQ(std::tie(a.k, a.start, a.end), std::tie(b.k, b.start, b.end)) << id;
    }
  }
}

TEST(SplitTest, RandomRunsStayValid) {
  for (double rho : {2.0, 3.0, 5.0}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(std::to_string(rho) + " seed " + std::to_string(seed));
      auto plan = MakePlanWith("split", 8, {{"rho", rho}, {"p_min", 1}, {"p_max", 60}});
      testing::RunRandomOps({plan.get()}, seed, {.steps = 250, .max_k = 8});
    }
  }
}

// A copied plan (a dry run) goes on with a valid schedule; the copy keeps the groups.
TEST(SplitTest, CopiedPlanKeepsAValidSchedule) {
  auto plan = MakePlanWith("split", 8, {{"rho", 3}, {"p_min", 1}, {"p_max", 60}});
  testing::RunRandomOps({plan.get()}, 11, {.steps = 100, .max_k = 8});
  auto copy = plan->Copy();
  testing::RunRandomOps({copy.get()}, 12, {.steps = 100, .max_k = 8});
}

// FCFS's promise inside each group: a queued job's planned end never gets later (holds that
// displace queued jobs may break it, so there are none here).
TEST(SplitTest, PlannedEndsNeverGetLater) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE(seed);
    auto plan = MakePlanWith("split", 8, {{"rho", 3}, {"p_min", 1}, {"p_max", 60}});
    std::map<JobId, Time> promised;
    testing::RunRandomOps({plan.get()}, seed, {.steps = 250, .max_k = 8, .holds = false}, [&](int) {
      for (const JobRecord* job : plan->Jobs()) {
        if (job->state != JobState::kQueued) continue;
        EXPECT_TRUE(job->guaranteed);
        auto [it, inserted] = promised.emplace(job->job.id, job->allocation.end);
        EXPECT_LE(job->allocation.end, it->second) << job->job.id;
      }
    });
  }
}

// On two speeds each group is cut into classes of its own (p on the group's processors), and a
// job goes to the group whose Split ends it earliest, the slower one on a tie.
const std::vector<ProcessorGroup> kSlowAndFast = {{"slow", 4, 1.0}, {"fast", 2, 2.0}};
constexpr int kSlow = 0;
constexpr int kFast = 1;

TEST(SplitTest, OnTwoSpeedsEachGroupIsCutIntoClassesOfItsOwn) {
  auto plan = testing::MakePlanOn("split", kSlowAndFast, kTwoGroups);
  // p = 40 s on the slow group, 20 s on the fast one: the long class of each (2 and 1 wide).
  const auto j1 = Submit(*plan, RigidJob(1, 40));
  ExpectAllocation(*plan, j1, 1, 0, 20);
  const auto j2 = Submit(*plan, RigidJob(1, 40));  // 40 s either way: the slow group
  ExpectAllocation(*plan, j2, 1, 0, 40);
  const auto j3 = Submit(*plan, RigidJob(1, 40));  // the slow long class's second processor
  ExpectAllocation(*plan, j3, 1, 0, 40);
  // The fast group's short-class processor is idle, but not the long class's: after j1.
  const auto j4 = Submit(*plan, RigidJob(1, 40));
  ExpectAllocation(*plan, j4, 1, 20, 40);
  const auto j5 = Submit(*plan, RigidJob(1, 4));  // short class: 2 s on the fast group
  ExpectAllocation(*plan, j5, 1, 0, 2);
  EXPECT_EQ(plan->FindJob(j1)->group, kFast);
  EXPECT_EQ(plan->FindJob(j2)->group, kSlow);
  EXPECT_EQ(plan->FindJob(j3)->group, kSlow);
  EXPECT_EQ(plan->FindJob(j4)->group, kFast);
  EXPECT_EQ(plan->FindJob(j5)->group, kFast);
}

// A part inside a group is capped by what its group has free, not only by the cluster.
TEST(SplitTest, OnTwoSpeedsAHoldOfAGroupCapsItsParts) {
  auto plan = testing::MakePlanOn("split", kSlowAndFast, kTwoGroups);
  ASSERT_OK(plan->AddReservation(3, 0, 100 * kS, "hold", false, kSlow));
  // 3 wide: only the slow group's whole part holds it; the cluster has 3 free, the group 1.
  const auto wide = Submit(*plan, RigidJob(3, 10));
  ExpectAllocation(*plan, wide, 3, 100, 110);
  // A hold of any group counts on the cluster only: the fast group still runs at once.
  ASSERT_OK(plan->AddReservation(1, 0, 100 * kS, "hold", false));
  const auto narrow = Submit(*plan, RigidJob(1, 40));
  ExpectAllocation(*plan, narrow, 1, 0, 20);
}

// With one class per group, Split with FCFS is FCFS run in each group (grouped_policy.cc).
TEST(SplitTest, OnTwoSpeedsOneClassIsFcfsInEachGroup) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE(seed);
    const std::vector<ProcessorGroup> groups = {{"slow", 8, 1.0}, {"fast", 4, 2.0}};
    auto split = testing::MakePlanOn("split", groups, {{"rho", 1}, {"p_min", 1}, {"p_max", 60}});
    auto fcfs = testing::MakePlanOn("fcfs", groups);
    testing::RunRandomOps({split.get(), fcfs.get()}, seed, {.steps = 250, .max_k = 8}, [&](int) {
      ASSERT_EQ(testing::Outcome(*split), testing::Outcome(*fcfs));
    });
  }
}

TEST(SplitTest, OnTwoSpeedsRandomRunsStayValid) {
  const std::vector<ProcessorGroup> groups = {{"slow", 8, 1.0}, {"fast", 5, 2.5}};
  for (double rho : {2.0, 3.0}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(std::to_string(rho) + " seed " + std::to_string(seed));
      auto plan = testing::MakePlanOn("split", groups, {{"rho", rho}, {"p_min", 1}, {"p_max", 60}});
      testing::RunRandomOps({plan.get()}, seed, {.steps = 250, .max_k = 8});
      auto copy = plan->Copy();  // a dry run's copy keeps the groups' parts
      testing::RunRandomOps({copy.get()}, seed + 10, {.steps = 50, .max_k = 8});
    }
  }
}

}  // namespace
}  // namespace resched
