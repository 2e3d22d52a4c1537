// The last WatchSchedule events of one cluster, so that a watcher whose stream broke (its replica
// died, the cluster moved to another replica, the network dropped it) resumes after the last
// sequence it saw with the events it missed instead of a whole new schedule. The events are kept
// as published (the very events the watchers were sent, shared with them) and, on a replica that
// rebuilt the cluster from its journal, as the replay rebuilds them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "resched/v1/service.pb.h"

namespace resched::server {

namespace pb = ::resched::v1;

class RecentEvents {
 public:
  // Never changed once made: read by the watchers' threads as well.
  using Event = std::shared_ptr<const pb::ScheduleEvent>;

  explicit RecentEvents(size_t capacity) : capacity_(capacity) {}

  // Appends the events of one change, numbered on from the last ones held (others are dropped
  // first). `exact_order`: false for events a replay rebuilt, whose order within their change may
  // differ from the order they were first published in.
  void Add(const std::vector<Event>& change, bool exact_order);
  // Forgets every event: one was published that cannot be rebuilt here.
  void Clear() { events_.clear(); }

  // The events after `seen` through `last` (the cluster's last sequence), for a watcher that saw
  // every event through `seen`: each one it missed exactly once. nullopt when they are not all
  // held, when `seen` is past `last` (it saw events of a change that was never committed), or
  // when `seen` ends part of a change whose order is not known.
  std::optional<std::vector<Event>> After(std::int64_t seen, std::int64_t last) const;

  size_t size() const { return events_.size(); }

 private:
  struct Held {
    Event event;
    bool starts_change = false;
    bool exact_order = false;
  };
  size_t capacity_;
  std::deque<Held> events_;
};

}  // namespace resched::server
