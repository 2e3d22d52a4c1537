// WatchBacklog: events come out in order after the first schedule, a reader max_events behind or
// past its share of a spent budget is refused with why, and every byte taken from the budget is
// given back (events taken, dropped, or left when the backlog goes).
#include "server/app/watch_backlog.h"

#include <string>

#include "gtest/gtest.h"

namespace resched::server {
namespace {

namespace pb = ::resched::v1;

pb::ScheduleEvent Event(std::int64_t sequence) {
  pb::ScheduleEvent event;
  event.set_kind(pb::ScheduleEvent::JOB_CHANGED);
  event.set_sequence(sequence);
  event.mutable_job()->set_id(std::string(100, 'j'));
  return event;
}

TEST(WatchBacklog, EventsComeOutAfterTheFirstScheduleInOrderAndGiveBackTheirBytes) {
  WatchBudget budget(1 << 20, 4);
  {
    WatchBacklog backlog(10, budget);
    ASSERT_TRUE(backlog.Push(ShareEvent(Event(2))).ok());
    ASSERT_TRUE(backlog.Push(ShareEvent(Event(3))).ok());
    pb::ScheduleEvent first;
    first.set_kind(pb::ScheduleEvent::SCHEDULE);
    first.set_sequence(1);
    ASSERT_TRUE(backlog.PushFirst(first).ok());
    EXPECT_GT(budget.held(), 0u);
    for (std::int64_t expected : {1, 2}) {
      auto [event, bytes] = backlog.Pop();
      EXPECT_EQ(event->sequence(), expected);
      EXPECT_EQ(bytes, WatchBudget::BytesOf(*event));
      backlog.Taken(bytes);
    }
    EXPECT_FALSE(backlog.empty());
    // A popped event's bytes stay held until taken; the backlog gives back what it still holds.
    auto [event, bytes] = backlog.Pop();
    EXPECT_EQ(budget.held(), bytes);
    EXPECT_TRUE(backlog.empty());
  }
  EXPECT_EQ(budget.held(), 0u);
}

TEST(WatchBacklog, AReaderTooFarBehindIsRefusedAndItsEventsDropped) {
  WatchBudget budget(1 << 20, 4);
  WatchBacklog backlog(3, budget);
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(backlog.Push(ShareEvent(Event(i))).ok());
  const absl::Status refused = backlog.Push(ShareEvent(Event(4)));
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("fell 3 events behind"), std::string::npos) << refused;
  EXPECT_TRUE(backlog.empty());
  EXPECT_EQ(budget.held(), 0u);
}

TEST(WatchBacklog, PastItsShareAStreamTakesOnlyWhatTheBudgetHasLeft) {
  const std::size_t event_bytes = WatchBudget::BytesOf(Event(1));
  // A limit of 3 events shared by 3 streams: a share of one event.
  WatchBudget budget(3 * event_bytes, 3);
  WatchBacklog reader(100, budget);
  ASSERT_TRUE(reader.Push(ShareEvent(Event(1))).ok());  // its share
  ASSERT_TRUE(reader.Push(ShareEvent(Event(2))).ok());  // past it, within the limit
  ASSERT_TRUE(reader.Push(ShareEvent(Event(3))).ok());
  const absl::Status refused = reader.Push(ShareEvent(Event(4)));
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("max_watch_memory_mib"), std::string::npos) << refused;
  EXPECT_NE(refused.message().find(std::to_string(3 * event_bytes) + " bytes behind"),
            std::string::npos)
      << refused;
  EXPECT_EQ(budget.held(), 0u);

  // A first schedule must fit under the limit whatever the share.
  WatchBacklog other(100, budget);
  pb::ScheduleEvent schedule;
  schedule.set_kind(pb::ScheduleEvent::SCHEDULE);
  for (int i = 0; i < 4; ++i) *schedule.mutable_schedule()->add_jobs() = Event(i).job();
  ASSERT_TRUE(other.Push(ShareEvent(Event(5))).ok());
  const absl::Status too_big = other.PushFirst(schedule);
  EXPECT_EQ(too_big.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(too_big.message().find("first schedule"), std::string::npos) << too_big;
  EXPECT_TRUE(other.empty());
  EXPECT_EQ(budget.held(), 0u);
}

}  // namespace
}  // namespace resched::server
