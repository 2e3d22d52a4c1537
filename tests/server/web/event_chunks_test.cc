#include "server/web/event_chunks.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;

SharedEvent JobChanged(std::int64_t sequence, const std::string& job) {
  pb::ScheduleEvent event;
  event.set_kind(pb::ScheduleEvent::JOB_CHANGED);
  event.set_sequence(sequence);
  event.mutable_job()->set_id(job);
  event.mutable_job()->mutable_allocation()->add_processor_ids(3);
  return ShareEvent(std::move(event));
}

TEST(EventChunks, AnEventIsConvertedOnceForEveryStreamThatReceivesIt) {
  EventChunks chunks(1 << 20);
  const SharedEvent event = JobChanged(7, "j1");
  const auto first = chunks.Chunk(event);
  EXPECT_EQ(*first,
            "event: JOB_CHANGED\nid: 7\ndata: "
            "{\"kind\":\"JOB_CHANGED\",\"sequence\":\"7\",\"job\":{\"id\":\"j1\",\"allocation\":"
            "{\"processorIds\":[3]}}}\n\n");
  EXPECT_EQ(chunks.Chunk(event), first);  // the same text, not a copy
  // The same sequence as another stream received it (another tenant's job, without its id):
  // another event, its own text.
  const auto anonymous = chunks.Chunk(JobChanged(7, ""));
  EXPECT_NE(*anonymous, *first);
  EXPECT_EQ(chunks.Chunk(event), first);
}

TEST(EventChunks, TheWholeScheduleIsNeverKept) {
  EventChunks chunks(1 << 20);
  pb::ScheduleEvent whole;
  whole.set_kind(pb::ScheduleEvent::SCHEDULE);
  whole.set_sequence(4);
  const SharedEvent schedule = ShareEvent(std::move(whole));
  const auto first = chunks.Chunk(schedule);
  EXPECT_TRUE(first->starts_with("event: SCHEDULE\nid: 4\ndata: {")) << *first;
  EXPECT_NE(chunks.Chunk(schedule), first);
  EXPECT_EQ(*chunks.Chunk(schedule), *first);
}

TEST(EventChunks, TheOldestEventsLeaveAtTheBound) {
  // Events of one size (ids of one length): the bound holds two and a half of them, counting
  // each event's bytes and its text's.
  const SharedEvent j1 = JobChanged(1, "j1");
  const SharedEvent j2 = JobChanged(2, "j2");
  const SharedEvent j3 = JobChanged(3, "j3");
  const std::size_t one = j1.bytes + EventChunks(1 << 20).Chunk(j1)->size();
  EventChunks chunks(one * 5 / 2);
  const auto first = chunks.Chunk(j1);
  const auto second = chunks.Chunk(j2);
  const auto third = chunks.Chunk(j3);
  EXPECT_EQ(chunks.Chunk(j3), third);
  EXPECT_EQ(chunks.Chunk(j2), second);
  const auto again = chunks.Chunk(j1);
  EXPECT_NE(again, first);  // it had left
  EXPECT_EQ(*again, *first);
  // One larger than the bound is converted every time.
  EventChunks small(one / 2);
  EXPECT_NE(small.Chunk(j1), small.Chunk(j1));
}

}  // namespace
}  // namespace resched::server::web
