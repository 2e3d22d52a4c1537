// Percentiles and the merge of the clients' logs, against values computed by hand.
#include "loadgen/stats.h"

#include <gtest/gtest.h>

namespace resched::loadgen {
namespace {

TEST(LoadgenStatsTest, NearestRankPercentiles) {
  std::vector<double> sorted;
  for (int i = 1; i <= 1000; ++i) sorted.push_back(i);
  EXPECT_EQ(Percentile(sorted, 0.50), 500);
  EXPECT_EQ(Percentile(sorted, 0.99), 990);
  EXPECT_EQ(Percentile(sorted, 0.999), 999);
  EXPECT_EQ(Percentile(sorted, 1.0), 1000);
  EXPECT_EQ(Percentile({7}, 0.5), 7);
  EXPECT_EQ(Percentile({}, 0.5), 0);
}

TEST(LoadgenStatsTest, LogsMergePerCallWithErrorsByCode) {
  std::vector<LatencyLog> logs(2);
  for (int i = 1; i <= 100; ++i) logs[i % 2].Record(Op::kSubmit, i * 1000.0, grpc::StatusCode::OK);
  logs[0].Record(Op::kCancel, 5000, grpc::StatusCode::NOT_FOUND);
  logs[1].Record(Op::kCancel, 3000, grpc::StatusCode::OK);
  const std::vector<OpSummary> ops = Summarize(logs, 2.0);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].op, "submit");
  EXPECT_EQ(ops[0].calls, 100);
  EXPECT_EQ(ops[0].calls_per_second, 50);
  EXPECT_EQ(ops[0].p50, 50);  // milliseconds
  EXPECT_EQ(ops[0].p99, 99);
  EXPECT_EQ(ops[0].max, 100);
  EXPECT_TRUE(ops[0].errors.empty());
  EXPECT_EQ(ops[1].op, "cancel");
  EXPECT_EQ(ops[1].errors.at("NOT_FOUND"), 1);
  EXPECT_EQ(ops[2].op, "all");
  EXPECT_EQ(ops[2].calls, 102);
  EXPECT_EQ(ops[2].errors.at("NOT_FOUND"), 1);
}

}  // namespace
}  // namespace resched::loadgen
