// The Server-Sent Events text of schedule events, shared by the pages' streams: the cluster hands
// every watcher the same event (server/app/shared_event.h), and every open page would convert it
// to JSON again (the conversion is the largest cost of a page's stream). Keyed by the event
// itself, so that streams share an event's text only where they received the same event: a
// user's token gets its own copy, without other tenants' ids, and its own text.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "resched/v1/service.pb.h"
#include "server/app/shared_event.h"
#include "server/base/mutex.h"

namespace resched::server::web {

class EventChunks {
 public:
  // Keeps the text of the last events converted, at most `max_bytes` of it and of the events.
  explicit EventChunks(std::size_t max_bytes);

  // `event` as an SSE event: its kind as the event name, its sequence as the id, its JSON as
  // the data. A stream's first event (SCHEDULE, the whole schedule) is its own: never kept.
  std::shared_ptr<const std::string> Chunk(const SharedEvent& event) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Kept {
    // Held while kept, so that no other event takes its address, the key.
    std::shared_ptr<const resched::v1::ScheduleEvent> event;
    std::shared_ptr<const std::string> chunk;
    std::size_t bytes = 0;
  };
  const std::size_t max_bytes_;
  Mutex mu_;
  std::size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<const resched::v1::ScheduleEvent*, Kept> by_event_ ABSL_GUARDED_BY(mu_);
  std::deque<const resched::v1::ScheduleEvent*> oldest_first_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server::web
