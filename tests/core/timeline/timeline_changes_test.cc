// The timeline's change record (Timeline::RecordChanges): every add and release in order, the
// release's searches_from kept, nothing recorded by copies, and the record dropped when it
// outgrows its bound, so that a reader always knows when it must rebuild.
#include <gtest/gtest.h>

#include "core/timeline/timeline.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

TEST(TimelineChanges, NothingIsRecordedUntilAsked) {
  Timeline t(4);
  ASSERT_OK(t.Add(0, 10, 1));
  EXPECT_EQ(t.change_stream(), 0u);
  EXPECT_TRUE(t.changes().empty());
}

TEST(TimelineChanges, AddsAndReleasesAreRecordedInOrder) {
  Timeline t(4);
  const ReservationId before = testing::OkValue(t.Add(0, 10, 1));
  const std::uint64_t stream = t.RecordChanges();
  EXPECT_NE(stream, 0u);
  EXPECT_EQ(t.change_stream(), stream);
  const ReservationId a = testing::OkValue(t.Add(5, 20, 2));
  EXPECT_FALSE(t.Add(0, 30, 4).ok());  // a refused add changes nothing and is not recorded
  const ReservationId b = testing::OkValue(t.ForceAdd(30, 40, 4));
  t.ReleaseHeld(before, /*searches_from=*/12);
  ASSERT_OK(t.Remove(a));
  ASSERT_EQ(t.changes().size(), 4u);
  EXPECT_EQ(t.changes()[0].id, a);
  EXPECT_TRUE(t.changes()[0].added);
  EXPECT_EQ(t.changes()[0].reservation, (Allocation{2, 5, 20}));
  EXPECT_EQ(t.changes()[1].id, b);
  EXPECT_EQ(t.changes()[2].id, before);
  EXPECT_FALSE(t.changes()[2].added);
  EXPECT_EQ(t.changes()[2].reservation, (Allocation{1, 0, 10}));
  EXPECT_EQ(t.changes()[2].searches_from, 12);
  EXPECT_EQ(t.changes()[3].id, a);
  EXPECT_EQ(t.changes()[3].searches_from, kTimeMin);
  t.DropChanges(3);
  ASSERT_EQ(t.changes().size(), 1u);
  EXPECT_EQ(t.changes()[0].id, a);
  EXPECT_FALSE(t.changes()[0].added);
  EXPECT_EQ(t.change_stream(), stream);  // dropping what was read keeps the stream
}

TEST(TimelineChanges, ACopyRecordsNothingAndTheOriginalKeepsItsRecord) {
  Timeline t(4);
  const std::uint64_t stream = t.RecordChanges();
  ASSERT_OK(t.Add(0, 10, 1));
  Timeline copy = t.Copy();
  EXPECT_EQ(copy.change_stream(), 0u);
  EXPECT_TRUE(copy.changes().empty());
  ASSERT_OK(copy.Add(0, 10, 1));
  EXPECT_TRUE(copy.changes().empty());
  EXPECT_EQ(t.change_stream(), stream);
  EXPECT_EQ(t.changes().size(), 1u);
  Timeline assigned(4);
  assigned.RecordChanges();
  assigned = t;  // an assignment is another timeline for a reader too
  EXPECT_EQ(assigned.change_stream(), 0u);
  EXPECT_TRUE(assigned.changes().empty());
  EXPECT_NE(t.RecordChanges(), stream);  // a fresh record never reuses a stream
}

TEST(TimelineChanges, ARecordNobodyReadsIsDroppedWhenItOutgrowsItsBound) {
  Timeline t(1);
  t.RecordChanges();
  // At most one live booking: the bound is 65536 changes; add and release one window past it.
  for (int i = 0; i < 32768; ++i) {
    const ReservationId id = testing::OkValue(t.Add(0, 10, 1));
    t.ReleaseHeld(id);
  }
  EXPECT_NE(t.change_stream(), 0u);
  EXPECT_EQ(t.changes().size(), 65536u);
  ASSERT_OK(t.Add(0, 10, 1));
  EXPECT_EQ(t.change_stream(), 0u);
  EXPECT_TRUE(t.changes().empty());
}

}  // namespace
}  // namespace resched
