// Edge cases of the reservation timeline: empty windows, full cluster, touching intervals,
// boundaries, errors, snapshots and breakpoint cleanup.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "core/timeline/timeline.h"
#include "gtest/gtest.h"
#include "tests/core/timeline/timeline_reference.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

constexpr int kP = 8;

std::vector<TimelineStep> Steps(const Timeline& t, Time from, Time to) {
  std::vector<TimelineStep> steps;
  t.ForEachStep(from, to, [&](const TimelineStep& s) { steps.push_back(s); });
  return steps;
}

ReservationId MustAdd(Timeline& t, Time start, Time end, int k) {
  auto id = t.Add(start, end, k);
  EXPECT_OK(id);
  return id.value_or(-1);
}

TEST(TimelineEdgeTest, EmptyTimeline) {
  Timeline t(kP);
  EXPECT_EQ(t.FreeAt(0), kP);
  EXPECT_EQ(t.FreeAt(kTimeMin - 1), kP);
  EXPECT_EQ(t.FreeAt(kTimeMax), kP);
  EXPECT_EQ(t.MinFree(-100, 100), kP);
  EXPECT_EQ(t.EarliestStart(5, 10, kP), 5);
  EXPECT_EQ(t.LatestStart(0, 100, 10, kP), 90);
  EXPECT_EQ(t.breakpoint_count(), 1u);
  EXPECT_EQ(Steps(t, 0, 10), (std::vector<TimelineStep>{{0, 10, kP}}));
}

TEST(TimelineEdgeTest, ZeroDurationAndZeroWidth) {
  Timeline t(kP);
  MustAdd(t, 0, 100, kP);
  EXPECT_EQ(t.EarliestStart(50, 0, kP), 50);
  EXPECT_EQ(t.EarliestStart(50, 10, 0), 50);
  EXPECT_EQ(t.LatestStart(0, 60, 0, kP), 60);
  EXPECT_EQ(t.LatestStart(0, 60, 10, 0), 50);
  EXPECT_EQ(t.LatestStart(0, 5, 10, 0), std::nullopt);  // window cannot fit before deadline
  EXPECT_EQ(t.MinFree(50, 50), kP);                     // empty window
  EXPECT_EQ(t.MinFree(60, 50), kP);
  EXPECT_TRUE(Steps(t, 50, 50).empty());
}

TEST(TimelineEdgeTest, InvalidQueries) {
  Timeline t(kP);
  EXPECT_EQ(t.EarliestStart(0, 10, kP + 1), std::nullopt);
  EXPECT_EQ(t.LatestStart(0, 100, 10, kP + 1), std::nullopt);
  EXPECT_EQ(t.EarliestStart(0, 10, -1), std::nullopt);
  EXPECT_EQ(t.EarliestStart(0, -1, 1), std::nullopt);
  EXPECT_EQ(t.LatestStart(0, 100, -1, 1), std::nullopt);
  EXPECT_EQ(t.LatestStart(0, 100, 10, -1), std::nullopt);
}

TEST(TimelineEdgeTest, FullClusterJumpsToTheEnd) {
  Timeline t(kP);
  MustAdd(t, 0, 100, 3);
  MustAdd(t, 0, 100, kP - 3);
  EXPECT_EQ(t.FreeAt(0), 0);
  EXPECT_EQ(t.FreeAt(99), 0);
  EXPECT_EQ(t.EarliestStart(0, 1, 1), 100);
  EXPECT_EQ(t.EarliestStart(-5, 5, 1), -5);  // fits just before
  EXPECT_EQ(t.EarliestStart(-5, 6, 1), 100);
  EXPECT_EQ(t.LatestStart(0, 200, 100, kP), 100);
  EXPECT_EQ(t.LatestStart(0, 150, 100, 1), std::nullopt);
  EXPECT_EQ(t.LatestStart(-100, 150, 100, 1), -100);
}

TEST(TimelineEdgeTest, TouchingIntervals) {
  Timeline t(kP);
  MustAdd(t, 0, 10, kP);
  MustAdd(t, 10, 20, kP);
  EXPECT_EQ(t.FreeAt(9), 0);
  EXPECT_EQ(t.FreeAt(10), 0);
  EXPECT_EQ(t.FreeAt(20), kP);
  EXPECT_EQ(t.FreeAt(-1), kP);
  EXPECT_EQ(t.EarliestStart(0, 1, 1), 20);
  EXPECT_EQ(t.EarliestStart(10, 1, 1), 20);
  EXPECT_EQ(t.MinFree(19, 21), 0);
  EXPECT_EQ(t.MinFree(20, 21), kP);
  EXPECT_EQ(t.LatestStart(-10, 20, 1, 1), -1);
  // The two reservations form one step; the shared breakpoint is kept but not reported.
  EXPECT_EQ(Steps(t, -5, 25), (std::vector<TimelineStep>{{-5, 0, kP}, {0, 20, 0}, {20, 25, kP}}));
  EXPECT_EQ(t.breakpoint_count(), 4u);
}

TEST(TimelineEdgeTest, ReservationEndingWhereWindowStarts) {
  Timeline t(kP);
  MustAdd(t, 0, 10, kP);
  EXPECT_EQ(t.MinFree(10, 20), kP);
  EXPECT_EQ(t.EarliestStart(10, 5, kP), 10);
  EXPECT_OK(t.Add(10, 20, kP));  // touching on the right
  EXPECT_OK(t.Add(-10, 0, kP));  // touching on the left
  EXPECT_FALSE(t.Add(-1, 1, 1).ok());
}

TEST(TimelineEdgeTest, DeadlinesAtReservationBoundaries) {
  Timeline t(kP);
  MustAdd(t, 100, 200, kP);
  // Deadline exactly at the reservation's start: the window may end there.
  EXPECT_EQ(t.LatestStart(0, 100, 10, kP), 90);
  // Deadline exactly at its end: nothing fits inside, so the window ends at its start.
  EXPECT_EQ(t.LatestStart(0, 200, 10, kP), 90);
  EXPECT_EQ(t.LatestStart(0, 210, 10, kP), 200);
  EXPECT_EQ(t.LatestStart(0, 209, 10, kP), 90);
  EXPECT_EQ(t.LatestStart(91, 200, 10, kP), std::nullopt);
  EXPECT_EQ(t.LatestStart(90, 200, 10, kP), 90);
  EXPECT_EQ(t.EarliestStart(91, 10, kP), 200);
  EXPECT_EQ(t.EarliestStart(90, 10, kP), 90);
}

TEST(TimelineEdgeTest, PartialWidth) {
  Timeline t(kP);
  MustAdd(t, 0, 100, 5);
  EXPECT_EQ(t.EarliestStart(0, 10, 3), 0);
  EXPECT_EQ(t.EarliestStart(0, 10, 4), 100);
  EXPECT_EQ(t.LatestStart(0, 150, 60, 4), std::nullopt);
  EXPECT_EQ(t.LatestStart(0, 150, 50, 4), 100);
  EXPECT_EQ(t.LatestStart(0, 150, 60, 3), 90);
}

TEST(TimelineEdgeTest, RemoveTwiceIsNotFound) {
  Timeline t(kP);
  const ReservationId id = MustAdd(t, 0, 10, 1);
  EXPECT_OK(t.Remove(id));
  const absl::Status again = t.Remove(id);
  EXPECT_EQ(again.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(t.Remove(12345).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(t.reservation_count(), 0u);
}

TEST(TimelineEdgeTest, InvalidAddNamesTheField) {
  Timeline t(kP);
  auto empty = t.Add(10, 10, 1);
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(empty.status().message(), "end must be > start")) << empty.status();
  auto reversed = t.ForceAdd(10, 5, 1);
  EXPECT_EQ(reversed.status().code(), absl::StatusCode::kInvalidArgument);
  auto zero = t.Add(0, 10, 0);
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(zero.status().message(), "k must be >= 1, got 0");
  auto early = t.Add(kTimeMin - 1, 0, 1);
  EXPECT_EQ(early.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(early.status().message(), "start must be >= kTimeMin"))
      << early.status();
  auto late = t.Add(0, kTimeMax + 1, 1);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(late.status().message(), "end must be <= kTimeMax"))
      << late.status();
  EXPECT_EQ(t.reservation_count(), 0u);
  EXPECT_EQ(t.breakpoint_count(), 1u);
}

TEST(TimelineEdgeTest, FailedAddChangesNothing) {
  Timeline t(kP);
  const ReservationId a = MustAdd(t, 0, 100, 6);
  const auto before = Steps(t, kTimeMin, kTimeMax);
  auto failed = t.Add(50, 150, 3);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "k must be <=")) << failed.status();
  EXPECT_EQ(Steps(t, kTimeMin, kTimeMax), before);
  EXPECT_EQ(t.reservation_count(), 1u);
  EXPECT_EQ(t.breakpoint_count(), 3u);
  EXPECT_OK(t.CheckInvariants());
  // The failed attempt consumed no id.
  const ReservationId b = MustAdd(t, 100, 150, 3);
  EXPECT_EQ(b, a + 1);
}

TEST(TimelineEdgeTest, ForceAddGoesNegativeAndBlocks) {
  Timeline t(kP);
  MustAdd(t, 0, 100, kP);
  auto forced = t.ForceAdd(50, 150, 2);
  ASSERT_OK(forced);
  EXPECT_EQ(t.FreeAt(60), -2);
  EXPECT_EQ(t.FreeAt(120), kP - 2);
  EXPECT_EQ(t.MinFree(0, 200), -2);
  EXPECT_EQ(t.EarliestStart(0, 10, kP), 150);
  EXPECT_EQ(t.EarliestStart(0, 10, kP - 2), 100);
  EXPECT_OK(t.Remove(*forced));
  EXPECT_EQ(t.FreeAt(60), 0);
  // Absurd depths are refused instead of overflowing.
  Timeline u(1);
  for (int i = 0; i < 4; ++i) ASSERT_OK(u.ForceAdd(0, 10, 1 << 26));
  EXPECT_EQ(u.ForceAdd(0, 10, 1 << 26).status().code(), absl::StatusCode::kOutOfRange);
}

TEST(TimelineEdgeTest, SnapshotIsIndependent) {
  Timeline t(kP);
  const ReservationId a = MustAdd(t, 0, 10, 2);
  Timeline copy = t.Copy();
  ASSERT_OK(copy.Remove(a));
  const ReservationId b = MustAdd(copy, 20, 30, kP);
  EXPECT_EQ(t.FreeAt(5), kP - 2);
  EXPECT_EQ(t.FreeAt(25), kP);
  EXPECT_TRUE(t.Get(a).has_value());
  EXPECT_FALSE(t.Get(b).has_value());
  EXPECT_EQ(t.reservation_count(), 1u);
  EXPECT_EQ(copy.FreeAt(5), kP);
  EXPECT_EQ(copy.FreeAt(25), 0);
  EXPECT_OK(t.CheckInvariants());
  EXPECT_OK(copy.CheckInvariants());
  // Each goes on booking on its own.
  const ReservationId c = MustAdd(t, 40, 50, 1);
  EXPECT_TRUE(t.Get(c).has_value());
  EXPECT_EQ(copy.FreeAt(45), kP);
  EXPECT_OK(t.CheckInvariants());
}

TEST(TimelineEdgeTest, BreakpointsAreCleanedUp) {
  Timeline t(kP);
  std::vector<ReservationId> ids;
  for (int i = 0; i < 50; ++i) {
    auto id = t.Add(i * 7 % 40, i * 7 % 40 + 5 + i % 3, 1);
    if (id.ok()) ids.push_back(*id);
  }
  ids.push_back(MustAdd(t, kTimeMin, -1000, kP));  // shares the sentinel's key
  ids.push_back(MustAdd(t, 1000, kTimeMax, kP));
  ASSERT_GT(t.breakpoint_count(), 10u);
  EXPECT_EQ(t.FreeAt(kTimeMin), 0);
  EXPECT_EQ(t.FreeAt(kTimeMax - 1), 0);
  EXPECT_EQ(t.EarliestStart(kTimeMin, 10, 1), -1000);
  EXPECT_EQ(t.LatestStart(kTimeMin, kTimeMax, 10, 1), 990);
  ASSERT_OK(t.CheckInvariants());
  for (ReservationId id : ids) ASSERT_OK(t.Remove(id));
  EXPECT_EQ(t.breakpoint_count(), 1u);
  EXPECT_EQ(Steps(t, kTimeMin, kTimeMax), (std::vector<TimelineStep>{{kTimeMin, kTimeMax, kP}}));
  EXPECT_EQ(Steps(t, -3, 3), (std::vector<TimelineStep>{{-3, 3, kP}}));
  EXPECT_OK(t.CheckInvariants());
}

TEST(TimelineEdgeTest, IdsAreNeverReused) {
  Timeline t(kP);
  absl::flat_hash_set<ReservationId> seen;
  std::vector<ReservationId> removed;
  for (int i = 0; i < 20; ++i) {
    const ReservationId id = MustAdd(t, i, i + 1, 1);
    EXPECT_GT(id, 0);
    EXPECT_TRUE(seen.insert(id).second) << "id " << id << " handed out twice";
    if (i % 2 == 0) {
      ASSERT_OK(t.Remove(id));
      removed.push_back(id);
    }
  }
  // The slots of removed records are reused; their old ids must stay unknown.
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(seen.insert(MustAdd(t, i, i + 1, 1)).second);
  for (ReservationId id : removed) {
    EXPECT_FALSE(t.Get(id).has_value());
    EXPECT_EQ(t.Remove(id).code(), absl::StatusCode::kNotFound);
  }
  const ReservationId next = MustAdd(t, 0, 1, 1);
  EXPECT_FALSE(seen.contains(next));
  const auto rec = t.Get(next);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->start, 0);
  EXPECT_EQ(rec->end, 1);
  EXPECT_EQ(rec->k, 1);
  EXPECT_OK(t.CheckInvariants());
}

TEST(TimelineEdgeTest, ExtremeTimes) {
  Timeline t(kP);
  MustAdd(t, 0, 10, kP);
  const Time lo = std::numeric_limits<Time>::min();
  const Time hi = std::numeric_limits<Time>::max();
  EXPECT_EQ(t.EarliestStart(lo, 5, 1), lo);
  EXPECT_EQ(t.EarliestStart(lo, hi, 1), lo);  // [lo, -1) ends before the reservation
  EXPECT_EQ(t.EarliestStart(-20, 25, 1), 10);
  EXPECT_EQ(t.EarliestStart(5, hi, 1), 10);
  EXPECT_EQ(t.LatestStart(lo, hi, 5, 1), hi - 5);
  EXPECT_EQ(t.LatestStart(lo, 5, 5, 1), -5);
  EXPECT_EQ(t.LatestStart(lo, 10, hi, 1), -hi);  // [-hi, 0) is free
  EXPECT_EQ(t.LatestStart(-hi + 1, 10, hi, 1), std::nullopt);
  EXPECT_EQ(t.LatestStart(-hi, 0, hi, 1), -hi);
  EXPECT_EQ(t.LatestStart(lo, lo + 5, 5, 1), lo);
  EXPECT_EQ(t.MinFree(lo, hi), 0);
  EXPECT_EQ(t.FreeAt(lo), kP);
  EXPECT_EQ(Steps(t, lo, hi), (std::vector<TimelineStep>{{lo, 0, kP}, {0, 10, 0}, {10, hi, kP}}));
}

TEST(TimelineEdgeTest, CapacityVersionMovesOnRemovalsAndCopiesOnly) {
  Timeline t(kP);
  const auto v0 = t.capacity_version();
  const ReservationId a = *t.Add(0, 10, 1);
  const ReservationId b = *t.Add(20, 30, 1);
  EXPECT_EQ(t.capacity_version(), v0);  // adds only take capacity
  t.ReleaseHeld(a, 10);                 // ended by the time searches begin
  EXPECT_EQ(t.capacity_version(), v0);
  t.ReleaseHeld(b, 25);  // frees [25, 30)
  const auto v1 = t.capacity_version();
  EXPECT_NE(v1, v0);
  const ReservationId c = *t.Add(40, 50, 1);
  ASSERT_TRUE(t.Remove(c).ok());
  EXPECT_NE(t.capacity_version(), v1);
  const Timeline copy = t.Copy();
  EXPECT_NE(copy.capacity_version(), t.capacity_version());
}

// Run summaries are built when the tree reaches the run index height, kept through updates,
// dropped when it shrinks two levels, and built again when it grows back; searches answer as
// before at every stage. Bookings at the extremes of time keep the summaries' lengths finite.
TEST(TimelineEdgeTest, RunSummariesFollowTheTreeHeight) {
  Timeline t(kP);
  t.SetRunIndexHeightForTest(2);
  EXPECT_FALSE(t.keeps_run_summaries());
  std::vector<ReservationId> ids = {MustAdd(t, kTimeMin, kTimeMin + 3, kP),
                                    MustAdd(t, kTimeMax - 3, kTimeMax, 1)};
  for (int round = 0; round < 2; ++round) {
    // Every tenth time unit a booking of 7, the whole cluster every third one: free runs of
    // 3 for kP, of everything after 7 for kP - 3.
    Time last_end = 0;
    for (Time start = 0; !t.keeps_run_summaries(); start += 10) {
      ids.push_back(MustAdd(t, start, start + 7, start % 30 == 0 ? kP : 3));
      last_end = start + 7;
      ASSERT_LT(start, 100'000) << "the tree never reached height 2";
    }
    ASSERT_OK(t.CheckInvariants());
    EXPECT_EQ(t.EarliestStart(0, 4, kP), last_end);
    EXPECT_EQ(t.EarliestStart(0, 4, kP - 3), 7);
    EXPECT_EQ(t.EarliestStart(kTimeMax - 5, 4, kP), kTimeMax);
    EXPECT_EQ(t.LatestStart(0, 30, 4, kP), std::nullopt);
    EXPECT_EQ(t.LatestStart(0, 30, 4, kP - 3), 26);
    while (ids.size() > 2) {
      ASSERT_OK(t.Remove(ids.back()));
      ids.pop_back();
    }
    ASSERT_OK(t.CheckInvariants());
    EXPECT_FALSE(t.keeps_run_summaries()) << "a single leaf keeps none";
    EXPECT_EQ(t.EarliestStart(kTimeMin, 4, kP), kTimeMin + 3);
  }
}

}  // namespace
}  // namespace resched
