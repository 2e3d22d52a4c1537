// dutot §4.1's workloads: reproducible, monotonic table models over widths 1..m, the speedups the
// paper describes for weakly and highly parallel tasks, the 70/30 mix, the weight range, and
// options out of range refused naming the limit.
#include "core/workload/dutot_workload.h"

#include <gtest/gtest.h>

#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::OkValue;

constexpr Duration kMinute = 60 * kMicrosPerSecond;

double MeanSpeedupOnAll(const Workload& w) {
  double sum = 0;
  for (const WorkloadJob& j : w.jobs) {
    sum += static_cast<double>(j.job.model.TimeOn(1)) /
           static_cast<double>(j.job.model.TimeOn(w.processors));
  }
  return sum / static_cast<double>(w.jobs.size());
}

TEST(DutotWorkloadTest, TasksAreReproducibleMonotonicTablesOverEveryWidth) {
  for (DutotParallelism p :
       {DutotParallelism::kWeak, DutotParallelism::kHigh, DutotParallelism::kMixed}) {
    const DutotWorkloadOptions options{.tasks = 50, .processors = 200, .parallelism = p};
    const Workload a = OkValue(GenerateDutotWorkload(options));
    const Workload b = OkValue(GenerateDutotWorkload(options));
    ASSERT_EQ(a.jobs.size(), 50u);
    EXPECT_EQ(a.processors, 200);
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
      const Job& job = a.jobs[i].job;
      EXPECT_EQ(job.model.Widths(200).size(), 200u) << job.id;
      EXPECT_TRUE(job.model.CheckMonotony(200).monotonic()) << job.id;
      EXPECT_GE(job.weight, 1);
      EXPECT_LT(job.weight, 10);
      EXPECT_EQ(job.release, 0);
      EXPECT_EQ(job.model.TimeOn(1), b.jobs[i].job.model.TimeOn(1));
      EXPECT_EQ(job.weight, b.jobs[i].job.weight);
    }
  }
}

TEST(DutotWorkloadTest, HighlyParallelTasksSpeedUpNearlyLinearlyAndWeaklyParallelOnesBarely) {
  const Workload high = OkValue(GenerateDutotWorkload(
      {.tasks = 200, .processors = 200, .parallelism = DutotParallelism::kHigh}));
  const Workload weak = OkValue(GenerateDutotWorkload(
      {.tasks = 200, .processors = 200, .parallelism = DutotParallelism::kWeak}));
  // X = 0 gives (m + 1) / 2 = 100.5 on 200 processors, X = 0.9 about 1.6, X = 1 gives 1; the
  // gaussian's tail towards 0.5 lifts the weak mean to about 3.6 (seed 1).
  EXPECT_GT(MeanSpeedupOnAll(high), 20);
  EXPECT_LT(MeanSpeedupOnAll(weak), 5);
  EXPECT_GT(MeanSpeedupOnAll(high), 5 * MeanSpeedupOnAll(weak));
  for (const WorkloadJob& j : high.jobs) {
    EXPECT_GE(j.job.model.TimeOn(1), kMinute);
    EXPECT_LE(j.job.model.TimeOn(1), 10 * kMinute);
  }
}

TEST(DutotWorkloadTest, MixedWorkloadsAreSeventyPercentSmallTasks) {
  const Workload mixed = OkValue(GenerateDutotWorkload(
      {.tasks = 2000, .processors = 200, .parallelism = DutotParallelism::kMixed}));
  int small = 0;
  for (const WorkloadJob& j : mixed.jobs) {
    EXPECT_GT(j.job.model.TimeOn(1), 0);
    small += j.job.model.TimeOn(1) < 3 * kMinute ? 1 : 0;  // N(1, 0.5) stays below 3 minutes
  }
  // 70 % small, plus the large ones N(10, 5) draws below 3 minutes (about 8 % of 30 %).
  EXPECT_GT(small, 2000 * 0.68);
  EXPECT_LT(small, 2000 * 0.78);
}

TEST(DutotWorkloadTest, OptionsOutOfRangeAreRefusedNamingTheLimit) {
  EXPECT_THAT(GenerateDutotWorkload({.tasks = 0}),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("tasks must be in [1, 100000], got 0")));
  EXPECT_THAT(GenerateDutotWorkload({.processors = 5000}),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr("processors must be in [1, 4096], got 5000")));
}

}  // namespace
}  // namespace resched
