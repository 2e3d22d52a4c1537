// Processor ids for display: every allocation gets k distinct ids of its group, no id is used
// twice at the same instant, and items keep their ids across changes.
#include "server/app/processor_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"

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

TEST(AssignProcessorIds, PreferredIdsAreKeptAndANewIntervalTakesConsecutiveOnes) {
  // Slot 0 wants ids 2 and 3 back; slot 1 has none to keep and takes the lowest run of three
  // free ones (0 and 1 are only two).
  const auto ids = AssignProcessorIds({{0, 10, 2, 0, -1, {2, 3}}, {0, 10, 3, 1}}, {8}, 2);
  EXPECT_EQ(ids[0], (std::vector<int>{2, 3}));
  EXPECT_EQ(ids[1], (std::vector<int>{4, 5, 6}));
}

using Span = ProcessorRows::Span;

TEST(ProcessorRows, ANewItemTakesConsecutiveRowsAndOthersStayPut) {
  ProcessorRows rows({8});
  EXPECT_TRUE(rows.Update({{"a", Span{0, 10, 3}}, {"b", Span{0, 10, 2}}}).empty());
  EXPECT_EQ(rows.Ids("a"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(rows.Ids("b"), (std::vector<int>{3, 4}));
  // a leaves: b stays; c fits in a's rows.
  EXPECT_TRUE(rows.Update({{"a", std::nullopt}, {"c", Span{2, 8, 3}}}).empty());
  EXPECT_TRUE(rows.Ids("a").empty());
  EXPECT_EQ(rows.Ids("b"), (std::vector<int>{3, 4}));
  EXPECT_EQ(rows.Ids("c"), (std::vector<int>{0, 1, 2}));
  // b moves later and keeps its rows; c grows into the free ones after them.
  EXPECT_TRUE(rows.Update({{"b", Span{5, 15, 2}}}).empty());
  EXPECT_EQ(rows.Ids("b"), (std::vector<int>{3, 4}));
  EXPECT_TRUE(rows.Update({{"c", Span{2, 8, 5}}}).empty());
  EXPECT_EQ(rows.Ids("c"), (std::vector<int>{0, 1, 2, 5, 6}));
}

TEST(ProcessorRows, ItemsTradingPlacesBothFit) {
  ProcessorRows rows({2});
  ASSERT_TRUE(rows.Update({{"a", Span{0, 10, 2}}, {"b", Span{10, 20, 2}}}).empty());
  EXPECT_TRUE(rows.Update({{"a", Span{10, 20, 2}}, {"b", Span{0, 10, 2}}}).empty());
  EXPECT_EQ(rows.Ids("a"), (std::vector<int>{0, 1}));
  EXPECT_EQ(rows.Ids("b"), (std::vector<int>{0, 1}));
}

TEST(ProcessorRows, NoRowFreeOverTheWholeSpanMovesAnotherItemAndSaysWhich) {
  ProcessorRows rows({2});
  // q on row 0 over [0, 10), s on row 1 over [10, 20): each instant has a row free, no row is
  // free over all of [0, 20).
  ASSERT_TRUE(rows.Update({{"p", Span{10, 20, 1}}, {"q", Span{0, 10, 1}}}).empty());
  ASSERT_TRUE(rows.Update({{"r", Span{0, 10, 1}}, {"s", Span{10, 20, 1}}}).empty());
  ASSERT_TRUE(rows.Update({{"p", std::nullopt}, {"r", std::nullopt}}).empty());
  ASSERT_EQ(rows.Ids("q"), (std::vector<int>{0}));
  ASSERT_EQ(rows.Ids("s"), (std::vector<int>{1}));
  const std::vector<std::string> moved = rows.Update({{"w", Span{0, 20, 1}}});
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_TRUE(moved[0] == "q" || moved[0] == "s");
  EXPECT_EQ(rows.Ids("w").size(), 1u);
  EXPECT_EQ(rows.Ids("q"), rows.Ids("s"));  // both on the row w leaves
  EXPECT_NE(rows.Ids("q"), rows.Ids("w"));
}

TEST(ProcessorRows, RowsTradeOnlyUntilNeitherHasASpanAcross) {
  ProcessorRows rows({2});
  // Row 0: q [0, 10), x1 [25, 35), x2 [40, 50); row 1: s [10, 30), y1 [30, 40), y2 [40, 50).
  ASSERT_TRUE(rows.Update({{"b", Span{10, 30, 1}}}).empty());
  ASSERT_TRUE(rows.Update({{"s", Span{10, 30, 1}}}).empty());
  ASSERT_TRUE(rows.Update({{"q", Span{0, 10, 1}}}).empty());
  ASSERT_TRUE(rows.Update({{"b", std::nullopt}, {"x1", Span{25, 35, 1}}}).empty());
  ASSERT_TRUE(rows.Update({{"y1", Span{30, 40, 1}}}).empty());
  ASSERT_TRUE(rows.Update({{"x2", Span{40, 50, 1}}, {"y2", Span{40, 50, 1}}}).empty());
  for (const auto& [key, row] :
       std::map<std::string, int>{{"q", 0}, {"x1", 0}, {"x2", 0}, {"s", 1}, {"y1", 1}, {"y2", 1}}) {
    ASSERT_EQ(rows.Ids(key), std::vector<int>{row}) << key;
  }
  // w over [0, 20) has row 1 until 10 and row 0 from then: the rows trade what they hold from
  // 10 to 40, the first instant no span lies across; x2 and y2 stay.
  std::vector<std::string> moved = rows.Update({{"w", Span{0, 20, 1}}});
  std::sort(moved.begin(), moved.end());
  EXPECT_EQ(moved, (std::vector<std::string>{"s", "x1", "y1"}));
  for (const auto& [key, row] : std::map<std::string, int>{
           {"w", 1}, {"q", 0}, {"s", 0}, {"x1", 1}, {"y1", 0}, {"x2", 0}, {"y2", 1}}) {
    EXPECT_EQ(rows.Ids(key), std::vector<int>{row}) << key;
  }
}

TEST(ProcessorRows, RetainIfDropsItemsAndFreesTheirRows) {
  ProcessorRows rows({2});
  ASSERT_TRUE(rows.Update({{"a", Span{0, 10, 2}}}).empty());
  rows.RetainIf([](const std::string& key) { return key != "a"; });
  EXPECT_EQ(rows.size(), 0u);
  EXPECT_TRUE(rows.Update({{"b", Span{0, 10, 2}}}).empty());
  EXPECT_EQ(rows.Ids("b"), (std::vector<int>{0, 1}));
}

// Random steps of adds, moves and removals within each group's count at every instant, against
// a reference that checks each instant's ids: every item has k distinct ids of its group, no id
// twice at an instant, and an item that did not change keeps its ids unless Update names it.
// Returns how many Updates moved items they did not name (an assignment of all again).
int RandomSteps(const std::vector<int>& group_counts, unsigned seed) {
  std::mt19937 rng(seed);
  constexpr int kHorizon = 40;
  const int groups = static_cast<int>(group_counts.size());
  std::vector<int> first_id = {0};
  for (int count : group_counts) first_id.push_back(first_id.back() + count);
  int reassignments = 0;
  for (int round = 0; round < 60; ++round) {
    ProcessorRows rows(group_counts);
    std::map<std::string, Span> items;
    auto used_at = [&](int t, int group, const std::string& except) {
      int used = 0;
      for (const auto& [key, span] : items) {
        if (key != except && span.group == group && span.start <= t && t < span.end) {
          used += span.k;
        }
      }
      return used;
    };
    for (int step = 0; step < 80; ++step) {
      std::vector<ProcessorRows::Change> changes;
      std::map<std::string, std::vector<int>> ids_before;
      for (const auto& [key, span] : items) ids_before[key] = rows.Ids(key);
      const int count = 1 + static_cast<int>(rng() % 3);
      std::set<std::string> touched;
      for (int c = 0; c < count; ++c) {
        const std::string key = absl::StrCat("i", rng() % 30);
        if (!touched.insert(key).second) continue;
        if (items.contains(key) && rng() % 3 == 0) {
          items.erase(key);
          changes.emplace_back(key, std::nullopt);
          continue;
        }
        const int start = static_cast<int>(rng() % kHorizon);
        const int end = start + static_cast<int>(rng() % 10);  // may be of no length
        const int group = static_cast<int>(rng() % groups);
        const int k = 1 + static_cast<int>(rng() % std::min(6, group_counts[group]));
        const int span_group = groups > 1 ? group : -1;  // one group: any
        bool fits = true;
        for (int t = start; t < end; ++t) {
          fits = fits && used_at(t, span_group, key) + k <= group_counts[group];
        }
        if (!fits) continue;
        items[key] = Span{start, end, k, span_group};
        changes.emplace_back(key, items[key]);
      }
      const std::vector<std::string> moved = rows.Update(changes);
      reassignments += moved.empty() ? 0 : 1;
      std::map<int, std::set<int>> at;
      for (const auto& [key, span] : items) {
        const std::vector<int>& mine = rows.Ids(key);
        EXPECT_EQ(static_cast<int>(std::set<int>(mine.begin(), mine.end()).size()), span.k);
        const int group = std::max(0, span.group);
        for (int id : mine) {
          EXPECT_GE(id, first_id[group]);
          EXPECT_LT(id, first_id[group + 1]);
          for (Time t = span.start; t < span.end; ++t) {
            EXPECT_TRUE(at[static_cast<int>(t)].insert(id).second)
                << "id " << id << " used twice at " << t << " (round " << round << ", step " << step
                << ")";
          }
        }
        const bool changed = std::any_of(changes.begin(), changes.end(),
                                         [&](const auto& change) { return change.first == key; });
        const bool named = std::find(moved.begin(), moved.end(), key) != moved.end();
        if (!changed && !named) {
          EXPECT_EQ(mine, ids_before[key]) << key;
        }
        if (changed) {
          EXPECT_FALSE(named) << key;
        }
      }
      if (::testing::Test::HasFailure()) return reassignments;
    }
  }
  return reassignments;
}

// The tests must reach the assignment of all items again, not only the steps that keep rows.
TEST(ProcessorRows, RandomStepsKeepRowsValidAndUnchangedItemsInPlace) {
  EXPECT_GT(RandomSteps({12}, 11), 0);
}

TEST(ProcessorRows, RandomStepsOnProcessorGroupsKeepEachItemInItsGroup) {
  EXPECT_GT(RandomSteps({5, 7}, 12), 0);
}

// Groups whose rows start and end inside blocks of 64 (RowOccupancy).
TEST(ProcessorRows, RandomStepsOnGroupsAcrossBlocksOfRowsKeepRowsValid) {
  RandomSteps({40, 100}, 13);
}

}  // namespace
}  // namespace resched::server
