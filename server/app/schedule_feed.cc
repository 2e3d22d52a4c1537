#include "server/app/schedule_feed.h"

#include <utility>

namespace resched::server {

void ScheduleFeed::Publish(std::vector<pb::ScheduleEvent> events, std::int64_t lsn, bool durable) {
  if (events.empty()) return;
  MutexLock lock(&mu_);
  if (durable && held_.empty()) {
    SendLocked(std::move(events));
    return;
  }
  held_.push_back(Held{lsn, std::move(events)});
  // Durable now: so are the held events before it, of its record or earlier ones.
  if (durable) ReleaseLocked(lsn);
}

void ScheduleFeed::Release(std::int64_t lsn) {
  MutexLock lock(&mu_);
  ReleaseLocked(lsn);
}

void ScheduleFeed::ReleaseLocked(std::int64_t lsn) {
  while (!held_.empty() && held_.front().lsn <= lsn) {
    SendLocked(std::move(held_.front().events));
    held_.pop_front();
  }
}

namespace {

// The events moved, not copied, into what the recent history and the watchers share. Their sizes
// are counted only when a watcher takes them.
std::vector<RecentEvents::Event> Shareable(std::vector<pb::ScheduleEvent> events) {
  std::vector<RecentEvents::Event> shareable;
  shareable.reserve(events.size());
  for (pb::ScheduleEvent& event : events) {
    shareable.push_back(std::make_shared<const pb::ScheduleEvent>(std::move(event)));
  }
  return shareable;
}

}  // namespace

void ScheduleFeed::SendLocked(std::vector<pb::ScheduleEvent> events) {
  std::vector<RecentEvents::Event> shareable = Shareable(std::move(events));
  recent_.Add(shareable, /*exact_order=*/true);
  sent_through_ = shareable.back()->sequence();
  std::erase_if(watchers_, [](const Watcher& w) { return w.sink->Closed(); });
  if (watchers_.empty()) return;
  for (RecentEvents::Event& event : shareable) {
    const SharedEvent shared = ShareEvent(std::move(event));
    for (const Watcher& watcher : watchers_) {
      if (shared.event->sequence() > watcher.after) watcher.sink->Push(shared);
    }
  }
}

void ScheduleFeed::Replayed(std::vector<pb::ScheduleEvent> events, std::int64_t last_sequence,
                            bool rebuilt) {
  MutexLock lock(&mu_);
  if (rebuilt) {
    recent_.Add(Shareable(std::move(events)), /*exact_order=*/false);
  } else {
    recent_.Clear();
  }
  sent_through_ = last_sequence;
}

void ScheduleFeed::Reset(std::int64_t last_sequence, const absl::Status& why) {
  MutexLock lock(&mu_);
  for (const Watcher& watcher : watchers_) watcher.sink->End(why);
  watchers_.clear();
  held_.clear();
  recent_.Clear();
  sent_through_ = last_sequence;
}

void ScheduleFeed::TakeRecent(ScheduleFeed& other) {
  if (&other == this) return;
  RecentEvents taken(0);
  {
    MutexLock lock(&other.mu_);
    taken = std::move(other.recent_);
  }
  MutexLock lock(&mu_);
  recent_ = std::move(taken);
}

void ScheduleFeed::Subscribe(std::shared_ptr<ScheduleSink> sink, std::int64_t sequence) {
  MutexLock lock(&mu_);
  std::erase_if(watchers_, [](const Watcher& w) { return w.sink->Closed(); });
  watchers_.push_back(Watcher{std::move(sink), sequence});
}

bool ScheduleFeed::Resume(std::shared_ptr<ScheduleSink> sink, std::int64_t seen) {
  MutexLock lock(&mu_);
  std::optional<std::vector<RecentEvents::Event>> missed = recent_.After(seen, sent_through_);
  if (!missed) return false;
  for (RecentEvents::Event& event : *missed) sink->Push(ShareEvent(std::move(event)));
  std::erase_if(watchers_, [](const Watcher& w) { return w.sink->Closed(); });
  watchers_.push_back(Watcher{std::move(sink), sent_through_});
  return true;
}

void ScheduleFeed::EndAll(const absl::Status& status) {
  MutexLock lock(&mu_);
  for (const Watcher& watcher : watchers_) watcher.sink->End(status);
  watchers_.clear();
  held_.clear();
}

}  // namespace resched::server
