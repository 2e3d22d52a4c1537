// One schedule event as every watcher of a cluster receives it: made once per change and shared
// by the streams' backlogs, rather than copied into each, with its size counted once. The web
// view converts it once for all its pages, keyed by the event itself (server/web/event_chunks.h).
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

#include "resched/v1/service.pb.h"
#include "server/app/watch_budget.h"

namespace resched::server {

struct SharedEvent {
  // Read by several threads at once, never changed: gRPC serializes it for each stream (the
  // sizes protobuf caches in it are atomic, and every thread that sets them sets the same).
  std::shared_ptr<const resched::v1::ScheduleEvent> event;
  // WatchBudget::BytesOf(*event). Each stream that holds the event counts them against its own
  // share of the budget, as if it held a copy: the limit errs on the safe side.
  std::size_t bytes = 0;
};

// An event already shared (kept for resumes as well), with its size.
inline SharedEvent ShareEvent(std::shared_ptr<const resched::v1::ScheduleEvent> event) {
  const std::size_t bytes = WatchBudget::BytesOf(*event);
  return {std::move(event), bytes};
}

inline SharedEvent ShareEvent(resched::v1::ScheduleEvent event) {
  return ShareEvent(std::make_shared<const resched::v1::ScheduleEvent>(std::move(event)));
}

}  // namespace resched::server
