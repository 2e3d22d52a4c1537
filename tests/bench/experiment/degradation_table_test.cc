#include "bench/experiment/degradation_table.h"

#include "gtest/gtest.h"

namespace resched::experiment {
namespace {

// The paper averages the per-instance relative differences, not the difference of the means:
// on instances (1 vs 2) and (100 vs 50), A is 100 % behind on one and B 100 % behind on the
// other, so both degrade by 50 % although A's mean is lower.
TEST(DegradationTable, AveragesPerInstanceRelativeDifferences) {
  DegradationTable table;
  table.Add("s", "i1", "A", 1);
  table.Add("s", "i1", "B", 2);
  table.Add("s", "i2", "A", 100);
  table.Add("s", "i2", "B", 50);
  const auto rows = table.Summarize({"A", "B"});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].mean_degradation, 0.5);
  EXPECT_DOUBLE_EQ(rows[1].mean_degradation, 0.5);
  // A tie counts as a win for both.
  EXPECT_EQ(rows[0].wins, 1);
  EXPECT_EQ(rows[1].wins, 1);
}

TEST(DegradationTable, AveragesScenariosAndCountsWinsPerScenario) {
  DegradationTable table;
  table.Add("x|1", "i", "A", 10);
  table.Add("x|1", "i", "B", 11);
  table.Add("x|2", "i", "A", 13);
  table.Add("x|2", "i", "B", 10);
  table.Add("y|1", "i", "A", 1);
  table.Add("y|1", "i", "B", 1);
  const auto all = table.Summarize({"A", "B"});
  EXPECT_DOUBLE_EQ(all[0].mean_degradation, (0 + 0.3 + 0) / 3);
  EXPECT_DOUBLE_EQ(all[1].mean_degradation, (0.1 + 0 + 0) / 3);
  EXPECT_EQ(all[0].wins, 2);
  EXPECT_EQ(all[1].wins, 2);
  EXPECT_EQ(all[0].scenarios, 3);
  const auto x = table.Summarize({"A", "B"}, "x|");
  EXPECT_EQ(x[0].scenarios, 2);
  EXPECT_EQ(x[0].wins, 1);
}

// Extra variants are measured against the reference algorithms' best without changing it: a
// variant better than every reference algorithm degrades negatively and wins nothing.
TEST(DegradationTable, MeasuresExtrasAgainstTheReferenceSet) {
  DegradationTable table;
  table.Add("s", "i", "A", 10);
  table.Add("s", "i", "B", 20);
  table.Add("s", "i", "extra", 5);
  const auto paper = table.Summarize({"A", "B"});
  const auto extra = table.Summarize({"extra", "A"}, "", {"A", "B"});
  EXPECT_DOUBLE_EQ(paper[1].mean_degradation, 1.0);
  EXPECT_DOUBLE_EQ(extra[0].mean_degradation, -0.5);
  EXPECT_EQ(extra[0].wins, 0);
  EXPECT_EQ(extra[1].wins, 1);
}

TEST(DegradationTable, LeavesOutInstancesAnAlgorithmHasNoFigureFor) {
  DegradationTable table;
  table.Add("s", "i1", "A", 10);
  table.Add("s", "i1", "B", 15);
  table.Add("s", "i2", "A", 10);  // B failed on i2
  const auto rows = table.Summarize({"A", "B"});
  EXPECT_DOUBLE_EQ(rows[0].mean_degradation, 0);
  EXPECT_DOUBLE_EQ(rows[1].mean_degradation, 0.5);
}

}  // namespace
}  // namespace resched::experiment
