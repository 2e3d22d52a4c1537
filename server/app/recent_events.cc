#include "server/app/recent_events.h"

namespace resched::server {

void RecentEvents::Add(const std::vector<Event>& change, bool exact_order) {
  if (change.empty()) return;
  // A gap in the numbering (events published while nothing was kept) breaks the history.
  if (!events_.empty() && events_.back().event->sequence() + 1 != change.front()->sequence()) {
    events_.clear();
  }
  bool first = true;
  for (const Event& event : change) {
    events_.push_back(Held{event, first, exact_order});
    first = false;
  }
  while (events_.size() > capacity_) events_.pop_front();
}

std::optional<std::vector<RecentEvents::Event>> RecentEvents::After(std::int64_t seen,
                                                                    std::int64_t last) const {
  if (seen == last) return std::vector<Event>{};
  if (seen > last || events_.empty() || events_.back().event->sequence() != last) {
    return std::nullopt;
  }
  const std::int64_t oldest = events_.front().event->sequence();
  if (seen + 1 < oldest) return std::nullopt;
  const auto from = static_cast<size_t>(seen + 1 - oldest);
  const Held& next = events_[from];
  // Mid-change, the watcher's events and these may not split the change at the same place.
  if (!next.starts_change && !next.exact_order) return std::nullopt;
  std::vector<Event> missed;
  missed.reserve(events_.size() - from);
  for (size_t i = from; i < events_.size(); ++i) missed.push_back(events_[i].event);
  return missed;
}

}  // namespace resched::server
