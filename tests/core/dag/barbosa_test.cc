// Barbosa & Monteiro §4 (Algorithms 1 and 2) and §5 (workloads, Table 2 and Table 3 settings): task
// times on heterogeneous processors, hand-checked placements and b-level corrections, what Alg. 1
// guarantees for shares, the master DAG, random multi-user runs through the validator, and
// parallel-task schedules against HEFT.
#include "core/dag/barbosa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dag/heft.h"
#include "core/workload/barbosa_workload.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

constexpr Duration kBarbosaSecond = kMicrosPerSecond;

RuntimeModel Amdahl(double t1_seconds, double alpha = 0) {
  return RuntimeModel(AmdahlModel{static_cast<Duration>(t1_seconds * kBarbosaSecond), alpha, 1, 0});
}

// All jobs' plans as one schedule: items in job order, the jobs' edges, the master DAG's
// precedences (every exit task before every entry task), the timeline's reservations as holds.
ScheduleToValidate Merge(const std::vector<BarbosaJob>& jobs,
                         const std::vector<JobPrecedence>& master, const BarbosaResult& result,
                         const Timeline& timeline, Time release, bool check_durations) {
  ScheduleToValidate s;
  s.capacity = timeline.capacity();
  std::vector<int> offset{0};
  Time from = kTimeMax;
  Time to = kTimeMin;
  for (std::size_t u = 0; u < jobs.size(); ++u) {
    const ScheduleToValidate one =
        DagPlanToValidate(jobs[u].dag, result.plans[u], timeline, release);
    for (ScheduledItem item : one.items) {
      if (!check_durations) item.model = nullptr;
      item.id = absl::StrCat(u, ":", item.id);
      from = std::min(from, item.allocation.start);
      to = std::max(to, item.allocation.end);
      s.items.push_back(item);
    }
    for (PrecedenceConstraint p : one.precedences) {
      p.before += offset.back();
      p.after += offset.back();
      s.precedences.push_back(p);
    }
    offset.push_back(offset.back() + static_cast<int>(jobs[u].dag.tasks.size()));
  }
  for (const JobPrecedence& mp : master) {
    const Dag& a = jobs[mp.before].dag;
    const Dag& b = jobs[mp.after].dag;
    for (int x = 0; x < static_cast<int>(a.tasks.size()); ++x) {
      for (int y = 0; y < static_cast<int>(b.tasks.size()); ++y) {
        s.precedences.push_back({offset[mp.before] + x, offset[mp.after] + y, 0});
      }
    }
  }
  if (from < to) {
    timeline.ForEachStep(from, to, [&](const TimelineStep& step) {
      if (step.free < s.capacity) s.holds.push_back({s.capacity - step.free, step.start, step.end});
    });
  }
  return s;
}

// Every task lasts BarbosaTaskTime on the processors it got.
void ExpectDurations(const std::vector<BarbosaJob>& jobs, const BarbosaResult& result,
                     const std::vector<double>& speeds) {
  for (std::size_t u = 0; u < jobs.size(); ++u) {
    for (std::size_t i = 0; i < jobs[u].dag.tasks.size(); ++i) {
      const TaskReservation& t = result.plans[u].tasks[i];
      double sum = 0;
      for (int j : t.processors) sum += speeds[j];
      EXPECT_EQ(t.end - t.start, BarbosaTaskTime(jobs[u].dag.tasks[i].model, t.k, sum))
          << u << ":" << i;
    }
  }
}

void ExpectValidBarbosa(const std::vector<BarbosaJob>& jobs,
                        const std::vector<JobPrecedence>& master, const BarbosaResult& result,
                        const std::vector<double>& speeds, const Timeline* timeline, Time release) {
  const int m = static_cast<int>(speeds.size());
  const Timeline empty(m);
  const Timeline& tl = timeline != nullptr ? *timeline : empty;
  const bool homogeneous_reference =
      std::all_of(speeds.begin(), speeds.end(), [](double s) { return s == 1.0; });
  const auto status =
      ValidateSchedule(Merge(jobs, master, result, tl, release, homogeneous_reference));
  EXPECT_OK(status);
  std::vector<const DagPlan*> plans;
  for (const DagPlan& p : result.plans) plans.push_back(&p);
  const auto mapping = ValidateProcessorMapping(plans, m, timeline);
  EXPECT_OK(mapping);
  ExpectDurations(jobs, result, speeds);
}

// ---- Task times (§3, eq. (1)). ----

TEST(BarbosaTest, TaskTimeOnHeterogeneousProcessors) {
  CommunicationModel c;
  c.flops = 8e9;
  c.matrix_size = 1000;
  c.latency_s = 0.001;
  c.bandwidth = 1e6;
  c.processor_speed = 1e9;
  const RuntimeModel model(c);
  // Reference processors: exactly the model.
  for (int p = 1; p <= 6; ++p) EXPECT_EQ(BarbosaTaskTime(model, p, p), model.TimeOn(p)) << p;
  // 2 x 2 grid of speeds summing to 8: 8e9 / 8e9 s + 1 ms + 1e6 * 2 / 1e6 s.
  EXPECT_EQ(BarbosaTaskTime(model, 4, 8.0), 1 * kBarbosaSecond + 1000 + 2 * kBarbosaSecond);
  // One processor twice as fast: no communication.
  EXPECT_EQ(BarbosaTaskTime(model, 1, 2.0), 4 * kBarbosaSecond);
  // Other models: TimeOn(p) * p / sum of speeds.
  EXPECT_EQ(BarbosaTaskTime(Amdahl(12), 3, 6.0), 2 * kBarbosaSecond);  // 4 s * 3 / 6
  EXPECT_EQ(BarbosaTaskTime(RuntimeModel(RigidModel{2, 10 * kBarbosaSecond}), 2, 4.0),
            5 * kBarbosaSecond);
}

// ---- Algorithm 2, lines 1-5. ----

// Alone on the machine a task gets S' = S*: all processors while its time decreases.
TEST(BarbosaTest, SingleTaskTakesItsOptimalCapacity) {
  Dag dag;
  dag.tasks = {{"a", Amdahl(8)}};
  auto plan = BarbosaPlan(dag, std::vector<double>(4, 1.0), 5 * kBarbosaSecond, nullptr);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->tasks[0].processors, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(plan->tasks[0].start, 5 * kBarbosaSecond);
  EXPECT_EQ(plan->tasks[0].end, 7 * kBarbosaSecond);
}

// Non-monotonic eq. (1): the task stops at the width minimizing its time, not at the machine.
TEST(BarbosaTest, StopsWhereTheTimeStopsDecreasing) {
  const Dag dag = BarbosaTopcuogluDag(3);
  int best = 1;
  for (int p = 1; p <= 20; ++p) {
    if (dag.tasks[0].model.TimeOn(p) < dag.tasks[0].model.TimeOn(best)) best = p;
  }
  Dag one;
  one.tasks = {dag.tasks[0]};
  auto plan = BarbosaPlan(one, std::vector<double>(20, 1.0), 0, nullptr);
  ASSERT_OK(plan);
  // Lines 3-5 stop at the first width whose time does not decrease.
  int first_min = 1;
  while (first_min < 20 &&
         dag.tasks[0].model.TimeOn(first_min + 1) < dag.tasks[0].model.TimeOn(first_min)) {
    ++first_min;
  }
  EXPECT_EQ(plan->tasks[0].k, first_min);
  EXPECT_LT(first_min, 20);
  EXPECT_GE(dag.tasks[0].model.TimeOn(first_min), dag.tasks[0].model.TimeOn(best));
}

// Heterogeneous: the fastest processors first, whatever their ids.
TEST(BarbosaTest, FastestProcessorsFirst) {
  Dag dag;
  dag.tasks = {{"r", RuntimeModel(RigidModel{2, 10 * kBarbosaSecond})}};
  const std::vector<double> speeds{1, 2, 1, 2};
  auto plan = BarbosaPlan(dag, speeds, 0, nullptr);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->tasks[0].processors, (std::vector<int>{1, 3}));
  EXPECT_EQ(plan->tasks[0].end, 5 * kBarbosaSecond);  // 10 s * 2 / (2 + 2)
}

// A busy machine: starting later on more processors can finish earlier (§4, lines 3-5).
TEST(BarbosaTest, StartsLaterWhenThatFinishesEarlier) {
  Timeline timeline(4);
  ASSERT_OK(timeline.Add(0, 1 * kBarbosaSecond, 3));  // only processor 0 free on [0, 1)
  Dag dag;
  dag.tasks = {{"a", Amdahl(8)}};
  auto plan = BarbosaPlan(dag, std::vector<double>(4, 1.0), 0, &timeline);
  ASSERT_OK(plan);
  // At 0: one processor, ends at 8. At 1: four, ends at 3.
  EXPECT_EQ(plan->tasks[0].k, 4);
  EXPECT_EQ(plan->tasks[0].start, 1 * kBarbosaSecond);
  EXPECT_EQ(plan->tasks[0].end, 3 * kBarbosaSecond);
  std::vector<BarbosaJob> jobs{{dag, 0, ""}};
  BarbosaResult r;
  r.plans = {*plan};
  ExpectValidBarbosa(jobs, {}, r, std::vector<double>(4, 1.0), &timeline, 0);
}

// ---- Algorithm 2, lines 6-14: the b-level correction. ----

// a and b (16 s of perfectly parallel work each) are ready together on 8 processors; a has a 10 s
// successor. Alg. 1 gives each S' = 4: both [0, 4), b-levels 14 and 4. Moving one of b's processors
// to a: 3.2 + 10 = 13.2 and 5.33 -> kept; again: 12.67 and 8 -> kept; again: 12.29 and 16 > 12.67
// -> refused, b is the only donor: stop.
TEST(BarbosaTest, CorrectionMovesProcessorsToTheCriticalTask) {
  Dag dag;
  dag.tasks = {{"a", Amdahl(16)},
               {"b", Amdahl(16)},
               {"c", RuntimeModel(RigidModel{1, 10 * kBarbosaSecond})}};
  dag.edges = {{0, 2, 0}};
  std::vector<BarbosaJob> jobs{{dag, 0, "u"}};
  const std::vector<double> speeds(8, 1.0);
  auto result = BarbosaSchedule(jobs, {}, speeds, 0, nullptr);
  ASSERT_OK(result);
  ASSERT_EQ(result->rounds.size(), 2u);
  const BarbosaRound& r0 = result->rounds[0];
  ASSERT_EQ(r0.entries.size(), 2u);
  for (const auto& e : r0.entries) {
    EXPECT_DOUBLE_EQ(e.optimal_capacity, 8);
    EXPECT_DOUBLE_EQ(e.target_capacity, 4);
    EXPECT_DOUBLE_EQ(e.placed_capacity, 4);
  }
  EXPECT_DOUBLE_EQ(r0.entries[0].final_capacity, 6);
  EXPECT_DOUBLE_EQ(r0.entries[1].final_capacity, 2);
  EXPECT_EQ(r0.correction_moves, 2);
  const DagPlan& plan = result->plans[0];
  EXPECT_EQ(plan.tasks[0].processors, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(plan.tasks[0].end, 2'666'667);
  EXPECT_EQ(plan.tasks[1].processors, (std::vector<int>{6, 7}));
  EXPECT_EQ(plan.tasks[1].end, 8 * kBarbosaSecond);
  EXPECT_EQ(plan.tasks[2].start, 2'666'667);
  EXPECT_EQ(plan.tasks[2].k, 1);
  ExpectValidBarbosa(jobs, {}, *result, speeds, nullptr, 0);
  // Without the correction: both keep 4 processors, c ends at 14.
  BarbosaOptions off;
  off.correction = false;
  auto plain = BarbosaSchedule(jobs, {}, speeds, 0, nullptr, off);
  ASSERT_OK(plain);
  EXPECT_EQ(plain->plans[0].completion, 14 * kBarbosaSecond);
  EXPECT_LT(result->plans[0].completion, plain->plans[0].completion);
}

// ---- Algorithm 1: shares. ----

// User A (share 0.5 of 20 processors) and user B (no share) each have 5 independent tasks that
// would use the whole machine. A's S' = 10 / 5 = 2 each, B gets what A left: 10 / 5 = 2 each. The
// S' are whole processors and all tasks are in one round, so A never holds more than 10 processors
// at any instant.
TEST(BarbosaTest, ShareCapsAUserWhenOthersCompete) {
  Dag dag;
  for (int i = 0; i < 5; ++i) dag.tasks.push_back({absl::StrCat("t", i), Amdahl(20)});
  std::vector<BarbosaJob> jobs{{dag, 0.5, "A"}, {dag, 0, "B"}};
  const std::vector<double> speeds(20, 1.0);
  auto result = BarbosaSchedule(jobs, {}, speeds, 0, nullptr);
  ASSERT_OK(result);
  for (const auto& e : result->rounds[0].entries) EXPECT_DOUBLE_EQ(e.target_capacity, 2);
  for (const TaskReservation& t : result->plans[0].tasks) {
    EXPECT_EQ(t.k, 2);
    EXPECT_EQ(t.start, 0);
    EXPECT_EQ(t.end, 10 * kBarbosaSecond);
  }
  // Per-instant use of user A.
  for (Time t = 0; t < 20 * kBarbosaSecond; t += kBarbosaSecond / 2) {
    int used = 0;
    for (const TaskReservation& r : result->plans[0].tasks) {
      if (r.start <= t && t < r.end) used += r.k;
    }
    EXPECT_LE(used, 10) << t;
  }
  ExpectValidBarbosa(jobs, {}, *result, speeds, nullptr, 0);
}

// The paper's "rounding effects" (§5.4, 13 processors for a 12-processor reservation): lines 3-5
// add a processor while S < S', so each task may exceed S' by less than one processor. A has 5
// tasks and a 0.6 share (12 processors): S' = 2.4 each, 3 processors each, 15 in all.
TEST(BarbosaTest, ShareIsExceededByLessThanOneProcessorPerTask) {
  Dag dag;
  for (int i = 0; i < 5; ++i) dag.tasks.push_back({absl::StrCat("t", i), Amdahl(20)});
  std::vector<BarbosaJob> jobs{{dag, 0.6, "A"}, {dag, 0, "B"}};
  const std::vector<double> speeds(20, 1.0);
  auto result = BarbosaSchedule(jobs, {}, speeds, 0, nullptr);
  ASSERT_OK(result);
  double a_target = 0;
  double a_final = 0;
  for (const auto& e : result->rounds[0].entries) {
    if (e.job != 0) continue;
    EXPECT_NEAR(e.target_capacity, 2.4, 1e-9);
    a_target += e.target_capacity;
    a_final += e.final_capacity;
  }
  EXPECT_NEAR(a_target, 12, 1e-9);
  EXPECT_DOUBLE_EQ(a_final, 15);
  ExpectValidBarbosa(jobs, {}, *result, speeds, nullptr, 0);
}

// What Alg. 1 + 2 guarantee, on random multi-user runs (heterogeneous speeds, reservations, master
// DAG): per round and per user with a share, sum S' <= S_limit; each task's capacity <= S' + s_max
// (width 1 allowed); the correction keeps each pool's total; plans valid.
TEST(BarbosaTest, RandomMultiUserRunsKeepTheRoundBudgets) {
  std::mt19937_64 rng(11);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const double speed_choices[] = {0.5, 1.0, 1.0, 2.0};
  int overshoot_rounds = 0;
  for (int trial = 0; trial < 120; ++trial) {
    SCOPED_TRACE(absl::StrCat("trial ", trial));
    const int m = uniform(1, 12);
    std::vector<double> speeds;
    for (int j = 0; j < m; ++j)
      speeds.push_back(trial % 3 == 0 ? 1.0 : speed_choices[uniform(0, 3)]);
    const double s_max = std::accumulate(speeds.begin(), speeds.end(), 0.0);
    const double fastest = *std::max_element(speeds.begin(), speeds.end());
    const int num_jobs = uniform(1, 4);
    std::vector<BarbosaJob> jobs;
    double share_left = 1;
    for (int u = 0; u < num_jobs; ++u) {
      BarbosaJob job;
      job.user = absl::StrCat("user", u);
      if (uniform(0, 1) == 1) {
        job.share = std::min(share_left, uniform(1, 6) / 10.0);
        share_left -= job.share;
      }
      if (uniform(0, 1) == 0) {
        job.dag = BarbosaRandomDag(uniform(9, 20), rng());
      } else {
        const int n = uniform(1, 7);
        for (int i = 0; i < n; ++i) {
          job.dag.tasks.push_back(
              {absl::StrCat("t", i), Amdahl(uniform(1, 30) / 10.0, uniform(0, 3) / 10.0)});
        }
        for (int a = 0; a < n; ++a) {
          for (int b = a + 1; b < n; ++b) {
            if (uniform(0, 2) == 0) job.dag.edges.push_back({a, b, uniform(0, 5) * 100'000});
          }
        }
      }
      jobs.push_back(std::move(job));
    }
    std::vector<JobPrecedence> master;
    for (int u = 1; u < num_jobs; ++u) {
      if (uniform(0, 2) == 0) master.push_back({uniform(0, u - 1), u});
    }
    Timeline timeline(m);
    const bool with_timeline = uniform(0, 1) == 1;
    if (with_timeline) {
      for (int h = uniform(0, 5); h > 0; --h) {
        const Time s = uniform(0, 30) * 100'000;
        (void)timeline.Add(s, s + uniform(1, 20) * 100'000, uniform(1, m));
      }
    }
    BarbosaOptions options;
    options.sum_incoming_transfers = uniform(0, 1) == 1;
    const Time release = uniform(0, 5) * 100'000;
    auto result = BarbosaSchedule(jobs, master, speeds, release,
                                  with_timeline ? &timeline : nullptr, options);
    ASSERT_OK(result);
    ExpectValidBarbosa(jobs, master, *result, speeds, with_timeline ? &timeline : nullptr, release);
    for (const BarbosaRound& round : result->rounds) {
      std::map<int, double> target, placed, final_cap;
      std::map<int, int> count;
      for (const auto& e : round.entries) {
        // Jobs of users without a share all share pool -1.
        const int pool = jobs[e.job].share > 0 ? e.job : -1;
        target[pool] += e.target_capacity;
        placed[pool] += e.placed_capacity;
        final_cap[pool] += e.final_capacity;
        ++count[pool];
        EXPECT_LE(e.target_capacity, e.optimal_capacity + 1e-9);
        EXPECT_LE(e.placed_capacity, e.target_capacity + fastest + 1e-9);
      }
      for (const auto& [pool, t] : target) {
        EXPECT_NEAR(placed[pool], final_cap[pool],
                    1e-9);  // moves stay inside a pool
        if (pool < 0) continue;
        const double limit = jobs[pool].share * s_max;
        EXPECT_LE(t, limit + 1e-9);
        EXPECT_LE(final_cap[pool], limit + count[pool] * fastest + 1e-9);
        if (final_cap[pool] > limit + 1e-9) ++overshoot_rounds;
      }
      EXPECT_LT(round.correction_moves, round.correction_iterations + 1);
    }
  }
  std::printf("rounds where a user's placed capacity exceeded S_limit (rounding): %d\n",
              overshoot_rounds);
}

// §5.4, Table 3's setting: user 1 reserves 12 of 20 processors for a small job, user 2 runs a
// bigger one. With global management user 2 also uses what user 1 leaves idle.
TEST(BarbosaTest, GlobalManagementAgainstExclusiveUse) {
  const BarbosaWorkloadOptions wo;
  int user2_better = 0;
  const int seeds = 10;
  double ex1 = 0, ex2 = 0, gl1 = 0, gl2 = 0;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    const Dag d1 = BarbosaTopcuogluDag(seed, wo);
    const Dag d2 = BarbosaRandomDag(30, seed + 100, wo);
    auto exclusive1 = BarbosaPlan(d1, std::vector<double>(12, 1.0), 0, nullptr);
    auto exclusive2 = BarbosaPlan(d2, std::vector<double>(8, 1.0), 0, nullptr);
    std::vector<BarbosaJob> jobs{{d1, 0.6, "user1"}, {d2, 0, "user2"}};
    const std::vector<double> speeds(20, 1.0);
    auto global = BarbosaSchedule(jobs, {}, speeds, 0, nullptr);
    ASSERT_OK(exclusive1);
    ASSERT_OK(exclusive2);
    ASSERT_OK(global);
    ExpectValidBarbosa(jobs, {}, *global, speeds, nullptr, 0);
    ex1 += exclusive1->completion / 1e6;
    ex2 += exclusive2->completion / 1e6;
    gl1 += global->plans[0].completion / 1e6;
    gl2 += global->plans[1].completion / 1e6;
    if (global->plans[1].completion <= exclusive2->completion) ++user2_better;
  }
  std::printf(
      "Table 3 setting, mean over %d seeds (s): user1 exclusive %.3f "
      "global %.3f; user2 "
      "exclusive %.3f global %.3f; user2 not worse in %d\n",
      seeds, ex1 / seeds, gl1 / seeds, ex2 / seeds, gl2 / seeds, user2_better);
  EXPECT_GE(user2_better, seeds * 7 / 10);
}

// ---- Master DAG. ----

TEST(BarbosaTest, MasterDagOrdersJobs) {
  Dag a;
  a.tasks = {{"x", Amdahl(4)}, {"y", Amdahl(2)}};
  a.edges = {{0, 1, kBarbosaSecond}};
  Dag b;
  b.tasks = {{"z", Amdahl(1)}};
  std::vector<BarbosaJob> jobs{{a, 0, "p"}, {b, 0, "q"}};
  std::vector<JobPrecedence> master{{0, 1}};
  const std::vector<double> speeds(2, 1.0);
  auto result = BarbosaSchedule(jobs, master, speeds, 0, nullptr);
  ASSERT_OK(result);
  // x on 2 processors [0, 2), y after 1 s of transfer [3, 4), z after y.
  EXPECT_EQ(result->plans[0].tasks[0].end, 2 * kBarbosaSecond);
  EXPECT_EQ(result->plans[0].tasks[1].start, 3 * kBarbosaSecond);
  EXPECT_EQ(result->plans[1].tasks[0].start, result->plans[0].completion);
  ExpectValidBarbosa(jobs, master, *result, speeds, nullptr, 0);
  // Without the precedence z runs with x.
  auto free_run = BarbosaSchedule(jobs, {}, speeds, 0, nullptr);
  ASSERT_OK(free_run);
  EXPECT_LT(free_run->plans[1].tasks[0].start, 2 * kBarbosaSecond);
}

// Incoming transfers: summed (§5.4) or the usual maximum.
TEST(BarbosaTest, IncomingTransfersSumOrMax) {
  Dag dag;
  dag.tasks = {{"a", Amdahl(1)}, {"b", Amdahl(1)}, {"c", Amdahl(1)}};
  dag.edges = {{0, 2, 2 * kBarbosaSecond}, {1, 2, 3 * kBarbosaSecond}};
  const std::vector<double> speeds(2, 1.0);
  // a and b run side by side on one processor each, [0, 1).
  BarbosaOptions sum;
  sum.sum_incoming_transfers = true;
  auto summed = BarbosaPlan(dag, speeds, 0, nullptr, sum);
  ASSERT_OK(summed);
  EXPECT_EQ(summed->tasks[2].start, 6 * kBarbosaSecond);
  auto maxed = BarbosaPlan(dag, speeds, 0, nullptr);
  ASSERT_OK(maxed);
  EXPECT_EQ(maxed->tasks[2].start, 4 * kBarbosaSecond);
}

TEST(BarbosaTest, Errors) {
  Dag dag;
  dag.tasks = {{"a", Amdahl(1)}};
  const std::vector<double> speeds(2, 1.0);
  auto code = [&](std::vector<BarbosaJob> jobs, std::vector<JobPrecedence> master) {
    return BarbosaSchedule(jobs, master, speeds, 0, nullptr).status().code();
  };
  EXPECT_EQ(code({{dag, 1.5, "a"}}, {}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{dag, 0.6, "a"}, {dag, 0.6, "b"}}, {}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{dag, 0.3, "a"}, {dag, 0.4, "a"}}, {}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{dag, 0, "a"}, {dag, 0, "b"}}, {{0, 1}, {1, 0}}),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{dag, 0, "a"}}, {{0, 3}}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{Dag{}, 0, "a"}}, {}), absl::StatusCode::kInvalidArgument);
  EXPECT_OK(BarbosaSchedule({}, {}, speeds, 0, nullptr));
  EXPECT_EQ(BarbosaPlan(dag, {}, 0, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  Timeline full(2);
  ASSERT_OK(full.Add(0, kTimeMax, 2));
  EXPECT_EQ(BarbosaPlan(dag, speeds, 0, &full).status().code(),
            absl::StatusCode::kResourceExhausted);
}

// ---- §5.2 workloads. ----

TEST(BarbosaWorkloadTest, RandomDagShape) {
  for (int tasks : {10, 30, 90}) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const auto edges = ShivleDagEdges(tasks, seed);
      EXPECT_EQ(edges, ShivleDagEdges(tasks, seed));  // deterministic
      std::vector<int> in(tasks, 0), out(tasks, 0);
      for (const auto& [a, b] : edges) {
        EXPECT_LT(a, b);
        ++out[a];
        ++in[b];
      }
      for (int i = 0; i < tasks; ++i) {
        if (i < 4) {
          EXPECT_EQ(in[i], 0) << i;
        } else {
          EXPECT_GE(in[i], 1) << i;
        }
        if (i >= tasks - 4) {
          EXPECT_EQ(out[i], 0) << i;
        } else {
          EXPECT_GE(out[i], 2) << i;
          EXPECT_LE(out[i], 6) << i;  // 5, plus a rare fix-up edge
        }
      }
    }
  }
}

TEST(BarbosaWorkloadTest, KernelsAndTransfers) {
  // TRD of size 100 on one 404 Mflop/s processor: 2e6 flops.
  const RuntimeModel trd = KernelModel(LinearAlgebraKernel::kTrd, 100, {});
  EXPECT_EQ(trd.TimeOn(1), CeilMicros(2e6 / 404e6));
  // C of size 400 on 2 x 2: 3 * 2 * 400^3 / (4 * 404e6) + 1e-4 + 0.5 * 400^2 * 2 / 1.5625e6.
  const RuntimeModel c = KernelModel(LinearAlgebraKernel::kCorrelation, 400, {});
  EXPECT_EQ(c.TimeOn(4),
            CeilMicros(3 * 2 * 64e6 / (4 * 404e6) + 1e-4 + 0.5 * 160000 * 2 / 1.5625e6));
  EXPECT_DOUBLE_EQ(Table1Weights(LinearAlgebraKernel::kQ).computation, 0.82);
  EXPECT_DOUBLE_EQ(Table1Weights(LinearAlgebraKernel::kQr).communication, 0.25);
  const Dag dag = BarbosaRandomDag(30, 4);
  EXPECT_OK(ValidateDag(dag, 20));
  for (const Edge& e : dag.edges) {
    EXPECT_NEAR(static_cast<double>(e.transfer),
                0.3 * static_cast<double>(dag.tasks[e.from].model.TimeOn(1)), 1.0);
  }
  const Dag fig3 = BarbosaTopcuogluDag(1);
  EXPECT_EQ(fig3.tasks.size(), 10u);
  EXPECT_EQ(fig3.edges.size(), 15u);
  EXPECT_OK(ValidateDag(fig3, 20));
}

// ---- §5.3, Table 2: parallel tasks against HEFT on 20 homogeneous processors. ----

TEST(BarbosaTest, ParallelTasksBeatHeftOnTable2Dags) {
  const std::vector<double> speeds(20, 1.0);
  const int seeds = 20;
  for (int tasks : {10, 30, 90}) {
    double heft_sum = 0, par_sum = 0, par_sum_rule = 0;
    int wins = 0;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
      const Dag dag = tasks == 10 ? BarbosaTopcuogluDag(seed) : BarbosaRandomDag(tasks, seed);
      auto heft = HeftPlan(dag, speeds, 0, nullptr);
      auto par = BarbosaPlan(dag, speeds, 0, nullptr);
      BarbosaOptions sum;
      sum.sum_incoming_transfers = true;
      auto par_sum_plan = BarbosaPlan(dag, speeds, 0, nullptr, sum);
      ASSERT_OK(heft);
      ASSERT_OK(par);
      ASSERT_OK(par_sum_plan);
      std::vector<BarbosaJob> jobs{{dag, 0, ""}};
      BarbosaResult r;
      r.plans = {*par};
      ExpectValidBarbosa(jobs, {}, r, speeds, nullptr, 0);
      heft_sum += heft->completion / 1e6;
      par_sum += par->completion / 1e6;
      par_sum_rule += par_sum_plan->completion / 1e6;
      if (par->completion <= heft->completion) ++wins;
    }
    std::printf(
        "DAG%d, mean of %d seeds: HEFT %.3f s, parallel tasks %.3f s "
        "(not worse in %d), "
        "parallel with summed transfers %.3f s\n",
        tasks, seeds, heft_sum / seeds, par_sum / seeds, wins, par_sum_rule / seeds);
    EXPECT_GE(wins, seeds * 3 / 4) << tasks;
  }
}

}  // namespace
}  // namespace resched
