// HEFT and Barbosa on processor groups (ProcessorFree with one timeline per group, as on a
// cluster of several speeds): every task inside one group and free there, at that group's
// speed; HEFT on groups with nothing booked is HEFT on the same processors as one pool.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dag/barbosa.h"
#include "core/dag/heft.h"
#include "core/dag/processor_free.h"
#include "tests/core/dag/dag_test_util.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::kHour;

// Three slow processors and two at speed 2.5, as per-processor speeds.
const std::vector<double> kGroupSpeeds = {1, 1, 1, 2.5, 2.5};

// Every task in the group of its processors, each duration its model's at that group's speed.
void ExpectTimesOfTheirGroup(const Dag& dag, const DagPlan& plan, const ProcessorFree& free) {
  ASSERT_OK(ValidateProcessorMapping({&plan}, free));
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const TaskReservation& t = plan.tasks[i];
    ASSERT_GE(t.group, 0) << dag.tasks[i].name;
    const double speed = kGroupSpeeds[free.first(t.group)];
    EXPECT_EQ(t.end - t.start, dag.tasks[i].model.OnSpeed(speed).TimeOn(t.k)) << dag.tasks[i].name;
  }
}

TEST(MappingOnGroupsTest, HeftOnEmptyGroupsIsHeftOnOnePool) {
  std::mt19937_64 rng(11);
  const Timeline slow(3), fast(2);
  const ProcessorFree free({&slow, &fast});
  for (int round = 0; round < 30; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    const Dag dag = testing::RandomDag(rng, 12, 0.2, 10 * testing::kMinute);
    const DagPlan pooled = testing::OkValue(HeftPlan(dag, kGroupSpeeds, 0, nullptr));
    auto costs = CostsFromSpeeds(dag, kGroupSpeeds);
    ASSERT_OK(costs);
    const DagPlan grouped = testing::OkValue(HeftPlanOn(dag, *costs, 0, free));
    ASSERT_EQ(pooled.tasks.size(), grouped.tasks.size());
    for (std::size_t i = 0; i < pooled.tasks.size(); ++i) {
      EXPECT_EQ(pooled.tasks[i].processors, grouped.tasks[i].processors);
      EXPECT_EQ(pooled.tasks[i].start, grouped.tasks[i].start);
      EXPECT_EQ(pooled.tasks[i].end, grouped.tasks[i].end);
    }
    ExpectTimesOfTheirGroup(dag, grouped, free);
  }
}

TEST(MappingOnGroupsTest, HeftAndBarbosaKeepEachTaskInOneGroupAroundItsBookings) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    const Timeline slow = testing::RandomTimeline(rng, 3, 6, 20 * kHour);
    const Timeline fast = testing::RandomTimeline(rng, 2, 4, 20 * kHour);
    const ProcessorFree free({&slow, &fast});
    const Dag dag = testing::RandomDag(rng, 10, 0.3, 10 * testing::kMinute);
    const Time release = static_cast<Time>(rng() % (5 * kHour));
    auto costs = CostsFromSpeeds(dag, kGroupSpeeds);
    ASSERT_OK(costs);
    const DagPlan heft = testing::OkValue(HeftPlanOn(dag, *costs, release, free));
    ExpectTimesOfTheirGroup(dag, heft, free);
    const DagPlan barbosa = testing::OkValue(BarbosaPlanOn(dag, kGroupSpeeds, release, free));
    ExpectTimesOfTheirGroup(dag, barbosa, free);
    for (const DagPlan* plan : {&heft, &barbosa}) {
      for (const TaskReservation& t : plan->tasks) EXPECT_GE(t.start, release);
    }
  }
}

TEST(MappingOnGroupsTest, BarbosaGrowsATaskInTheGroupThatEndsItFirst) {
  // Perfectly parallel: 5 slow processors would take 60 / 3 = 20 min, the two fast ones
  // 60 / 5 = 12 min; mixing them (§3's S = 8) is not allowed.
  const Timeline slow(3), fast(2);
  const ProcessorFree free({&slow, &fast});
  const Dag dag{{{"p", RuntimeModel(AmdahlModel{kHour, 0, 1, 0})}}, {}};
  const DagPlan plan = testing::OkValue(BarbosaPlanOn(dag, kGroupSpeeds, 0, free));
  EXPECT_EQ(plan.tasks[0].group, 1);
  EXPECT_EQ(plan.tasks[0].processors, (std::vector<int>{3, 4}));
  EXPECT_EQ(plan.tasks[0].end, 12 * testing::kMinute);
}

}  // namespace
}  // namespace resched
