// SplitFreeAmongGroups against a per-instant reference: at every instant each group keeps at
// most its own free processors, the groups' free ones sum to the cluster's, and the bookings of
// no group come out of the slowest groups first.
#include "core/dag/group_free.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"

namespace resched {
namespace {

TEST(SplitFreeAmongGroupsTest, AHoldOfNoGroupComesOutOfTheSlowestGroup) {
  const std::vector<ProcessorGroup> groups{{"fast", 4, 2.0}, {"slow", 8, 1.0}};
  Timeline shared(12);
  std::vector<Timeline> own{Timeline(4), Timeline(8)};
  ASSERT_TRUE(shared.Add(0, 100, 3).ok());  // a job in the fast group
  ASSERT_TRUE(own[0].Add(0, 100, 3).ok());
  ASSERT_TRUE(shared.Add(50, 200, 9).ok());  // a hold of any group
  const std::vector<Timeline> split = SplitFreeAmongGroups(shared, std::move(own), groups, 0);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0].FreeAt(10), 1);
  EXPECT_EQ(split[1].FreeAt(10), 8);
  // [50, 100): 9 held of the 9 free (1 fast, 8 slow): the 8 slow ones first, then the fast one.
  EXPECT_EQ(split[0].FreeAt(60), 0);
  EXPECT_EQ(split[1].FreeAt(60), 0);
  // [100, 200): 9 of 12 free: 8 slow and 1 fast held.
  EXPECT_EQ(split[0].FreeAt(150), 3);
  EXPECT_EQ(split[1].FreeAt(150), 0);
  EXPECT_EQ(split[0].FreeAt(250), 4);
  EXPECT_EQ(split[1].FreeAt(250), 8);
}

TEST(SplitFreeAmongGroupsTest, RandomBookingsMatchThePerInstantReference) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    const int group_count = 1 + static_cast<int>(rng() % 3);
    std::vector<ProcessorGroup> groups;
    int capacity = 0;
    for (int g = 0; g < group_count; ++g) {
      groups.push_back({absl::StrCat("g", g), 1 + static_cast<int>(rng() % 6),
                        1.0 + static_cast<double>(rng() % 3)});
      capacity += groups.back().count;
    }
    Timeline shared(capacity);
    std::vector<Timeline> own;
    for (const ProcessorGroup& g : groups) own.emplace_back(g.count);
    for (int b = 0; b < 30; ++b) {
      const Time start = static_cast<Time>(rng() % 100);
      const Time end = start + 1 + static_cast<Time>(rng() % 40);
      const int group = static_cast<int>(rng() % (group_count + 1)) - 1;  // -1: no group
      const int limit = group < 0 ? capacity : groups[group].count;
      const int k = 1 + static_cast<int>(rng() % limit);
      if (group >= 0 && own[group].MinFree(start, end) < k) continue;
      if (!shared.Add(start, end, k).ok()) continue;
      if (group >= 0) {
        ASSERT_TRUE(own[group].Add(start, end, k).ok());
      }
    }
    const Time from = static_cast<Time>(rng() % 50);
    const std::vector<Timeline> split = SplitFreeAmongGroups(shared, own, groups, from);
    std::vector<int> slowest_first(group_count);
    for (int g = 0; g < group_count; ++g) slowest_first[g] = g;
    std::stable_sort(slowest_first.begin(), slowest_first.end(),
                     [&](int a, int b) { return groups[a].speed < groups[b].speed; });
    for (Time t = from; t < 150; ++t) {
      int unowned = shared.FreeAt(t) * -1;
      for (const Timeline& o : own) unowned += o.FreeAt(t);
      int sum = 0;
      for (int g : slowest_first) {
        const int expected = own[g].FreeAt(t) - std::min(unowned, own[g].FreeAt(t));
        unowned -= own[g].FreeAt(t) - expected;
        EXPECT_EQ(split[g].FreeAt(t), expected) << "group " << g << " at " << t;
        sum += split[g].FreeAt(t);
      }
      EXPECT_EQ(sum, shared.FreeAt(t)) << "at " << t;
    }
  }
}

}  // namespace
}  // namespace resched
