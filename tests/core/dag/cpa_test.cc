#include "core/dag/cpa.h"

#include <random>

#include "core/dag/dag_graph.h"
#include "dag_test_util.h"
#include "gtest/gtest.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::Amdahl;
using testing::kHour;

DagGraph CpaGraph(const Dag& dag, int p) {
  absl::StatusOr<DagGraph> g = BuildDagGraph(dag, p);
  EXPECT_OK(g);
  return *g;
}

TEST(CpaAllocation, PerfectlyParallelChainGrowsToTheWholeMachine) {
  // alpha = 0: the area never changes, so T_CP > T_A until both tasks use all 4 processors.
  Dag dag{{{"a", Amdahl(4 * kHour, 0)}, {"b", Amdahl(8 * kHour, 0)}}, {{0, 1, 0}}};
  EXPECT_EQ(CpaAllocation(CpaGraph(dag, 4), 4), (std::vector<int>{4, 4}));
}

TEST(CpaAllocation, IndependentEqualTasksStaySequentialWhenTheyFillTheMachine) {
  // T_CP = t = T_A from the start: nothing grows.
  Dag dag;
  for (int i = 0; i < 4; ++i) dag.tasks.push_back({absl::StrCat("t", i), Amdahl(kHour, 0.1)});
  EXPECT_EQ(CpaAllocation(CpaGraph(dag, 4), 4), (std::vector<int>{1, 1, 1, 1}));
}

TEST(CpaAllocation, GrowsTheTaskWithTheLargestGainOnTheCriticalPath) {
  // One long task beside a short one on 3 processors: only the long one is critical.
  Dag dag{{{"long", Amdahl(10 * kHour, 0)}, {"short", Amdahl(kHour, 0)}}, {}};
  const std::vector<int> w = CpaAllocation(CpaGraph(dag, 3), 3);
  EXPECT_EQ(w[1], 1);
  EXPECT_EQ(w[0], 2);  // level bound: 2 + 1 <= 3
  // Without the level bound the long task may take the whole machine.
  EXPECT_EQ(CpaAllocation(CpaGraph(dag, 3), 3, {.level_bound = false})[0], 3);
}

TEST(CpaAllocation, LevelSumsNeverExceedTheMachine) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 30; ++trial) {
    const Dag dag = testing::RandomDag(rng, 30);
    const int p = 8 + static_cast<int>(rng() % 60);
    const DagGraph g = CpaGraph(dag, p);
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
    const DagGraph g = CpaGraph(dag, p);
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

// The allocation phase written the obvious way: both levels recomputed from scratch each step.
std::vector<int> ReferenceCpaAllocation(const DagGraph& g, int p, bool level_bound) {
  const int n = g.size();
  std::vector<int> index(n, 0);
  std::vector<int> level(n, 0);
  for (int v : g.topo) {
    for (const Arc& a : g.preds[v]) level[v] = std::max(level[v], level[a.task] + 1);
  }
  while (true) {
    std::vector<Duration> t(n);
    double area = 0;
    std::vector<long> level_sum(n, 0);
    for (int i = 0; i < n; ++i) {
      t[i] = g.widths[i].times[index[i]];
      area += static_cast<double>(g.widths[i].widths[index[i]]) * static_cast<double>(t[i]);
      level_sum[level[i]] += g.widths[i].widths[index[i]];
    }
    const std::vector<Duration> bl = BottomLevels(g, t);
    const std::vector<Duration> tl = TopLevels(g, t);
    Duration critical = 0;
    for (int i = 0; i < n; ++i) critical = std::max(critical, tl[i] + bl[i]);
    if (static_cast<double>(critical) <= area / p) break;
    int best = -1;
    double best_gain = 0;
    for (int i = 0; i < n; ++i) {
      const WidthTable& w = g.widths[i];
      const int next = index[i] + 1;
      if (tl[i] + bl[i] != critical || next >= static_cast<int>(w.widths.size()) ||
          w.widths[next] > p) {
        continue;
      }
      if (level_bound && level_sum[level[i]] + w.widths[next] - w.widths[index[i]] > p) continue;
      const double gain = static_cast<double>(w.times[index[i]]) / w.widths[index[i]] -
                          static_cast<double>(w.times[next]) / w.widths[next];
      if (gain > best_gain) {
        best_gain = gain;
        best = i;
      }
    }
    if (best < 0) break;
    ++index[best];
  }
  std::vector<int> widths(n);
  for (int i = 0; i < n; ++i) widths[i] = g.widths[i].widths[index[i]];
  return widths;
}

TEST(CpaAllocation, MatchesTheFromScratchReference) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 60; ++trial) {
    const Dag dag = testing::RandomDag(rng, 5 + static_cast<int>(rng() % 40), 0.3,
                                       trial % 3 == 0 ? 20 * testing::kMinute : 0);
    const int p = 2 + static_cast<int>(rng() % 200);
    const DagGraph g = CpaGraph(dag, p);
    for (bool level_bound : {true, false}) {
      EXPECT_EQ(CpaAllocation(g, p, {.level_bound = level_bound}),
                ReferenceCpaAllocation(g, p, level_bound))
          << "trial " << trial << " p " << p << " level_bound " << level_bound;
    }
  }
}

TEST(PlanCpa, OnAnEmptyClusterIsAValidListSchedule) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const Dag dag = testing::RandomDag(rng, 40, 0.2, 10 * testing::kMinute);
    const Timeline empty(32);
    absl::StatusOr<DagPlan> plan = PlanCpa(CpaGraph(dag, 32), empty, 1000);
    ASSERT_OK(plan);
    testing::ExpectValidPlan(dag, *plan, empty, 1000);
  }
}

TEST(PlanCpa, AroundReservationsStaysValid) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const Dag dag = testing::RandomDag(rng, 30);
    const Timeline busy = testing::RandomTimeline(rng, 64, 200, 48 * kHour);
    absl::StatusOr<DagPlan> plan = PlanCpa(CpaGraph(dag, 64), busy, kHour);
    ASSERT_OK(plan);
    testing::ExpectValidPlan(dag, *plan, busy, kHour);
  }
}

}  // namespace
}  // namespace resched
