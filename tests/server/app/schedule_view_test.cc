// Processor ids for display: every allocation gets k distinct ids of its group, and no id is
// used twice at the same instant.
#include "server/app/schedule_view.h"

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
// A hold of any group that starts first must not take the ids a group's own job needs later.
TEST(AssignProcessorIds, AHoldOfAnyGroupLeavesAGroupTheIdsItsOwnIntervalsNeed) {
  // Groups of 2 and 2; the hold [0, 10) of 2 processors, a job of group 0 over [5, 10).
  const auto ids = AssignProcessorIds({{0, 10, 2, 0, -1}, {5, 10, 2, 1, 0}}, {2, 2}, 2);
  EXPECT_EQ(ids[1], (std::vector<int>{0, 1}));
  EXPECT_EQ(ids[0], (std::vector<int>{2, 3}));
  // Room in no single group over its window: the hold comes in pieces.
  const auto split = AssignProcessorIds({{0, 10, 3, 0, -1}}, {2, 2}, 1);
  EXPECT_EQ(split[0], (std::vector<int>{0, 1, 2}));
}

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
    // On several groups, holds of any group where the total has room.
    for (int tries = 0; counts.size() > 1 && tries < 10; ++tries) {
      const int start = static_cast<int>(rng() % 50);
      const int length = 1 + static_cast<int>(rng() % 8);
      const int k = 1 + static_cast<int>(rng() % capacity);
      bool fits = true;
      for (int t = start; t < start + length; ++t) {
        int total = 0;
        for (const auto& group : used) total += group[t];
        fits = fits && total + k <= capacity;
      }
      if (!fits) continue;
      // Counted in the groups, lowest first, so that later tries see the total.
      for (int t = start; t < start + length; ++t) {
        int left = k;
        for (std::size_t g = 0; g < counts.size(); ++g) {
          const int room = std::min(left, counts[g] - used[g][t]);
          used[g][t] += room;
          left -= room;
        }
      }
      intervals.push_back({start, start + length, k, static_cast<int>(intervals.size()), -1});
    }
    std::shuffle(intervals.begin(), intervals.end(), rng);
    const auto ids = AssignProcessorIds(intervals, counts, intervals.size());
    std::map<int, std::set<int>> at;  // instant -> ids in use
    for (const IdInterval& interval : intervals) {
      const std::vector<int>& mine = ids[interval.slot];
      const int distinct = static_cast<int>(std::set<int>(mine.begin(), mine.end()).size());
      ASSERT_EQ(distinct, static_cast<int>(mine.size()));
      // A group's own intervals get all their ids; one of any group may report fewer.
      const bool any = counts.size() > 1 && interval.group < 0;
      if (any) {
        ASSERT_LE(distinct, interval.k);
      } else {
        ASSERT_EQ(distinct, interval.k);
      }
      const int group = std::max(interval.group, 0);
      for (int id : mine) {
        if (!any) {
          ASSERT_GE(id, first_id[group]);
          ASSERT_LT(id, first_id[group] + counts[group]);
        }
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
