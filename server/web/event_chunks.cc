#include "server/web/event_chunks.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "absl/strings/str_cat.h"
#include "server/web/json_gateway.h"
#include "server/web/message_json.h"

namespace resched::server::web {

namespace pb = ::resched::v1;

namespace {

// Deterministic bytes, so that equal events have equal keys.
std::string BytesOf(const pb::ScheduleEvent& event) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream output(&bytes);
    google::protobuf::io::CodedOutputStream coded(&output);
    coded.SetSerializationDeterministic(true);
    (void)event.SerializeToCodedStream(&coded);
  }
  return bytes;
}

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

std::shared_ptr<const std::string> EventChunks::Chunk(const pb::ScheduleEvent& event) {
  if (event.kind() == pb::ScheduleEvent::SCHEDULE) {
    return std::make_shared<const std::string>(ChunkOf(event));
  }
  std::string bytes = BytesOf(event);
  {
    MutexLock lock(&mu_);
    if (auto it = by_bytes_.find(bytes); it != by_bytes_.end()) return it->second;
  }
  // Converted off the lock: two streams that miss the same event at once both convert it.
  auto chunk = std::make_shared<const std::string>(ChunkOf(event));
  const std::size_t size = bytes.size() + chunk->size();
  if (size > max_bytes_) return chunk;
  MutexLock lock(&mu_);
  if (!by_bytes_.emplace(bytes, chunk).second) return chunk;
  bytes_ += size;
  oldest_first_.push_back(std::move(bytes));
  while (bytes_ > max_bytes_) {
    auto oldest = by_bytes_.find(oldest_first_.front());
    bytes_ -= oldest->first.size() + oldest->second->size();
    by_bytes_.erase(oldest);
    oldest_first_.pop_front();
  }
  return chunk;
}

}  // namespace resched::server::web
