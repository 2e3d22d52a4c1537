// The Server-Sent Events text of schedule events, shared by the pages' streams: each stream
// receives its own copy of an event over its own WatchSchedule call, and every open page would
// convert the same event to JSON again (protobuf's JSON printer is the largest cost of a page's
// stream). Keyed by the event's bytes, so that streams share an event's text only where they
// received the same event (a user's token sees other tenants' jobs without their ids).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "resched/v1/service.pb.h"
#include "server/base/mutex.h"

namespace resched::server::web {

class EventChunks {
 public:
  // Keeps the text of the last distinct events, at most `max_bytes` of it and of their bytes.
  explicit EventChunks(std::size_t max_bytes);

  // `event` as an SSE event: its kind as the event name, its sequence as the id, its JSON as
  // the data. A stream's first event (SCHEDULE, the whole schedule) is its own: never kept.
  std::shared_ptr<const std::string> Chunk(const resched::v1::ScheduleEvent& event)
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const std::size_t max_bytes_;
  std::size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const std::string>> by_bytes_
      ABSL_GUARDED_BY(mu_);
  std::deque<std::string> oldest_first_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server::web
