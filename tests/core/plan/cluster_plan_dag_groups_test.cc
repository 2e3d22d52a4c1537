// DAG reservations on processor groups of different speeds: every DAG planner of the registry
// plans around a two-speed cluster's jobs and holds, each task in one group at that group's
// speed; the commit books each task in its group, the groups' policy then plans around it, and
// every schedule goes through the validator (per group) before and after.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dag/dag_planner.h"
#include "core/dag/heft.h"
#include "core/plan/cluster_plan.h"
#include "core/registry/registry.h"
#include "gtest/gtest.h"
#include "tests/core/online/random_ops.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::kS;

const std::vector<ProcessorGroup> kSlowAndFast = {{"slow", 6, 1.0}, {"fast", 3, 2.0}};

std::vector<std::string> DagPlannerNames() {
  std::vector<std::string> names;
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind == AlgorithmKind::kDagPlanner) names.push_back(info.name);
  }
  return names;
}

// Tasks that allow one to three processors (so HEFT can run them too), random edges forward.
Dag RandomDag(std::mt19937_64& rng, int tasks) {
  Dag dag;
  for (int i = 0; i < tasks; ++i) {
    const Duration t1 = (10 + static_cast<Duration>(rng() % 200)) * kS;
    dag.tasks.push_back(
        {absl::StrCat("t", i), RuntimeModel(AmdahlModel{t1, (rng() % 50) / 100.0, 1, 3})});
  }
  for (int from = 0; from < tasks; ++from) {
    for (int to = from + 1; to < tasks; ++to) {
      if (rng() % 4 == 0) {
        dag.edges.push_back({from, to, static_cast<Duration>(rng() % 5) * kS});
      }
    }
  }
  return dag;
}

// The plan alone, as the validator sees it: its tasks in their groups with their models (so
// each duration is checked at its group's speed), the precedences and their transfers.
void ExpectValidOnGroups(const Dag& dag, const DagPlan& plan, Time release) {
  Timeline empty(9);
  ScheduleToValidate s = MappedDagPlanToValidate(dag, plan, empty, release, true);
  s.groups = kSlowAndFast;
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    ASSERT_GE(plan.tasks[i].group, 0) << dag.tasks[i].name;
    s.items[i].group = plan.tasks[i].group;
  }
  EXPECT_OK(ValidateSchedule(s));
}

TEST(ClusterPlanDagGroups, EveryDagPlannerBooksValidPlansAroundJobsAndHolds) {
  const std::vector<std::string> planners = DagPlannerNames();
  ASSERT_GE(planners.size(), 10u);
  for (const std::string& name : planners) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(absl::StrCat(name, " seed ", seed));
      auto plan = testing::MakePlanOn("conservative", kSlowAndFast);
      const testing::RandomOptions options{.steps = 40, .max_k = 4};
      testing::RunRandomOps({plan.get()}, seed, options);
      // Holds past the running jobs' ends, moving queued jobs out of their way.
      ASSERT_OK(plan->AddReservation(2, plan->now() + 100 * kS, plan->now() + 300 * kS, "fast",
                                     true, /*group=*/1));
      ASSERT_OK(
          plan->AddReservation(3, plan->now() + 150 * kS, plan->now() + 500 * kS, "any", true));
      std::mt19937_64 rng(seed);
      const Dag dag = RandomDag(rng, 8);
      auto planner = testing::OkValue(MakeDagPlanner(name, {}));
      const DagPlan planned = testing::OkValue(planner->Plan(testing::DagInputOn(*plan, dag)));
      ExpectValidOnGroups(dag, planned, plan->now());
      ASSERT_OK(plan->CommitDag(dag, planned, name, "", plan->now()));
      ASSERT_OK(ValidateSchedule(plan->ToValidate()));
      // A deadline query on the cluster as it is now.
      const DeadlineAnswer answer =
          testing::OkValue(planner->AnswerDeadline(testing::DagInputOn(*plan, dag), std::nullopt));
      ASSERT_TRUE(answer.plan.has_value());
      ASSERT_TRUE(answer.tightest.has_value());
      ExpectValidOnGroups(dag, *answer.plan, plan->now());
      ASSERT_OK(plan->CommitDag(dag, *answer.plan, name, "", plan->now()));
      // The groups' policy plans around the DAG tasks booked in them.
      testing::RunRandomOps({plan.get()}, seed + 100, options);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(ClusterPlanDagGroups, ATaskRunsInTheGroupThatEndsItFirstAtThatGroupsSpeed) {
  const Dag one{{{"t", RuntimeModel(RigidModel{2, 100 * kS})}}, {}};
  for (const char* name : {"cpa", "bl_cpar_bd_cpar", "dl_rc_cpar"}) {
    SCOPED_TRACE(name);
    auto plan = testing::MakePlanOn("conservative", kSlowAndFast);
    const DagPlan planned = testing::OkValue(
        testing::OkValue(MakeDagPlanner(name, {}))->Plan(testing::DagInputOn(*plan, one)));
    EXPECT_EQ(planned.tasks[0].group, 1);
    EXPECT_EQ(planned.tasks[0].end - planned.tasks[0].start, 50 * kS);
  }
  // The fast group busy for 60 s: 100 s on the slow group ends before 60 + 50 s.
  auto plan = testing::MakePlanOn("conservative", kSlowAndFast);
  ASSERT_OK(plan->AddReservation(3, 0, 60 * kS, "busy", false, /*group=*/1));
  const DagPlan planned = testing::OkValue(
      testing::OkValue(MakeDagPlanner("cpa", {}))->Plan(testing::DagInputOn(*plan, one)));
  EXPECT_EQ(planned.tasks[0].group, 0);
  EXPECT_EQ(planned.tasks[0].end, 100 * kS);
  // HEFT: one processor per task, the fast one unless a slow one ends it earlier.
  const Dag seq{{{"s", RuntimeModel(AmdahlModel{100 * kS, 0, 1, 1})}}, {}};
  const DagPlan heft = testing::OkValue(
      testing::OkValue(MakeDagPlanner("heft", {}))->Plan(testing::DagInputOn(*plan, seq)));
  EXPECT_EQ(heft.tasks[0].group, 0);
  EXPECT_EQ(heft.tasks[0].end, 100 * kS);
  ASSERT_OK(plan->AdvanceTo(30 * kS));
  const DagPlan later = testing::OkValue(
      testing::OkValue(MakeDagPlanner("heft", {}))->Plan(testing::DagInputOn(*plan, seq)));
  EXPECT_EQ(later.tasks[0].group, 1);  // 60 + 50 s beats 30 + 100 s
  EXPECT_EQ(later.tasks[0].end, 110 * kS);
}

TEST(ClusterPlanDagGroups, AHoldOfAnyGroupIsTakenFromTheSlowGroupFirst) {
  auto plan = testing::MakePlanOn("conservative", kSlowAndFast);
  ASSERT_OK(plan->AddReservation(7, 0, 100 * kS, "any", false));
  const std::vector<Timeline> free = plan->FreeByGroup();
  ASSERT_EQ(free.size(), 2u);
  EXPECT_EQ(free[0].FreeAt(0), 0);  // the six slow processors, then one fast
  EXPECT_EQ(free[1].FreeAt(0), 2);
  EXPECT_EQ(free[0].FreeAt(100 * kS), 6);
  EXPECT_EQ(free[1].FreeAt(100 * kS), 3);
}

TEST(ClusterPlanDagGroups, ATooWideDagIsRefusedNamingTheGroups) {
  auto plan = testing::MakePlanOn("conservative", kSlowAndFast);
  const Dag wide{{{"w", RuntimeModel(RigidModel{7, 10 * kS})}}, {}};
  for (const char* name : {"cpa", "dl_bd_cpar"}) {
    EXPECT_THAT(testing::OkValue(MakeDagPlanner(name, {}))->Plan(testing::DagInputOn(*plan, wide)),
                testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                  ::testing::HasSubstr("no group can run it: group 0 ('slow'")))
        << name;
  }
  const Dag moldable{{{"m", RuntimeModel(AmdahlModel{10 * kS, 0, 7, 9})}}, {}};
  EXPECT_THAT(
      testing::OkValue(MakeDagPlanner("barbosa", {}))->Plan(testing::DagInputOn(*plan, moldable)),
      testing::StatusIs(absl::StatusCode::kInvalidArgument,
                        ::testing::HasSubstr("fits no processor group")));
}

TEST(ClusterPlanDagGroups, ACommitChecksEachTaskInItsGroupAndReleaseFreesIt) {
  auto plan = testing::MakePlanOn("conservative", kSlowAndFast);
  const Dag one{{{"t", RuntimeModel(RigidModel{2, 100 * kS})}}, {}};
  DagPlan placed{{{2, 0, 50 * kS, {}, 1}}, 0, 0};
  Summarize(placed);
  DagPlan no_group = placed;
  no_group.tasks[0].group = -1;
  EXPECT_THAT(plan->CommitDag(one, no_group, "cpa", "", 0),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("placements[0].group: task 't' must run")));
  ASSERT_OK(plan->AddReservation(2, 0, 10 * kS, "fast", false, /*group=*/1));
  EXPECT_THAT(plan->CommitDag(one, placed, "cpa", "", 0),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                ::testing::HasSubstr("of group 1 ('fast')")));
  placed.tasks[0].start = 10 * kS;
  placed.tasks[0].end = 60 * kS;
  Summarize(placed);
  const DagReservation* booked = testing::OkValue(plan->CommitDag(one, placed, "cpa", "", 0));
  EXPECT_EQ(booked->tasks[0].group, 1);
  // The fast group now has one processor over [10, 60) s: a job of 2 waits or goes slow.
  const JobId job = testing::Submit(*plan, testing::RigidJob(2, 100));
  EXPECT_EQ(plan->FindJob(job)->group, 0);
  EXPECT_THAT(
      plan->AddReservation(2, 20 * kS, 30 * kS, "fast", false, /*group=*/1),
      testing::StatusIs(absl::StatusCode::kResourceExhausted, ::testing::HasSubstr("group 1")));
  ASSERT_OK(ValidateSchedule(plan->ToValidate()));
  ASSERT_OK(plan->ReleaseDag(booked->id));
  EXPECT_OK(plan->AddReservation(2, 20 * kS, 30 * kS, "fast", false, /*group=*/1));
}

TEST(ClusterPlanDagGroups, OnOneSpeedATaskNamesNoGroup) {
  auto one_speed = testing::MakePlan("conservative", 4);
  const Dag one{{{"t", RuntimeModel(RigidModel{2, 100 * kS})}}, {}};
  DagPlan placed{{{2, 0, 100 * kS, {}, 0}}, 0, 0};
  Summarize(placed);
  EXPECT_THAT(one_speed->CommitDag(one, placed, "cpa", "", 0),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("all have one speed")));
}

}  // namespace
}  // namespace resched
