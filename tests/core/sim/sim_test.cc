// Hand-checked replays: release order, early completions, starts and ends between releases, the
// event rules at one instant, metrics and the fairness histogram.
#include <gtest/gtest.h>

#include "core/sim/simulator.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

constexpr Duration kS = kMicrosPerSecond;

ClusterSpec SimSpec(const std::string& policy, int processors) {
  return ClusterSpec{"sim", {{"", processors, 1.0}}, ClockKind::kSimulated, policy, {}};
}

WorkloadJob Rigid(int k, Duration length, Time release, double fraction = 1.0) {
  WorkloadJob w;
  w.job.model = RuntimeModel(RigidModel{k, length});
  w.job.release = release;
  w.runtime_fraction = fraction;
  return w;
}

SimResult Replayed(const std::string& policy, int processors, std::vector<WorkloadJob> jobs,
                   SimOptions options = {}) {
  Workload w{"hand", processors, std::move(jobs)};
  auto result = Simulate(w, SimSpec(policy, processors), {}, std::move(options));
  EXPECT_OK(result);
  return result.ok() ? *std::move(result) : SimResult{};
}

void ExpectRun(const SimJobRecord& r, int k, Time start, Time end) {
  EXPECT_EQ(r.k, k) << r.id;
  EXPECT_EQ(r.start, start) << r.id;
  EXPECT_EQ(r.end, end) << r.id;
}

TEST(ActualLength, CeilsTheFractionOfTheAllocation) {
  EXPECT_EQ(ActualLength(10, 0.25), 3);  // 2.5 -> 3
  EXPECT_EQ(ActualLength(30, 0.1), 3);   // 3.0000000000000004 is 3, not 4
  EXPECT_EQ(ActualLength(7, 1.0), 7);
  EXPECT_EQ(ActualLength(5, 1e-9), 1);  // at least a microsecond
}

TEST(Simulate, SubmitsInReleaseOrderTiesInWorkloadOrder) {
  // Listed out of release order: the job released at 0 is submitted first (j1); the two jobs
  // released together at 10 s follow in workload order.
  auto result = Replayed(
      "fcfs", 4, {Rigid(2, 5 * kS, 10 * kS), Rigid(4, 10 * kS, 0), Rigid(2, 5 * kS, 10 * kS)});
  ASSERT_EQ(result.jobs.size(), 3u);
  EXPECT_EQ(result.jobs[0].id, "j2");
  EXPECT_EQ(result.jobs[1].id, "j1");
  EXPECT_EQ(result.jobs[2].id, "j3");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(result.jobs[i].index, i);
  ExpectRun(result.jobs[1], 4, 0, 10 * kS);
  ExpectRun(result.jobs[0], 2, 10 * kS, 15 * kS);
  ExpectRun(result.jobs[2], 2, 10 * kS, 15 * kS);
}

TEST(Simulate, EarlyCompletionMovesQueuedJobsEarlierUnderConservative) {
  // A asks for 100 s and ends after 30 s; B, planned after A's estimate, moves to 30 s.
  auto result =
      Replayed("conservative", 2,
               {Rigid(2, 100 * kS, 0, 0.3), Rigid(2, 50 * kS, 1 * kS), Rigid(1, 10 * kS, 2 * kS)});
  ASSERT_EQ(result.jobs.size(), 3u);
  ExpectRun(result.jobs[0], 2, 0, 30 * kS);
  EXPECT_TRUE(result.jobs[0].ended_early);
  ExpectRun(result.jobs[1], 2, 30 * kS, 80 * kS);
  EXPECT_FALSE(result.jobs[1].ended_early);
  ExpectRun(result.jobs[2], 1, 80 * kS, 90 * kS);
}

TEST(Simulate, JobsStartAndEndEarlyBetweenReleases) {
  // One processor. A runs [0, 10). B starts at A's end and ends early at 12.5 s; D, planned at
  // 20 s, moves to 12.5 s and ends early at 14.5 s -- all before C's release at 100 s.
  auto result = Replayed("conservative", 1,
                         {Rigid(1, 10 * kS, 0), Rigid(1, 10 * kS, 1 * kS, 0.25),
                          Rigid(1, 10 * kS, 100 * kS), Rigid(1, 4 * kS, 2 * kS, 0.5)});
  ASSERT_EQ(result.jobs.size(), 4u);
  ExpectRun(result.jobs[0], 1, 0, 10 * kS);
  ExpectRun(result.jobs[1], 1, 10 * kS, 12'500'000);
  ExpectRun(result.jobs[3], 1, 12'500'000, 14'500'000);
  ExpectRun(result.jobs[2], 1, 100 * kS, 110 * kS);
  EXPECT_TRUE(result.jobs[1].ended_early);
  EXPECT_TRUE(result.jobs[3].ended_early);
}

TEST(Simulate, EndsFreeCapacityBeforeReleasesOfTheSameInstant) {
  // A ends early at 5 s, the instant B is released: B starts at once.
  for (const char* policy : {"fcfs", "easy", "conservative"}) {
    SCOPED_TRACE(policy);
    auto result = Replayed(policy, 2, {Rigid(2, 10 * kS, 0, 0.5), Rigid(2, 10 * kS, 5 * kS)});
    ASSERT_EQ(result.jobs.size(), 2u);
    ExpectRun(result.jobs[0], 2, 0, 5 * kS);
    ExpectRun(result.jobs[1], 2, 5 * kS, 15 * kS);
  }
}

TEST(Simulate, MetricsAndFairnessOfTheSchedule) {
  // A on both processors [0, 10); B waits: [10, 20). p(1): A 20 s, B 10 s.
  auto result = Replayed("fcfs", 2, {Rigid(2, 10 * kS, 0), Rigid(1, 10 * kS, 0)});
  ASSERT_EQ(result.jobs.size(), 2u);
  EXPECT_EQ(result.jobs[0].sequential_time, 20 * kS);
  ExpectRun(result.jobs[1], 1, 10 * kS, 20 * kS);
  const ScheduleMetrics& m = result.metrics;
  EXPECT_EQ(m.jobs, 2);
  EXPECT_EQ(m.makespan, 20 * kS);
  EXPECT_DOUBLE_EQ(m.mean_flow, 15);
  EXPECT_DOUBLE_EQ(m.max_flow, 20);
  EXPECT_DOUBLE_EQ(m.mean_stretch, (0.5 + 2.0) / 2);
  EXPECT_DOUBLE_EQ(m.max_stretch, 2);
  EXPECT_DOUBLE_EQ(m.utilization, 30.0 / 40.0);  // 30 processor-seconds busy out of 2 x 20
  EXPECT_DOUBLE_EQ(m.cpu_hours, 30.0 / 3600.0);
  EXPECT_EQ(result.fairness[SizeClass::kSeconds].jobs, 2);
  EXPECT_EQ(result.fairness[SizeClass::kSeconds].stretched, 1);  // B: 20 s flow over 10 s
  EXPECT_DOUBLE_EQ(result.fairness[SizeClass::kSeconds].percent(), 50);
  EXPECT_GE(result.policy_seconds, 0);
}

TEST(Fairness, ClassBoundariesAndStretchAboveOne) {
  constexpr Duration kMin = 60 * kS, kHour = 60 * kMin, kDay = 24 * kHour, kWeek = 7 * kDay;
  EXPECT_EQ(SizeClassOf(kMin - 1), SizeClass::kSeconds);
  EXPECT_EQ(SizeClassOf(kMin), SizeClass::kMinutes);
  EXPECT_EQ(SizeClassOf(kHour - 1), SizeClass::kMinutes);
  EXPECT_EQ(SizeClassOf(kHour), SizeClass::kHours);
  EXPECT_EQ(SizeClassOf(kDay - 1), SizeClass::kHours);
  EXPECT_EQ(SizeClassOf(kDay), SizeClass::kDays);
  EXPECT_EQ(SizeClassOf(kWeek - 1), SizeClass::kDays);
  EXPECT_EQ(SizeClassOf(kWeek), SizeClass::kWeeks);
  EXPECT_STREQ(SizeClassName(SizeClass::kWeeks), "weeks");

  // {release, start, end, k, weight, p(1)}: flow equal to p(1) is stretch 1, not above.
  const std::vector<MetricItem> items = {
      {0, 0, 30 * kS, 1, 1, 30 * kS},          // seconds, stretch 1
      {0, 5 * kS, 35 * kS, 1, 1, 30 * kS},     // seconds, stretch 7/6
      {0, 0, 2 * kMin, 4, 1, 8 * kMin},        // minutes, stretch 1/4
      {0, kHour, 3 * kHour, 1, 1, 2 * kHour},  // hours, stretch 1.5
      {kDay, kDay, 3 * kDay, 1, 1, 2 * kDay},  // days, stretch 1
      {0, 0, kWeek + 1, 1, 1, kWeek},          // weeks, stretch just above 1
  };
  const FairnessHistogram h = ComputeFairness(items);
  EXPECT_EQ(h[SizeClass::kSeconds].jobs, 2);
  EXPECT_EQ(h[SizeClass::kSeconds].stretched, 1);
  EXPECT_EQ(h[SizeClass::kMinutes].jobs, 1);
  EXPECT_EQ(h[SizeClass::kMinutes].stretched, 0);
  EXPECT_EQ(h[SizeClass::kHours].stretched, 1);
  EXPECT_EQ(h[SizeClass::kDays].jobs, 1);
  EXPECT_EQ(h[SizeClass::kDays].stretched, 0);
  EXPECT_EQ(h[SizeClass::kWeeks].stretched, 1);
  EXPECT_DOUBLE_EQ(h[SizeClass::kSeconds].percent(), 50);
  EXPECT_DOUBLE_EQ(FairnessHistogram{}[SizeClass::kDays].percent(), 0);

  FairnessHistogram sum = h;
  sum.Add(h);  // the paper aggregates instances
  EXPECT_EQ(sum[SizeClass::kSeconds].jobs, 4);
  EXPECT_EQ(sum[SizeClass::kSeconds].stretched, 2);
}

TEST(Simulate, MaxJobsAndProgress) {
  std::vector<SimProgress> calls;
  SimOptions options;
  options.max_jobs = 2;
  options.progress_every = 1;
  options.progress = [&](const SimProgress& p) { calls.push_back(p); };
  auto result =
      Replayed("fcfs", 1, {Rigid(1, kS, 0), Rigid(1, kS, 5 * kS), Rigid(1, kS, 9 * kS)}, options);
  ASSERT_EQ(result.jobs.size(), 2u);
  ASSERT_EQ(calls.size(), 3u);  // after each release, then at the end
  EXPECT_EQ(calls[0].released, 1);
  EXPECT_EQ(calls[1].now, 5 * kS);
  EXPECT_EQ(calls[2].released, 2);
  EXPECT_EQ(calls[2].total, 2);
  EXPECT_EQ(calls[2].now, 6 * kS);
}

TEST(Simulate, RejectsBadInput) {
  Workload w{"bad", 2, {Rigid(1, kS, 0)}};
  ClusterSpec wall = SimSpec("fcfs", 2);
  wall.clock = ClockKind::kWall;
  EXPECT_EQ(Simulate(w, wall, {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(Simulate(w, SimSpec("no-such-policy", 2), {}).ok());
  w.jobs[0].runtime_fraction = 0;
  EXPECT_EQ(Simulate(w, SimSpec("fcfs", 2), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  w.jobs[0].runtime_fraction = 1;
  w.jobs[0].job.release = -1;
  EXPECT_EQ(Simulate(w, SimSpec("fcfs", 2), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  w.jobs[0].job.release = 0;
  w.jobs[0].job.model = RuntimeModel(RigidModel{3, kS});  // wider than the cluster
  EXPECT_EQ(Simulate(w, SimSpec("fcfs", 2), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Simulate, EmptyWorkload) {
  auto result = Replayed("easy", 4, {});
  EXPECT_TRUE(result.jobs.empty());
  EXPECT_EQ(result.metrics.jobs, 0);
}

}  // namespace
}  // namespace resched
