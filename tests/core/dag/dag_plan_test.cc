// ShiftedBy: a plan moved whole keeps its shape (widths, durations, precedences and transfer
// distances), so a plan valid from a release is valid from the release moved alike.
#include "core/dag/dag_plan.h"

#include <gtest/gtest.h>

#include <random>

#include "core/dag/dag_planner.h"
#include "core/registry/registry.h"
#include "tests/core/dag/dag_test_util.h"

namespace resched {
namespace {

using testing::kHour;

TEST(DagPlanTest, AShiftedPlanKeepsItsShapeAndStaysValid) {
  std::mt19937_64 rng(11);
  const Dag dag = testing::RandomDag(rng, 12, 0.2, 5 * testing::kMinute);
  const Timeline empty(16);
  constexpr Time kRelease = 3 * kHour;
  DagPlanningInput input;
  input.dag = &dag;
  input.timeline = &empty;
  input.release = kRelease;
  auto planner = MakeDagPlanner(kDefaultReserveDagPlanner, {});
  ASSERT_TRUE(planner.ok()) << planner.status();
  absl::StatusOr<DagPlan> plan = (*planner)->Plan(input);
  ASSERT_TRUE(plan.ok()) << plan.status();
  testing::ExpectValidPlan(dag, *plan, empty, kRelease);

  constexpr Duration kDelta = 90 * testing::kMinute;
  const DagPlan shifted = ShiftedBy(*plan, kDelta);
  ASSERT_EQ(shifted.tasks.size(), plan->tasks.size());
  for (std::size_t i = 0; i < plan->tasks.size(); ++i) {
    EXPECT_EQ(shifted.tasks[i].start, plan->tasks[i].start + kDelta);
    EXPECT_EQ(shifted.tasks[i].end, plan->tasks[i].end + kDelta);
    EXPECT_EQ(shifted.tasks[i].k, plan->tasks[i].k);
    EXPECT_EQ(shifted.tasks[i].group, plan->tasks[i].group);
  }
  EXPECT_EQ(shifted.completion, plan->completion + kDelta);
  EXPECT_DOUBLE_EQ(shifted.cpu_hours, plan->cpu_hours);
  testing::ExpectValidPlan(dag, shifted, empty, kRelease + kDelta);
  // Summarize agrees with what ShiftedBy kept.
  DagPlan summarized = shifted;
  Summarize(summarized);
  EXPECT_EQ(summarized.completion, shifted.completion);
  EXPECT_NEAR(summarized.cpu_hours, shifted.cpu_hours, 1e-9);
}

}  // namespace
}  // namespace resched
