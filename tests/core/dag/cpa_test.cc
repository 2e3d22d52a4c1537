#include "core/dag/cpa.h"

#include <random>

#include "core/dag/dag_graph.h"
#include "dag_test_util.h"
#include "gtest/gtest.h"

namespace resched {
namespace {

using testing::Amdahl;
using testing::kHour;

DagGraph Graph(const Dag& dag, int p) {
  absl::StatusOr<DagGraph> g = BuildDagGraph(dag, p);
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

TEST(CpaAllocation, PerfectlyParallelChainGrowsToTheWholeMachine) {
  // alpha = 0: the area never changes, so T_CP > T_A until both tasks use all 4 processors.
  Dag dag{{{"a", Amdahl(4 * kHour, 0)}, {"b", Amdahl(8 * kHour, 0)}}, {{0, 1, 0}}};
  EXPECT_EQ(CpaAllocation(Graph(dag, 4), 4), (std::vector<int>{4, 4}));
}

TEST(CpaAllocation, IndependentEqualTasksStaySequentialWhenTheyFillTheMachine) {
  // T_CP = t = T_A from the start: nothing grows.
  Dag dag;
  for (int i = 0; i < 4; ++i) dag.tasks.push_back({absl::StrCat("t", i), Amdahl(kHour, 0.1)});
  EXPECT_EQ(CpaAllocation(Graph(dag, 4), 4), (std::vector<int>{1, 1, 1, 1}));
}

TEST(CpaAllocation, GrowsTheTaskWithTheLargestGainOnTheCriticalPath) {
  // One long task beside a short one on 3 processors: only the long one is critical.
  Dag dag{{{"long", Amdahl(10 * kHour, 0)}, {"short", Amdahl(kHour, 0)}}, {}};
  const std::vector<int> w = CpaAllocation(Graph(dag, 3), 3);
  EXPECT_EQ(w[1], 1);
  EXPECT_EQ(w[0], 2);  // level bound: 2 + 1 <= 3
  // Without the level bound the long task may take the whole machine.
  EXPECT_EQ(CpaAllocation(Graph(dag, 3), 3, {.level_bound = false})[0], 3);
}

TEST(CpaAllocation, LevelSumsNeverExceedTheMachine) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 30; ++trial) {
    const Dag dag = testing::RandomDag(rng, 30);
    const int p = 8 + static_cast<int>(rng() % 60);
    const DagGraph g = Graph(dag, p);
    const std::vector<int> w = CpaAllocation(g, p);
    std::vector<int> level(g.size(), 0);
    for (int v : g.topo) {
      for (const Arc& a : g.preds[v]) level[v] = std::max(level[v], level[a.task] + 1);
    }
    std::vector<int> sum(g.size(), 0);
    for (int i = 0; i < g.size(); ++i) {
      EXPECT_GE(w[i], 1);
      EXPECT_LE(w[i], p);
      sum[level[i]] += w[i];
    }
    for (int s : sum) EXPECT_LE(s, p);
  }
}

TEST(CpaAllocation, StopsOnceTheCriticalPathIsNoLongerThanTheAverageArea) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const Dag dag = testing::RandomDag(rng, 25);
    const int p = 16;
    const DagGraph g = Graph(dag, p);
    const std::vector<int> w = CpaAllocation(g, p, {.level_bound = false});
    const std::vector<Duration> t = TimesFor(g, w);
    const std::vector<Duration> bl = BottomLevels(g, t);
    double area = 0;
    for (int i = 0; i < g.size(); ++i)
      area += static_cast<double>(w[i]) * static_cast<double>(t[i]);
    const Duration critical = *std::max_element(bl.begin(), bl.end());
    // Either the criterion holds, or no critical task can grow any more.
    if (static_cast<double>(critical) > area / p) {
      const std::vector<Duration> tl = TopLevels(g, t);
      for (int i = 0; i < g.size(); ++i) {
        if (tl[i] + bl[i] == critical) {
          EXPECT_EQ(w[i], p);
        }
      }
    }
  }
}

TEST(PlanCpa, OnAnEmptyClusterIsAValidListSchedule) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const Dag dag = testing::RandomDag(rng, 40, 0.2, 10 * testing::kMinute);
    const Timeline empty(32);
    absl::StatusOr<DagPlan> plan = PlanCpa(Graph(dag, 32), empty, 1000);
    ASSERT_TRUE(plan.ok()) << plan.status();
    testing::ExpectValidPlan(dag, *plan, empty, 1000);
  }
}

TEST(PlanCpa, AroundReservationsStaysValid) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const Dag dag = testing::RandomDag(rng, 30);
    const Timeline busy = testing::RandomTimeline(rng, 64, 200, 48 * kHour);
    absl::StatusOr<DagPlan> plan = PlanCpa(Graph(dag, 64), busy, kHour);
    ASSERT_TRUE(plan.ok()) << plan.status();
    testing::ExpectValidPlan(dag, *plan, busy, kHour);
  }
}

}  // namespace
}  // namespace resched
