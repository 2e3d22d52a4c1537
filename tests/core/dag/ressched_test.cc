#include "core/dag/ressched.h"

#include <random>
#include <set>
#include <string>

#include "dag_test_util.h"
#include "gtest/gtest.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::Amdahl;
using testing::kHour;
using testing::kMinute;

const char* const kBottomLevels[] = {"1", "all", "cpa", "cpar"};
const char* const kBounds[] = {"all", "half", "cpa", "cpar"};

DagGraph ResschedGraph(const Dag& dag, int p) {
  absl::StatusOr<DagGraph> g = BuildDagGraph(dag, p);
  EXPECT_OK(g);
  return *g;
}

TEST(ResschedVariants, TheSixteenNamesOfThePaper) {
  std::set<std::string> names;
  for (const ResschedOptions& variant : ResschedVariants()) names.insert(ResschedName(variant));
  std::set<std::string> expected;
  for (const char* bl : kBottomLevels) {
    for (const char* bd : kBounds) expected.insert(absl::StrCat("bl_", bl, "_bd_", bd));
  }
  EXPECT_EQ(names, expected);
}

TEST(EarliestCompletionUpTo, MatchesABruteForceScanOfEveryWidth) {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 300; ++trial) {
    const int p = 4 + static_cast<int>(rng() % 30);
    const Timeline busy = testing::RandomTimeline(rng, p, 40, 24 * kHour);
    const Dag dag{{{"t", Amdahl(kMinute + static_cast<Duration>(rng() % (8 * kHour)),
                                (rng() % 100) / 400.0)}},
                  {}};
    const DagGraph g = ResschedGraph(dag, p);
    const int bound = 1 + static_cast<int>(rng() % p);
    const Time ready = static_cast<Time>(rng() % (20 * kHour));
    std::optional<TaskReservation> expected;
    for (int k = 1; k <= bound; ++k) {
      const Duration d = dag.tasks[0].model.TimeOn(k);
      const std::optional<Time> s = busy.EarliestStart(ready, d, k);
      if (s && (!expected || *s + d < expected->end)) expected = TaskReservation{k, *s, *s + d, {}};
    }
    const std::optional<TaskReservation> got =
        EarliestCompletionUpTo(g.widths[0], bound, busy, ready);
    ASSERT_EQ(got.has_value(), expected.has_value());
    if (!got) continue;
    EXPECT_EQ(got->end, expected->end);
    EXPECT_EQ(got->k, expected->k) << "ties go to fewer processors";
    EXPECT_EQ(got->start, expected->start);
  }
}

TEST(PlanRessched, PicksTheEarliestCompletionAroundAReservation) {
  // 4 processors; 3 are held for the first hour. A 4-hour sequential-time task with alpha = 0:
  // 1 processor now ends at 4 h; 4 processors after the hold end at 1 h + 1 h = 2 h.
  Timeline t(4);
  ASSERT_OK(t.Add(0, kHour, 3));
  const Dag dag{{{"t", Amdahl(4 * kHour, 0)}}, {}};
  ResschedOptions o;
  o.bottom_level = AllocationSource::kOne;
  o.bound = AllocationSource::kAll;
  absl::StatusOr<DagPlan> plan = PlanRessched(ResschedGraph(dag, 4), t, 0, o);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->tasks[0].k, 4);
  EXPECT_EQ(plan->tasks[0].start, kHour);
  EXPECT_EQ(plan->completion, 2 * kHour);
  EXPECT_DOUBLE_EQ(plan->cpu_hours, 4.0);
  // BD_HALF allows 2 processors: 1 now (4 h) or 2 after the hold (1 h + 2 h = 3 h).
  o.bound = AllocationSource::kHalf;
  plan = PlanRessched(ResschedGraph(dag, 4), t, 0, o);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->tasks[0].k, 2);
  EXPECT_EQ(plan->completion, 3 * kHour);
}

TEST(PlanRessched, EveryVariantGivesValidPlansWithinItsBound) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 12; ++trial) {
    const Dag dag = testing::RandomDag(rng, 25, 0.2, trial % 2 ? 5 * kMinute : 0);
    const int p = 16 + static_cast<int>(rng() % 100);
    const Timeline busy = testing::RandomTimeline(rng, p, 300, 72 * kHour);
    const DagGraph g = ResschedGraph(dag, p);
    const Time release = static_cast<Time>(rng() % (10 * kHour));
    for (ResschedOptions o : ResschedVariants()) {
      SCOPED_TRACE(ResschedName(o));
      o.q = p / 2;
      absl::StatusOr<DagPlan> plan = PlanRessched(g, busy, release, o);
      ASSERT_OK(plan);
      testing::ExpectValidPlan(dag, *plan, busy, release);
      const std::vector<int> bound = AllocationWidths(g, o.bound, o.q);
      for (int i = 0; i < g.size(); ++i) EXPECT_LE(plan->tasks[i].k, std::max(1, bound[i]));
    }
  }
}

TEST(PlanRessched, OnAnEmptyClusterBoundedByCpaIsNoWorseThanPlainCpaForAChain) {
  // A chain has no task parallelism: every variant runs each task as fast as its bound allows.
  Dag dag;
  for (int i = 0; i < 5; ++i) {
    dag.tasks.push_back({absl::StrCat("t", i), Amdahl((i + 1) * kHour, 0.05)});
    if (i > 0) dag.edges.push_back({i - 1, i, 0});
  }
  const Timeline empty(16);
  const DagGraph g = ResschedGraph(dag, 16);
  ResschedOptions bl_cpa_bd_all;
  bl_cpa_bd_all.bottom_level = AllocationSource::kCpa;
  bl_cpa_bd_all.bound = AllocationSource::kAll;
  absl::StatusOr<DagPlan> all = PlanRessched(g, empty, 0, bl_cpa_bd_all);
  absl::StatusOr<DagPlan> cpa = PlanCpa(g, empty, 0);
  ASSERT_OK(all);
  ASSERT_OK(cpa);
  EXPECT_LE(all->completion, cpa->completion);
  for (const TaskReservation& r : all->tasks) EXPECT_EQ(r.k, 16);
}

TEST(PlanRessched, AHoldThatNeverEndsIsResourceExhausted) {
  Timeline t(4);
  ASSERT_OK(t.Add(0, kTimeMax, 4));
  const Dag dag{{{"t", Amdahl(kHour, 0)}}, {}};
  absl::StatusOr<DagPlan> plan = PlanRessched(ResschedGraph(dag, 4), t, 0, {});
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(plan.status().message().find("'t'"), std::string::npos) << plan.status();
}

}  // namespace
}  // namespace resched
