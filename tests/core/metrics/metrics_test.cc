#include "core/metrics/metrics.h"

#include <gtest/gtest.h>

namespace resched {
namespace {

constexpr Duration kS = kMicrosPerSecond;

TEST(MetricsTest, HandComputedFigures) {
  // Two jobs on 4 processors: a released at 0 runs [0,10) on 4; b released at 5 runs [10,20)
  // on 2 with p(1) = 20 s.
  std::vector<MetricItem> items = {
      {0, 0, 10 * kS, 4, 1.0, 40 * kS},
      {5 * kS, 10 * kS, 20 * kS, 2, 2.0, 20 * kS},
  };
  const auto m = ComputeMetrics(items, 4);
  EXPECT_EQ(m.jobs, 2);
  EXPECT_EQ(m.makespan, 20 * kS);
  EXPECT_DOUBLE_EQ(m.weighted_completion, 10 + 2 * 20);
  EXPECT_DOUBLE_EQ(m.mean_flow, (10 + 15) / 2.0);
  EXPECT_DOUBLE_EQ(m.max_flow, 15);
  // Stretch = flow / p(1): a: 10/40, b: 15/20 (moldable jobs may go below 1).
  EXPECT_DOUBLE_EQ(m.max_stretch, 0.75);
  EXPECT_DOUBLE_EQ(m.mean_stretch, (0.25 + 0.75) / 2);
  EXPECT_DOUBLE_EQ(m.cpu_hours, (40.0 + 20.0) / 3600);
  EXPECT_DOUBLE_EQ(m.utilization, 60.0 / (4 * 20));
}

TEST(MetricsTest, EmptyScheduleIsAllZero) {
  const auto m = ComputeMetrics({}, 4);
  EXPECT_EQ(m.jobs, 0);
  EXPECT_EQ(m.makespan, 0);
}

}  // namespace
}  // namespace resched
