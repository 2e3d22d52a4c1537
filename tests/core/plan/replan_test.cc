// ShiftedBy on a Replan's plan: every job moves by the same delta and keeps its id and width, so
// the plan's order and packing are what the planner made.
#include "core/plan/replan.h"

#include <gtest/gtest.h>

#include <vector>

namespace resched {
namespace {

TEST(ReplanShiftedBy, EveryJobMovesWholeAndKeepsItsIdAndWidth) {
  const std::vector<PlannedJob> planned = {
      {"a", Allocation{4, 100, 250}}, {"b", Allocation{2, 250, 900}}, {"c", Allocation{8, 0, 50}}};
  const std::vector<PlannedJob> shifted = ShiftedBy(planned, 1'000);
  ASSERT_EQ(shifted.size(), planned.size());
  for (std::size_t i = 0; i < planned.size(); ++i) {
    EXPECT_EQ(shifted[i].id, planned[i].id);
    EXPECT_EQ(shifted[i].allocation.k, planned[i].allocation.k);
    EXPECT_EQ(shifted[i].allocation.start, planned[i].allocation.start + 1'000);
    EXPECT_EQ(shifted[i].allocation.end, planned[i].allocation.end + 1'000);
  }
  EXPECT_TRUE(ShiftedBy(std::vector<PlannedJob>{}, 5).empty());
}

}  // namespace
}  // namespace resched
