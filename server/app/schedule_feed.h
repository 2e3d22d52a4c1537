// The WatchSchedule side of one cluster: its watchers, the events of changes not yet durable, and
// the recent events kept for watchers that resume. A change's events reach the watchers only once
// its journal record is durable, so that a watcher never sees a change that a crash or a takeover
// (docs/ha.md) could undo, and a watcher that resumes on another replica after the last sequence
// it saw gets exactly the events it missed (RecentEvents).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "resched/v1/service.pb.h"
#include "server/app/recent_events.h"
#include "server/app/shared_event.h"
#include "server/base/mutex.h"

namespace resched::server {

namespace pb = ::resched::v1;

// A WatchSchedule stream, as its cluster sees it.
class ScheduleSink {
 public:
  virtual ~ScheduleSink() = default;
  // Called in sequence order, under the feed's lock: must not block. The event is shared with
  // the cluster's other watchers: a sink keeps it as it is, or a copy it changes.
  virtual void Push(const SharedEvent& event) = 0;
  // The stream ends with `status` after what was pushed (cluster deleted, server stopping).
  virtual void End(const absl::Status& status) = 0;
  // True once the stream is over: the feed then drops it.
  virtual bool Closed() const = 0;
};

class ScheduleFeed {
 public:
  explicit ScheduleFeed(size_t recent_events_kept) : recent_(recent_events_kept) {}

  // The events of one change (numbered on from the last), held until journal record `lsn` is
  // durable (`durable`: it is already, or there is no journal) and then sent.
  void Publish(std::vector<pb::ScheduleEvent> events, std::int64_t lsn, bool durable);
  // Sends every event held for record `lsn` or an earlier one, now durable.
  void Release(std::int64_t lsn);
  // Events a replay of the journal rebuilt (durable, and nobody watches a replay); `rebuilt`:
  // false when the change's events could not be rebuilt, which breaks the recent history.
  void Replayed(std::vector<pb::ScheduleEvent> events, std::int64_t last_sequence, bool rebuilt);
  // Ends every stream with `why` and starts over after `last_sequence` with nothing held: a
  // rollback of changes that could not be saved.
  void Reset(std::int64_t last_sequence, const absl::Status& why);
  // Takes the recent events of `other` (a rebuilt copy of the same cluster).
  void TakeRecent(ScheduleFeed& other);

  // Subscribes `sink` to the events after `sequence` (the last one its first SCHEDULE includes).
  void Subscribe(std::shared_ptr<ScheduleSink> sink, std::int64_t sequence);
  // Subscribes `sink` after pushing the events after `seen` it missed; false (nothing done) when
  // they are not all held.
  bool Resume(std::shared_ptr<ScheduleSink> sink, std::int64_t seen);
  // Ends every stream with `status` and drops what is held.
  void EndAll(const absl::Status& status);

 private:
  struct Watcher {
    std::shared_ptr<ScheduleSink> sink;
    std::int64_t after = 0;  // the last sequence it has (its SCHEDULE's)
  };
  struct Held {
    std::int64_t lsn = 0;
    std::vector<pb::ScheduleEvent> events;
  };
  void ReleaseLocked(std::int64_t lsn) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendLocked(std::vector<pb::ScheduleEvent> events) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Mutex mu_;
  std::vector<Watcher> watchers_ ABSL_GUARDED_BY(mu_);
  std::deque<Held> held_ ABSL_GUARDED_BY(mu_);  // LSN order
  RecentEvents recent_ ABSL_GUARDED_BY(mu_);
  // The last sequence sent (or replayed): what a resume can reach.
  std::int64_t sent_through_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace resched::server
