// ClusterPlan's DAG reservations: all-or-nothing commits, release (followed as the journal
// carries them), and the historical q.
#include <memory>
#include <string>
#include <tuple>

#include "core/plan/cluster_plan.h"
#include "gtest/gtest.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/core/plan/follower.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

constexpr Duration kHour = 3600 * kMicrosPerSecond;

std::unique_ptr<ClusterPlan> Plan(int p) {
  ClusterSpec spec;
  spec.name = "c";
  spec.groups = {{"", p, 1.0}};
  spec.clock = ClockKind::kSimulated;
  auto plan = ClusterPlan::Create(spec, {}, 0);
  EXPECT_OK(plan);
  return *std::move(plan);
}

Dag TwoTasks() {
  const RuntimeModel m(RigidModel{2, kHour});
  return Dag{{{"a", m}, {"b", m}}, {{0, 1, 0}}};
}

DagPlan PlanOf(std::vector<TaskReservation> tasks) {
  DagPlan p{std::move(tasks), 0, 0};
  Summarize(p);
  return p;
}

std::vector<std::tuple<Time, Time, int>> Profile(const ClusterPlan& plan) {
  std::vector<std::tuple<Time, Time, int>> steps;
  plan.timeline().ForEachStep(
      0, 100 * kHour, [&](const TimelineStep& s) { steps.emplace_back(s.start, s.end, s.free); });
  return steps;
}

TEST(ClusterPlanDags, ACommitThatDoesNotFitBooksNothing) {
  auto plan = Plan(4);
  ASSERT_OK(plan->AddReservation(3, 2 * kHour, 3 * kHour, "x", false));
  const auto before = Profile(*plan);
  // The first task fits; the second overlaps the hold with 2 processors where 1 is free.
  const DagPlan bad = PlanOf({{2, 0, kHour, {}}, {2, 2 * kHour, 3 * kHour, {}}});
  absl::StatusOr<const DagReservation*> r = plan->CommitDag(TwoTasks(), bad, "cpa", "", 0);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("'b'"), std::string::npos) << r.status();
  EXPECT_EQ(Profile(*plan), before);
  EXPECT_TRUE(plan->Dags().empty());
  EXPECT_OK(plan->timeline().CheckInvariants());
}

TEST(ClusterPlanDags, CommitThenReleaseRestoresTheTimeline) {
  auto plan = Plan(4);
  const auto before = Profile(*plan);
  const DagPlan good = PlanOf({{2, 0, kHour, {}}, {2, kHour, 2 * kHour, {}}});
  absl::StatusOr<const DagReservation*> r = plan->CommitDag(TwoTasks(), good, "cpa", "wf", 0);
  ASSERT_OK(r);
  EXPECT_EQ((*r)->id, "d1");
  EXPECT_EQ(plan->timeline().FreeAt(kHour / 2), 2);
  ASSERT_NE(plan->FindDag("d1"), nullptr);
  EXPECT_EQ(plan->ToValidate().holds.size(), 2u);
  ASSERT_OK(plan->ReleaseDag("d1"));
  EXPECT_EQ(Profile(*plan), before);
  EXPECT_EQ(plan->ReleaseDag("d1").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(plan->ReleaseDag("r1").code(), absl::StatusCode::kNotFound);
}

TEST(ClusterPlanDags, AFollowerHoldsTheImageThroughACommitAndARelease) {
  auto plan = Plan(4);
  ASSERT_OK(plan->AddReservation(1, 0, kHour, "x", false));
  auto follower = testing::StartFollowing(*plan);
  ASSERT_NE(follower, nullptr);
  const DagPlan good = PlanOf({{2, kHour, 2 * kHour, {}}, {2, 2 * kHour, 3 * kHour, {}}});
  absl::StatusOr<const DagReservation*> r = plan->CommitDag(TwoTasks(), good, "cpa", "wf", 0);
  ASSERT_OK(r);
  const std::string id = (*r)->id;
  ASSERT_NO_FATAL_FAILURE(testing::CatchUp(*plan, *follower));
  ASSERT_EQ(follower->Dags().size(), 1u);
  ASSERT_OK(plan->ReleaseDag(id));
  ASSERT_NO_FATAL_FAILURE(testing::CatchUp(*plan, *follower));
  EXPECT_TRUE(follower->Dags().empty());
}

TEST(ClusterPlanDags, EndedTasksFreeTheirBookingsAndOldCompletedDagsAreForgotten) {
  ClusterSpec spec;
  spec.name = "c";
  spec.groups = {{"", 4, 1.0}};
  spec.clock = ClockKind::kSimulated;
  ClusterLimits limits;
  limits.max_dag_reservations = 2;
  limits.max_retained_dags = 1;
  auto created = ClusterPlan::Create(spec, {}, 0, limits);
  ASSERT_OK(created);
  ClusterPlan& plan = **created;
  auto commit = [&](Time at) {
    return plan.CommitDag(TwoTasks(),
                          PlanOf({{2, at, at + kHour, {}}, {2, at + kHour, at + 2 * kHour, {}}}),
                          "cpa", "", at);
  };
  ASSERT_OK(commit(0));
  ASSERT_OK(commit(0));
  EXPECT_EQ(commit(0).status().code(), absl::StatusCode::kResourceExhausted)
      << "two DAGs not completed yet is the limit";
  ASSERT_OK(plan.AdvanceTo(kHour + kHour / 2));
  EXPECT_EQ(plan.timeline().FreeAt(kHour + kHour / 2), 0) << "the second tasks still run";
  EXPECT_EQ(plan.timeline().reservation_count(), 2u) << "the first tasks' bookings are freed";
  ASSERT_OK(plan.AdvanceTo(3 * kHour));
  EXPECT_EQ(plan.timeline().reservation_count(), 0u);
  EXPECT_EQ(plan.Dags().size(), 1u) << "one completed DAG is retained";
  EXPECT_EQ(plan.FindDag("d1"), nullptr);
  ASSERT_NE(plan.FindDag("d2"), nullptr);
  EXPECT_OK(plan.ReleaseDag("d2")) << "releasing a completed DAG frees nothing, fails nothing";
  EXPECT_OK(commit(3 * kHour));
  EXPECT_OK(plan.timeline().CheckInvariants());
}

// a -> b, a -> c, and d alone, each on 2 of 4 processors for an hour from its start.
Dag Diamondless() {
  const RuntimeModel m(RigidModel{2, kHour});
  return Dag{{{"a", m}, {"b", m}, {"c", m}, {"d", m}}, {{0, 1, 0}, {0, 2, 0}}};
}

DagPlan DiamondlessPlan() {
  return PlanOf(
      {{2, 0, kHour, {}}, {2, kHour, 2 * kHour, {}}, {2, kHour, 2 * kHour, {}}, {2, 0, kHour, {}}});
}

const DagTaskBooking& TaskOf(const ClusterPlan& plan, const std::string& name) {
  for (const DagTaskBooking& t : plan.FindDag("d1")->tasks) {
    if (t.task == name) return t;
  }
  ADD_FAILURE() << "no task " << name;
  return plan.FindDag("d1")->tasks.front();
}

TEST(ClusterPlanDags, ATaskThatFinishesEarlyGivesItsProcessorsBackAndAQueuedJobMovesUp) {
  auto plan = Plan(4);
  ASSERT_OK(plan->CommitDag(TwoTasks(), PlanOf({{2, 0, kHour, {}}, {2, kHour, 2 * kHour, {}}}),
                            "cpa", "", 0));
  ASSERT_OK(plan->AddReservation(2, 0, 2 * kHour, "the rest", false));
  const JobId job = testing::Submit(*plan, testing::RigidJob(2, 1800));
  EXPECT_EQ(testing::AllocationOf(*plan, job).start, 2 * kHour) << "behind both tasks";
  ASSERT_OK(plan->AdvanceTo(kHour / 4));
  ASSERT_OK(plan->ReportDagTask("d1", "a", DagTaskEvent::kStarted, 0));
  ASSERT_OK(plan->ReportDagTask("d1", "a", DagTaskEvent::kFinished, kHour / 4));
  EXPECT_EQ(TaskOf(*plan, "a").state, DagTaskState::kFinished);
  EXPECT_EQ(TaskOf(*plan, "a").Held().end, kHour / 4);
  EXPECT_EQ(TaskOf(*plan, "b").state, DagTaskState::kReserved) << "b keeps its reservation";
  EXPECT_EQ(plan->timeline().FreeAt(kHour / 2), 0) << "the job took a's processors";
  EXPECT_EQ(testing::AllocationOf(*plan, job).start, kHour / 4);
  EXPECT_OK(ValidateSchedule(plan->ToValidate()));
  EXPECT_OK(plan->timeline().CheckInvariants());
}

TEST(ClusterPlanDags, AFailedTaskReleasesWhatDependsOnItAndNothingElse) {
  auto plan = Plan(4);
  ASSERT_OK(plan->CommitDag(Diamondless(), DiamondlessPlan(), "cpa", "", 0));
  ASSERT_OK(plan->AdvanceTo(kHour / 2));
  ASSERT_OK(plan->ReportDagTask("d1", "a", DagTaskEvent::kFailed, kHour / 2));
  EXPECT_EQ(TaskOf(*plan, "a").state, DagTaskState::kFailed);
  EXPECT_EQ(TaskOf(*plan, "b").state, DagTaskState::kReleased);
  EXPECT_EQ(TaskOf(*plan, "c").state, DagTaskState::kReleased);
  EXPECT_EQ(TaskOf(*plan, "d").state, DagTaskState::kReserved);
  EXPECT_EQ(plan->timeline().FreeAt(kHour / 2), 2) << "d still holds its two";
  EXPECT_EQ(plan->timeline().FreeAt(kHour + kHour / 2), 4) << "b and c are gone";
  EXPECT_EQ(TaskOf(*plan, "b").Held().end, kHour) << "released before its start: held nothing";
  EXPECT_OK(ValidateSchedule(plan->ToValidate()));
}

TEST(ClusterPlanDags, ReportsOutOfOrderOrOutOfTimeAreRefusedAndChangeNothing) {
  auto plan = Plan(4);
  ASSERT_OK(plan->CommitDag(Diamondless(), DiamondlessPlan(), "cpa", "", 0));
  ASSERT_OK(plan->AdvanceTo(kHour / 2));
  const auto before = Profile(*plan);
  EXPECT_EQ(plan->ReportDagTask("d9", "a", DagTaskEvent::kStarted, 0).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(plan->ReportDagTask("d1", "z", DagTaskEvent::kStarted, 0).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(plan->ReportDagTask("d1", "a", DagTaskEvent::kFinished, kHour).status().code(),
            absl::StatusCode::kInvalidArgument)
      << "after the cluster's now";
  EXPECT_EQ(plan->ReportDagTask("d1", "b", DagTaskEvent::kStarted, kHour / 2).status().code(),
            absl::StatusCode::kFailedPrecondition)
      << "before b's reserved start";
  ASSERT_OK(plan->ReportDagTask("d1", "a", DagTaskEvent::kStarted, kHour / 8));
  EXPECT_EQ(plan->ReportDagTask("d1", "a", DagTaskEvent::kFinished, 0).status().code(),
            absl::StatusCode::kInvalidArgument)
      << "before its reported start";
  EXPECT_EQ(Profile(*plan), before);
  ASSERT_OK(plan->ReportDagTask("d1", "a", DagTaskEvent::kFinished, kHour / 2));
  const absl::Status again =
      plan->ReportDagTask("d1", "a", DagTaskEvent::kFailed, kHour / 2).status();
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(again.message().find("FINISHED"), std::string::npos) << again;
}

TEST(ClusterPlanDags, AFollowerHoldsTheTasksStatesThroughReports) {
  auto plan = Plan(4);
  auto follower = testing::StartFollowing(*plan);
  ASSERT_NE(follower, nullptr);
  ASSERT_OK(plan->CommitDag(Diamondless(), DiamondlessPlan(), "cpa", "", 0));
  ASSERT_OK(plan->AdvanceTo(kHour / 2));
  ASSERT_OK(plan->ReportDagTask("d1", "d", DagTaskEvent::kFinished, kHour / 4));
  ASSERT_OK(plan->ReportDagTask("d1", "a", DagTaskEvent::kFailed, kHour / 2));
  ASSERT_NO_FATAL_FAILURE(testing::CatchUp(*plan, *follower));
  const DagReservation* followed = follower->FindDag("d1");
  ASSERT_NE(followed, nullptr);
  std::vector<std::string> states;
  for (const DagTaskBooking& t : followed->tasks) states.emplace_back(DagTaskStateName(t.state));
  EXPECT_EQ(states, (std::vector<std::string>{"FAILED", "RELEASED", "RELEASED", "FINISHED"}));
  EXPECT_EQ(Profile(*follower), Profile(*plan));
}

TEST(ClusterPlanDags, HistoricalAvailableAveragesThePastAndFallsBackToTheFuture) {
  auto plan = Plan(10);
  // No past yet: the next window's bookings (4 processors for half of it).
  ASSERT_OK(plan->AddReservation(4, 0, kHour, "x", false));
  EXPECT_EQ(plan->HistoricalAvailable(2 * kHour), 8);
  ASSERT_OK(plan->AdvanceTo(2 * kHour));
  // The past two hours: 4 processors held for one of them.
  EXPECT_EQ(plan->HistoricalAvailable(2 * kHour), 8);
  EXPECT_EQ(plan->HistoricalAvailable(kHour), 10);
}

}  // namespace
}  // namespace resched
