// Processor ids for display: every allocation gets k distinct ids of its group, and no id is
// used twice at the same instant.
#include "server/schedule_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace resched::server {
namespace {

TEST(AssignProcessorIds, AnAllocationOfNoLengthGetsIdsWhereEveryProcessorIsTaken) {
  // All 4 processors are busy over [10, 20) by slot 0; slot 1 started and ended at 10 (a job
  // cancelled at its start) and comes after it in the answer.
  const auto ids = AssignProcessorIds({{0, 10, 4, 2}, {10, 20, 4, 0}, {10, 10, 2, 1}}, {4}, 3);
  EXPECT_EQ(ids[0], (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(ids[1].size(), 2u);
  EXPECT_EQ(ids[2], (std::vector<int>{0, 1, 2, 3}));
}

// Random intervals that never exceed their group's count, against a per-instant reference
// check: one group (the whole cluster) or up to three.
TEST(AssignProcessorIds, RandomSchedulesWithinCapacityGetDistinctIdsAtEveryInstant) {
  std::mt19937 rng(7);
  for (int round = 0; round < 400; ++round) {
    std::vector<int> counts(round % 2 == 0 ? 1 : 1 + rng() % 3);
    std::vector<int> first_id;
    int capacity = 0;
    for (int& count : counts) {
      count = 1 + static_cast<int>(rng() % 8);
      first_id.push_back(capacity);
      capacity += count;
    }
    // Processors in use per group and unit instant.
    std::vector<std::vector<int>> used(counts.size(), std::vector<int>(60, 0));
    std::vector<IdInterval> intervals;
    for (int tries = 0; tries < 40; ++tries) {
      const int start = static_cast<int>(rng() % 50);
      const int length = static_cast<int>(rng() % 8);  // 0: an allocation of no length
      const int group = static_cast<int>(rng() % counts.size());
      const int k = 1 + static_cast<int>(rng() % counts[group]);
      bool fits = true;
      for (int t = start; t < start + length; ++t)
        fits = fits && used[group][t] + k <= counts[group];
      if (!fits) continue;
      for (int t = start; t < start + length; ++t) used[group][t] += k;
      intervals.push_back({start, start + length, k, static_cast<int>(intervals.size()),
                           counts.size() == 1 ? -1 : group});
    }
    std::shuffle(intervals.begin(), intervals.end(), rng);
    const auto ids = AssignProcessorIds(intervals, counts, intervals.size());
    std::map<int, std::set<int>> at;  // instant -> ids in use
    for (const IdInterval& interval : intervals) {
      const std::vector<int>& mine = ids[interval.slot];
      ASSERT_EQ(static_cast<int>(std::set<int>(mine.begin(), mine.end()).size()), interval.k);
      const int group = std::max(interval.group, 0);
      for (int id : mine) {
        ASSERT_GE(id, first_id[group]);
        ASSERT_LT(id, first_id[group] + counts[group]);
        for (Time t = interval.start; t < interval.end; ++t) {
          ASSERT_TRUE(at[static_cast<int>(t)].insert(id).second)
              << "id " << id << " used twice at " << t;
        }
      }
    }
  }
}

}  // namespace
}  // namespace resched::server
