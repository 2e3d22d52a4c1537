#include "core/dag/resscheddl.h"

#include <random>

#include "dag_test_util.h"
#include "gtest/gtest.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::Amdahl;
using testing::kHour;
using testing::kMinute;

const char* const kNames[] = {"dl_bd_all", "dl_bd_cpa", "dl_bd_cpar", "dl_rc_cpa", "dl_rc_cpar"};

DagGraph Graph(const Dag& dag, int p) {
  absl::StatusOr<DagGraph> g = BuildDagGraph(dag, p);
  EXPECT_OK(g);
  return *g;
}

TEST(ParseResschedDlName, AcceptsTheFiveNamesOnly) {
  for (const char* name : kNames) EXPECT_OK(ParseResschedDlName(name)) << name;
  EXPECT_FALSE(ParseResschedDlName("dl_rc_all").ok());
  EXPECT_FALSE(ParseResschedDlName("dl_bd_half").ok());
}

TEST(PlanByDeadline, ASingleTaskEndsExactlyAtTheDeadlineWhenFree) {
  const Timeline empty(8);
  const Dag dag{{{"t", Amdahl(8 * kHour, 0)}}, {}};
  ResschedDlOptions o = *ParseResschedDlName("dl_bd_all");
  std::optional<DagPlan> plan = PlanByDeadline(Graph(dag, 8), empty, 0, 10 * kHour, o);
  ASSERT_TRUE(plan);
  // Aggressive: the latest start is on 8 processors (1 hour long): 9 h.
  EXPECT_EQ(plan->tasks[0].k, 8);
  EXPECT_EQ(plan->tasks[0].start, 9 * kHour);
  // Resource conservative with a loose deadline: one processor, 8 hours, from 2 h.
  o = *ParseResschedDlName("dl_rc_cpar");
  plan = PlanByDeadline(Graph(dag, 8), empty, 0, 10 * kHour, o);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->tasks[0].k, 1);
  EXPECT_EQ(plan->tasks[0].end, 10 * kHour);
  // Too tight for any width: 8 processors need 1 hour.
  EXPECT_FALSE(PlanByDeadline(Graph(dag, 8), empty, 0, kHour - 1, o));
}

TEST(PlanByDeadline, EveryVariantMeetsTheDeadlineItAccepts) {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 10; ++trial) {
    const Dag dag = testing::RandomDag(rng, 20, 0.2, trial % 2 ? 5 * kMinute : 0);
    const int p = 16 + static_cast<int>(rng() % 64);
    const Timeline busy = testing::RandomTimeline(rng, p, 200, 72 * kHour);
    const DagGraph g = Graph(dag, p);
    const Time release = kHour;
    for (const char* name : kNames) {
      ResschedDlOptions o = *ParseResschedDlName(name);
      o.q = p / 2;
      for (Time deadline : {release + 20 * kHour, release + 60 * kHour, release + 400 * kHour}) {
        std::optional<DagPlan> plan = PlanByDeadline(g, busy, release, deadline, o);
        if (!plan) continue;
        testing::ExpectValidPlan(dag, *plan, busy, release, deadline);
      }
    }
  }
}

TEST(FindTightestDeadline, IsMetAndNotBelowTheCriticalPath) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    const Dag dag = testing::RandomDag(rng, 15);
    const int p = 32;
    const Timeline busy = testing::RandomTimeline(rng, p, 100, 48 * kHour);
    const DagGraph g = Graph(dag, p);
    for (const char* name : kNames) {
      ResschedDlOptions o = *ParseResschedDlName(name);
      o.q = 20;
      absl::StatusOr<TightestDeadline> t = FindTightestDeadline(g, busy, 0, o);
      ASSERT_OK(t);
      EXPECT_GE(t->deadline, CriticalPathBound(g, 0));
      EXPECT_EQ(t->deadline, t->plan.completion);
      testing::ExpectValidPlan(dag, t->plan, busy, 0, t->deadline);
      EXPECT_FALSE(PlanByDeadline(g, busy, 0, CriticalPathBound(g, 0) - 1, o));
      // Bisection to 1 s: a deadline a little under what was met fails or was not probed; the
      // plan for the found deadline exists again on a fresh run.
      EXPECT_TRUE(PlanByDeadline(g, busy, 0, t->deadline, o)) << name;
    }
  }
}

TEST(PlanByDeadline, ResourceConservativeSpendsFarLessThanAggressiveOnALooseDeadline) {
  std::mt19937_64 rng(17);
  double rc = 0;
  double all = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const Dag dag = testing::RandomDag(rng, 30);
    const int p = 64;
    const Timeline busy = testing::RandomTimeline(rng, p, 100, 48 * kHour);
    const DagGraph g = Graph(dag, p);
    ResschedDlOptions aggressive = *ParseResschedDlName("dl_bd_all");
    ResschedDlOptions conservative = *ParseResschedDlName("dl_rc_cpar");
    conservative.q = 40;
    // §5.3's loose deadline: 1.5 times the latest of the algorithms' tightest deadlines.
    absl::StatusOr<TightestDeadline> tight_a = FindTightestDeadline(g, busy, 0, aggressive);
    absl::StatusOr<TightestDeadline> tight_c = FindTightestDeadline(g, busy, 0, conservative);
    ASSERT_OK(tight_a);
    ASSERT_OK(tight_c);
    const Time loose = std::max(tight_a->deadline, tight_c->deadline) * 3 / 2;
    std::optional<DagPlan> a = PlanByDeadline(g, busy, 0, loose, aggressive);
    std::optional<DagPlan> c = PlanByDeadline(g, busy, 0, loose, conservative);
    ASSERT_TRUE(a) << trial;
    ASSERT_TRUE(c) << trial;
    all += a->cpu_hours;
    rc += c->cpu_hours;
  }
  EXPECT_LT(rc * 3, all) << "rc " << rc << " all " << all;
}

}  // namespace
}  // namespace resched
