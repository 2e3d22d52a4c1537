#include "server/web/event_chunks.h"

#include <gtest/gtest.h>

#include <string>

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;

pb::ScheduleEvent JobChanged(std::int64_t sequence, const std::string& job) {
  pb::ScheduleEvent event;
  event.set_kind(pb::ScheduleEvent::JOB_CHANGED);
  event.set_sequence(sequence);
  event.mutable_job()->set_id(job);
  event.mutable_job()->mutable_allocation()->add_processor_ids(3);
  return event;
}

TEST(EventChunks, AnEventIsConvertedOnceForEveryStreamThatReceivesIt) {
  EventChunks chunks(1 << 20);
  const auto first = chunks.Chunk(JobChanged(7, "j1"));
  EXPECT_EQ(*first,
            "event: JOB_CHANGED\nid: 7\ndata: "
            "{\"kind\":\"JOB_CHANGED\",\"sequence\":\"7\",\"job\":{\"id\":\"j1\",\"allocation\":"
            "{\"processorIds\":[3]}}}\n\n");
  EXPECT_EQ(chunks.Chunk(JobChanged(7, "j1")), first);  // the same text, not a copy
  // The same sequence as another stream saw it (another tenant's job, without its id): its own.
  pb::ScheduleEvent anonymous = JobChanged(7, "");
  EXPECT_NE(*chunks.Chunk(anonymous), *first);
}

TEST(EventChunks, TheWholeScheduleIsNeverKept) {
  EventChunks chunks(1 << 20);
  pb::ScheduleEvent schedule;
  schedule.set_kind(pb::ScheduleEvent::SCHEDULE);
  schedule.set_sequence(4);
  const auto first = chunks.Chunk(schedule);
  EXPECT_TRUE(first->starts_with("event: SCHEDULE\nid: 4\ndata: {")) << *first;
  EXPECT_NE(chunks.Chunk(schedule), first);
  EXPECT_EQ(*chunks.Chunk(schedule), *first);
}

TEST(EventChunks, TheOldestEventsLeaveAtTheBound) {
  // Events of one size (ids of one length): the bound holds two and a half of them.
  const std::size_t one =
      JobChanged(1, "j1").ByteSizeLong() + EventChunks(1 << 20).Chunk(JobChanged(1, "j1"))->size();
  EventChunks chunks(one * 5 / 2);
  const auto first = chunks.Chunk(JobChanged(1, "j1"));
  const auto second = chunks.Chunk(JobChanged(2, "j2"));
  const auto third = chunks.Chunk(JobChanged(3, "j3"));
  EXPECT_EQ(chunks.Chunk(JobChanged(3, "j3")), third);
  EXPECT_EQ(chunks.Chunk(JobChanged(2, "j2")), second);
  const auto again = chunks.Chunk(JobChanged(1, "j1"));
  EXPECT_NE(again, first);  // it had left
  EXPECT_EQ(*again, *first);
  // One larger than the bound is converted every time.
  EventChunks small(one / 2);
  EXPECT_NE(small.Chunk(JobChanged(1, "j1")), small.Chunk(JobChanged(1, "j1")));
}

}  // namespace
}  // namespace resched::server::web
