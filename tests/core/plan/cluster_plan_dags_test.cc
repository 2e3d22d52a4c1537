// ClusterPlan's DAG reservations: all-or-nothing commits, release (followed as the journal
// carries them), and the historical q.
#include <memory>
#include <string>
#include <tuple>

#include "core/plan/cluster_plan.h"
#include "gtest/gtest.h"
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
