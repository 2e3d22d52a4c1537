// HEFT (Topcuoglu, Hariri & Wu 2002): Fig. 3's published ranks and schedule, hand-checked small
// DAGs, the insertion policy against a brute-force gap scan on random DAGs around timeline
// reservations, and every plan through the validator and the processor-mapping check.
#include "core/dag/heft.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/workload/barbosa_workload.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

constexpr Duration kHeftSecond = kMicrosPerSecond;

RuntimeModel Seq(double seconds) {
  return RuntimeModel(AmdahlModel{static_cast<Duration>(seconds * kHeftSecond), 0.0, 1, 0});
}

struct Expected {
  int processor;
  double start;  // seconds
  double end;
};

void ExpectPlan(const DagPlan& plan, const std::vector<Expected>& expected) {
  ASSERT_EQ(plan.tasks.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("task ", i));
    const TaskReservation& t = plan.tasks[i];
    EXPECT_EQ(t.k, 1);
    EXPECT_EQ(t.processors, std::vector<int>{expected[i].processor});
    EXPECT_EQ(t.start, static_cast<Time>(expected[i].start * kHeftSecond));
    EXPECT_EQ(t.end, static_cast<Time>(expected[i].end * kHeftSecond));
  }
}

void ExpectValidHeft(const Dag& dag, const DagPlan& plan, int processors, const Timeline* timeline,
                     Time release) {
  const Timeline empty(processors);
  const Timeline& tl = timeline != nullptr ? *timeline : empty;
  EXPECT_OK(ValidateSchedule(MappedDagPlanToValidate(dag, plan, tl, release, false)));
  EXPECT_OK(ValidateProcessorMapping({&plan}, processors, timeline));
}

// Topcuoglu et al., Fig. 3 and Fig. 4(a): rank_u (Table 2 of the HEFT paper) and the HEFT schedule
// of length 80 on three processors.
TEST(HeftTest, TopcuogluFigure3) {
  const TopcuogluExample ex = TopcuogluFig3();
  const std::vector<double> ranks = UpwardRanks(ex.dag, ex.costs);
  const double expected_ranks[] = {108, 77, 80, 80, 69, 63.333, 42.667, 35.667, 44.333, 14.667};
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(ranks[i] / kHeftSecond, expected_ranks[i], 1e-3) << i;
  auto plan = HeftPlanWithCosts(ex.dag, ex.costs, 0, nullptr);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->completion, 80 * kHeftSecond);
  // Processors P1..P3 are ids 0..2.
  ExpectPlan(*plan, {{2, 0, 9},
                     {0, 27, 40},
                     {2, 9, 28},
                     {1, 18, 26},
                     {2, 28, 38},
                     {1, 26, 42},
                     {2, 38, 49},
                     {0, 57, 62},
                     {1, 56, 68},
                     {1, 73, 80}});
  ExpectValidHeft(ex.dag, *plan, 3, nullptr, 0);
}

// A chain stays on the fastest processor: no transfer, and it is twice as fast.
TEST(HeftTest, ChainOnTheFastProcessor) {
  Dag dag;
  dag.tasks = {{"a", Seq(10)}, {"b", Seq(20)}, {"c", Seq(4)}};
  dag.edges = {{0, 1, 3 * kHeftSecond}, {1, 2, 100 * kHeftSecond}};
  auto plan = HeftPlan(dag, {1.0, 2.0}, 0, nullptr);
  ASSERT_OK(plan);
  ExpectPlan(*plan, {{1, 0, 5}, {1, 5, 15}, {1, 15, 17}});
  EXPECT_EQ(plan->completion, 17 * kHeftSecond);
  EXPECT_NEAR(plan->cpu_hours, 17.0 / 3600, 1e-12);
  ExpectValidHeft(dag, *plan, 2, nullptr, 0);
}

// Fork-join on two equal processors. ranks: j 2, a 6+3+2 = 11, b 4+1+2 = 7, s 2+1+11 = 14. s: P0
// [0,2). a: P0 from 2 (P1 only at 3) -> [2,8). b: P0 busy until 8 -> [8,12); P1 ready at 3 ->
// [3,7). j: P0 ready max(8, 7+1) = 8 -> [8,10); P1 ready 8+3 = 11.
TEST(HeftTest, ForkJoin) {
  Dag dag;
  dag.tasks = {{"s", Seq(2)}, {"a", Seq(6)}, {"b", Seq(4)}, {"j", Seq(2)}};
  dag.edges = {{0, 1, 1 * kHeftSecond},
               {0, 2, 1 * kHeftSecond},
               {1, 3, 3 * kHeftSecond},
               {2, 3, 1 * kHeftSecond}};
  auto plan = HeftPlan(dag, {1.0, 1.0}, 0, nullptr);
  ASSERT_OK(plan);
  ExpectPlan(*plan, {{0, 0, 2}, {0, 2, 8}, {1, 3, 7}, {0, 8, 10}});
  ExpectValidHeft(dag, *plan, 2, nullptr, 0);
  // DagPlanToValidate alone charges the transfer between tasks on one processor; the mapped view
  // does not.
  EXPECT_FALSE(ValidateSchedule(DagPlanToValidate(dag, *plan, Timeline(2), 0)).ok());
}

// Two heterogeneous processors (speeds 1 and 1.25): costs s 4 / 3.2, a and b 12 / 9.6. s: P1
// [0,3.2). a: P1 [3.2,12.8) (P0 would end at 5.2 + 12). b: P0 [5.2,17.2) beats P1 [12.8,22.4).
TEST(HeftTest, TwoHeterogeneousProcessors) {
  Dag dag;
  dag.tasks = {{"s", Seq(4)}, {"a", Seq(12)}, {"b", Seq(12)}};
  dag.edges = {{0, 1, 2 * kHeftSecond}, {0, 2, 2 * kHeftSecond}};
  auto costs = CostsFromSpeeds(dag, {1.0, 1.25});
  ASSERT_OK(costs);
  EXPECT_EQ((*costs)[0], (std::vector<Duration>{4 * kHeftSecond, 3'200'000}));
  auto plan = HeftPlan(dag, {1.0, 1.25}, 0, nullptr);
  ASSERT_OK(plan);
  ExpectPlan(*plan, {{1, 0, 3.2}, {1, 3.2, 12.8}, {0, 5.2, 17.2}});
  ExpectValidHeft(dag, *plan, 2, nullptr, 0);
}

// Around reservations: free is 1 on [0,10) and [20,30), 2 elsewhere, so processor 1 is usable only
// on [10,20) and from 30. Four independent 6 s tasks (equal ranks, index order): a P0 [0,6), b P0
// [6,12), c P1 [10,16) (P0 would end at 18), d P0 [12,18) (P1 blocked at 20).
TEST(HeftTest, AroundTimelineReservations) {
  Timeline timeline(2);
  ASSERT_OK(timeline.Add(0, 10 * kHeftSecond, 1));
  ASSERT_OK(timeline.Add(20 * kHeftSecond, 30 * kHeftSecond, 1));
  Dag dag;
  for (const char* name : {"a", "b", "c", "d"}) dag.tasks.push_back({name, Seq(6)});
  auto plan = HeftPlan(dag, {1.0, 1.0}, 0, &timeline);
  ASSERT_OK(plan);
  ExpectPlan(*plan, {{0, 0, 6}, {0, 6, 12}, {1, 10, 16}, {0, 12, 18}});
  ExpectValidHeft(dag, *plan, 2, &timeline, 0);
}

TEST(HeftTest, ReleaseAndClusterSpeeds) {
  ClusterSpec spec{"c", {{"slow", 1, 1.0}, {"fast", 2, 4.0}}, ClockKind::kSimulated, "fcfs", {}};
  EXPECT_EQ(ProcessorSpeeds(spec), (std::vector<double>{1.0, 4.0, 4.0}));
  Dag dag;
  dag.tasks = {{"a", Seq(8)}};
  auto plan = HeftPlan(dag, ProcessorSpeeds(spec), 100 * kHeftSecond, nullptr);
  ASSERT_OK(plan);
  ExpectPlan(*plan, {{1, 100, 102}});
}

TEST(HeftTest, Errors) {
  Dag dag;
  dag.tasks = {{"a", Seq(1)}, {"b", Seq(1)}};
  EXPECT_EQ(HeftPlan(dag, {}, 0, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HeftPlan(dag, {1.0, 0.0}, 0, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
  Timeline three(3);
  EXPECT_EQ(HeftPlan(dag, {1.0, 1.0}, 0, &three).status().code(),
            absl::StatusCode::kInvalidArgument);
  dag.edges = {{0, 1, 0}, {1, 0, 0}};
  EXPECT_EQ(HeftPlan(dag, {1.0}, 0, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HeftPlan(Dag{}, {1.0}, 0, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  // A hold that never ends on the only processor.
  Timeline full(1);
  ASSERT_OK(full.Add(0, kTimeMax, 1));
  dag.edges.clear();
  EXPECT_EQ(HeftPlan(dag, {1.0}, 0, &full).status().code(), absl::StatusCode::kResourceExhausted);
}

// ---- Randomized: HEFT against a reference written the slow, obvious way. ----

struct RefTask {
  int proc = -1;
  Time start = 0;
  Time end = 0;
};

// Earliest s >= ready on processor j: candidates are ready, the ends of j's tasks and the
// timeline's breakpoints; each is checked by scanning everything.
Time ReferenceSlot(const std::vector<RefTask>& placed, int j, Time ready, Duration d,
                   const Timeline& timeline, Time horizon) {
  std::vector<Time> cand{ready};
  for (const RefTask& t : placed) {
    if (t.proc == j && t.end >= ready) cand.push_back(t.end);
  }
  timeline.ForEachStep(ready, horizon, [&](const TimelineStep& s) { cand.push_back(s.start); });
  std::sort(cand.begin(), cand.end());
  for (Time s : cand) {
    bool ok = true;
    for (const RefTask& t : placed) {
      if (t.proc == j && t.start < t.end && t.start < s + d && s < t.end) ok = false;
    }
    if (d > 0) {
      timeline.ForEachStep(s, s + d, [&](const TimelineStep& st) {
        if (st.free <= j) ok = false;
      });
    }
    if (ok) return s;
  }
  return kTimeMax;
}

std::vector<RefTask> ReferenceHeft(const Dag& dag, const TaskCosts& costs, Time release,
                                   const Timeline& timeline, Time horizon) {
  const int n = static_cast<int>(dag.tasks.size());
  const int m = static_cast<int>(costs[0].size());
  // rank_u by repeated relaxation (n passes), no topological order needed.
  std::vector<double> rank(n, 0);
  for (int pass = 0; pass <= n; ++pass) {
    for (int i = 0; i < n; ++i) {
      double mean = 0;
      for (Duration c : costs[i]) mean += static_cast<double>(c) / m;
      double tail = 0;
      for (const Edge& e : dag.edges) {
        if (e.from == i) tail = std::max(tail, static_cast<double>(e.transfer) + rank[e.to]);
      }
      rank[i] = mean + tail;
    }
  }
  const std::vector<int> topo = *TopologicalOrder(dag);
  std::vector<int> pos(n);
  for (int p = 0; p < n; ++p) pos[topo[p]] = p;
  std::vector<int> prio = topo;
  std::stable_sort(prio.begin(), prio.end(), [&](int a, int b) {
    return rank[a] != rank[b] ? rank[a] > rank[b] : pos[a] < pos[b];
  });
  std::vector<RefTask> out(n);
  std::vector<RefTask> placed;
  for (int i : prio) {
    RefTask best;
    best.end = kTimeMax;
    for (int j = 0; j < m; ++j) {
      Time ready = release;
      for (const Edge& e : dag.edges) {
        if (e.to == i) {
          ready = std::max(ready, out[e.from].end + (out[e.from].proc == j ? 0 : e.transfer));
        }
      }
      const Time s = ReferenceSlot(placed, j, ready, costs[i][j], timeline, horizon);
      if (s != kTimeMax && s + costs[i][j] < best.end) best = {j, s, s + costs[i][j]};
    }
    out[i] = best;
    placed.push_back(best);
  }
  return out;
}

TEST(HeftTest, InsertionMatchesBruteForceOnRandomDags) {
  std::mt19937_64 rng(7);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const double speed_choices[] = {0.5, 1.0, 1.5, 2.0};
  for (int trial = 0; trial < 400; ++trial) {
    SCOPED_TRACE(absl::StrCat("trial ", trial));
    const int n = uniform(1, 9);
    const int m = uniform(1, 3);
    Dag dag;
    for (int i = 0; i < n; ++i) {
      dag.tasks.push_back(
          {absl::StrCat("t", i),
           RuntimeModel(AmdahlModel{uniform(0, 10) * 1000 + uniform(1, 999), 0.0, 1, 0})});
    }
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (uniform(0, 2) == 0) dag.edges.push_back({a, b, uniform(0, 4) * 1000});
      }
    }
    std::vector<double> speeds;
    for (int j = 0; j < m; ++j) speeds.push_back(speed_choices[uniform(0, 3)]);
    Timeline timeline(m);
    const bool with_timeline = trial % 2 == 1;
    if (with_timeline) {
      for (int h = uniform(0, 6); h > 0; --h) {
        const Time s = uniform(0, 40) * 1000;
        (void)timeline.Add(s, s + uniform(1, 15) * 1000, uniform(1, m));
      }
    }
    const Time release = uniform(0, 3) * 1000;
    auto costs = CostsFromSpeeds(dag, speeds);
    ASSERT_OK(costs);
    auto plan = HeftPlanWithCosts(dag, *costs, release, with_timeline ? &timeline : nullptr);
    ASSERT_OK(plan);
    const auto ref = ReferenceHeft(dag, *costs, release, timeline, 1'000'000'000);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(plan->tasks[i].processors, std::vector<int>{ref[i].proc}) << i;
      EXPECT_EQ(plan->tasks[i].start, ref[i].start) << i;
      EXPECT_EQ(plan->tasks[i].end, ref[i].end) << i;
      EXPECT_EQ(plan->tasks[i].end - plan->tasks[i].start,
                (*costs)[i][plan->tasks[i].processors[0]]);
    }
    ExpectValidHeft(dag, *plan, m, with_timeline ? &timeline : nullptr, release);
  }
}

// Barbosa §5.3: HEFT uses few processors of a 20-processor machine; plans stay valid.
TEST(HeftTest, BarbosaDagsOnTwentyProcessors) {
  const std::vector<double> speeds(20, 1.0);
  for (int tasks : {10, 30, 90}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const Dag dag = tasks == 10 ? BarbosaTopcuogluDag(seed) : BarbosaRandomDag(tasks, seed);
      auto plan = HeftPlan(dag, speeds, 0, nullptr);
      ASSERT_OK(plan);
      // Homogeneous reference processors: durations are the models' TimeOn(1).
      EXPECT_OK(ValidateSchedule(MappedDagPlanToValidate(dag, *plan, Timeline(20), 0, true)));
      EXPECT_OK(ValidateProcessorMapping({&*plan}, 20, nullptr));
    }
  }
}

}  // namespace
}  // namespace resched
