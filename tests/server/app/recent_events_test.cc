// RecentEvents against a plain list of every event ever added: After gives exactly the events
// after the one asked for when it holds them all and the resume point is safe (a change's start,
// or anywhere in events kept in their published order), and nothing otherwise.
#include "server/app/recent_events.h"

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace resched::server {
namespace {

std::vector<RecentEvents::Event> Change(std::int64_t first, int count) {
  std::vector<RecentEvents::Event> events;
  for (int i = 0; i < count; ++i) {
    auto event = std::make_shared<pb::ScheduleEvent>();
    event->set_sequence(first + i);
    event->mutable_job()->set_id(absl::StrCat("j", first + i));
    events.push_back(std::move(event));
  }
  return events;
}

std::vector<std::int64_t> Sequences(const std::vector<RecentEvents::Event>& events) {
  std::vector<std::int64_t> out;
  for (const auto& e : events) out.push_back(e->sequence());
  return out;
}

TEST(RecentEvents, RandomChangesMatchAPlainHistory) {
  std::mt19937 rng(11);
  for (int round = 0; round < 40; ++round) {
    const size_t capacity = 1 + rng() % 30;
    RecentEvents recent(capacity);
    // The reference: every sequence with its change's start and whether its order is exact.
    struct Seen {
      bool starts_change;
      bool exact;
    };
    std::vector<Seen> history;  // index i: sequence i + 1
    std::int64_t cleared_through = 0;
    std::int64_t last = 0;
    for (int step = 0; step < 60; ++step) {
      if (rng() % 15 == 0) {
        recent.Clear();
        cleared_through = last;
        continue;
      }
      const int count = 1 + static_cast<int>(rng() % 5);
      const bool exact = rng() % 2 == 0;
      recent.Add(Change(last + 1, count), exact);
      for (int i = 0; i < count; ++i) history.push_back({i == 0, exact});
      last += count;
      for (std::int64_t seen = 0; seen <= last + 1; ++seen) {
        const auto got = recent.After(seen, last);
        const std::int64_t oldest_kept =
            std::max(cleared_through + 1, last - static_cast<std::int64_t>(capacity) + 1);
        bool expect = seen == last;
        if (seen < last && seen + 1 >= oldest_kept) {
          const Seen& next = history[static_cast<size_t>(seen)];
          expect = next.starts_change || next.exact;
        }
        ASSERT_EQ(got.has_value(), expect) << "seen " << seen << " last " << last;
        if (!got) continue;
        std::vector<std::int64_t> want;
        for (std::int64_t s = seen + 1; s <= last; ++s) want.push_back(s);
        EXPECT_EQ(Sequences(*got), want);
      }
    }
  }
}

TEST(RecentEvents, AGapInTheNumberingDropsWhatCameBefore) {
  RecentEvents recent(100);
  recent.Add(Change(1, 3), true);
  recent.Add(Change(10, 2), true);  // 4..9 were published while nothing was kept
  EXPECT_FALSE(recent.After(2, 11).has_value());
  EXPECT_FALSE(recent.After(8, 11).has_value());
  ASSERT_TRUE(recent.After(9, 11).has_value());
  EXPECT_EQ(Sequences(*recent.After(9, 11)), (std::vector<std::int64_t>{10, 11}));
}

TEST(RecentEvents, AWatcherAheadOfTheClusterGetsNothing) {
  RecentEvents recent(100);
  recent.Add(Change(1, 3), true);
  // It saw events of a change that was never committed.
  EXPECT_FALSE(recent.After(5, 3).has_value());
  EXPECT_FALSE(recent.After(2, 4).has_value()) << "event 4 is not held";
}

}  // namespace
}  // namespace resched::server
