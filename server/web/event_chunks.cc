#include "server/web/event_chunks.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/web/json_gateway.h"
#include "server/web/message_json.h"

namespace resched::server::web {

namespace pb = ::resched::v1;

namespace {

// `event` as SSE text. A change's event is written by MessageJson, a few times faster than
// protobuf's printer; a whole schedule, which it writes slower, by protobuf's printer
// (bench/message_json_bench.cc).
std::string ChunkOf(const pb::ScheduleEvent& event) {
  std::optional<std::string> json;
  if (event.kind() != pb::ScheduleEvent::SCHEDULE) json = MessageJson(event);
  return absl::StrCat("event: ", pb::ScheduleEvent::Kind_Name(event.kind()),
                      "\nid: ", event.sequence(), "\ndata: ", json ? *json : JsonReply(event).body,
                      "\n\n");
}

}  // namespace

EventChunks::EventChunks(std::size_t max_bytes) : max_bytes_(max_bytes) {}

std::shared_ptr<const std::string> EventChunks::Chunk(const SharedEvent& event) {
  if (event.event->kind() == pb::ScheduleEvent::SCHEDULE) {
    return std::make_shared<const std::string>(ChunkOf(*event.event));
  }
  const pb::ScheduleEvent* key = event.event.get();
  {
    MutexLock lock(&mu_);
    if (auto it = by_event_.find(key); it != by_event_.end()) return it->second.chunk;
  }
  // Converted off the lock: two streams that miss the same event at once both convert it.
  auto chunk = std::make_shared<const std::string>(ChunkOf(*event.event));
  const std::size_t size = event.bytes + chunk->size();
  if (size > max_bytes_) return chunk;
  MutexLock lock(&mu_);
  if (!by_event_.try_emplace(key, Kept{event.event, chunk, size}).second) return chunk;
  bytes_ += size;
  oldest_first_.push_back(key);
  while (bytes_ > max_bytes_) {
    auto oldest = by_event_.find(oldest_first_.front());
    bytes_ -= oldest->second.bytes;
    by_event_.erase(oldest);
    oldest_first_.pop_front();
  }
  return chunk;
}

}  // namespace resched::server::web
