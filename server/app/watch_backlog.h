// The events a watch stream holds before its reader takes them, bounded as every stream is
// bounded (ServiceLimits::max_watch_backlog events, and the memory all streams share,
// server/app/watch_budget.h), for the gRPC stream and the web view's alike. Not locked: its
// stream's lock guards it.
#pragma once

#include <cstddef>
#include <deque>

#include "absl/status/status.h"
#include "resched/v1/service.pb.h"
#include "server/app/shared_event.h"
#include "server/app/watch_budget.h"

namespace resched::server {

class WatchBacklog {
 public:
  // `budget` outlives the backlog.
  WatchBacklog(std::size_t max_events, WatchBudget& budget)
      : max_events_(max_events), budget_(budget) {}
  // Returns to the budget what it still holds.
  ~WatchBacklog();
  WatchBacklog(const WatchBacklog&) = delete;
  WatchBacklog& operator=(const WatchBacklog&) = delete;

  // The stream's first event (its SCHEDULE), ahead of what was pushed meanwhile; it must fit under
  // the budget's limit. RESOURCE_EXHAUSTED saying why (everything dropped) when it does not.
  absl::Status PushFirst(resched::v1::ScheduleEvent event);
  // An event after the others; RESOURCE_EXHAUSTED saying why (everything dropped) when the reader
  // is max_events behind, or past its share of a budget that is spent.
  absl::Status Push(const SharedEvent& event);

  bool empty() const { return events_.empty(); }
  // Half way to either limit: a reader that waits for more events before it takes them (the web
  // view's gathering) takes them now, before the stream is cut off.
  bool HalfFull() const {
    return 2 * events_.size() >= max_events_ || 2 * held_bytes_ >= budget_.share();
  }
  // Takes the oldest event; what it holds of the budget stays held until Taken(bytes).
  SharedEvent Pop();
  // Returns the bytes of an event Pop gave, once it is written.
  void Taken(std::size_t bytes);
  // Drops every event (the reader went away).
  void Drop();

 private:
  const std::size_t max_events_;
  WatchBudget& budget_;
  std::deque<SharedEvent> events_;
  // What the stream holds of the budget: its events and those popped but not yet written.
  std::size_t held_bytes_ = 0;
};

}  // namespace resched::server
