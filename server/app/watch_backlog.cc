#include "server/app/watch_backlog.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace resched::server {

namespace pb = ::resched::v1;

WatchBacklog::~WatchBacklog() { budget_.Give(held_bytes_); }

absl::Status WatchBacklog::PushFirst(pb::ScheduleEvent event) {
  const std::size_t bytes = WatchBudget::BytesOf(event);
  if (!budget_.TryTake(bytes)) {
    Drop();
    return absl::ResourceExhaustedError(absl::StrFormat(
        "WatchSchedule streams hold %d bytes of events not yet written; this stream's first "
        "schedule of %d bytes would pass the limit (max_watch_memory_mib %d): watch again once "
        "their readers have caught up",
        budget_.held(), bytes, budget_.max_bytes() >> 20));
  }
  held_bytes_ += bytes;
  events_.push_front({std::make_shared<const pb::ScheduleEvent>(std::move(event)), bytes});
  return absl::OkStatus();
}

absl::Status WatchBacklog::Push(const SharedEvent& event) {
  const std::size_t bytes = event.bytes;
  if (events_.size() >= max_events_) {
    Drop();
    return absl::ResourceExhaustedError(
        absl::StrCat("the watcher fell ", max_events_,
                     " events behind (the limit); watch again for a new first schedule"));
  }
  if (held_bytes_ + bytes > budget_.share() && !budget_.TryTake(bytes)) {
    const std::size_t behind = held_bytes_;
    Drop();
    return absl::ResourceExhaustedError(absl::StrFormat(
        "WatchSchedule streams hold %d bytes of events not yet written, the limit "
        "(max_watch_memory_mib %d), and this stream's reader is %d bytes behind: watch again for "
        "a new first schedule",
        budget_.held(), budget_.max_bytes() >> 20, behind));
  }
  // Within its share a stream takes its events whatever the others hold.
  if (held_bytes_ + bytes <= budget_.share()) budget_.Take(bytes);
  held_bytes_ += bytes;
  events_.push_back(event);
  return absl::OkStatus();
}

SharedEvent WatchBacklog::Pop() {
  auto oldest = std::move(events_.front());
  events_.pop_front();
  return oldest;
}

void WatchBacklog::Taken(std::size_t bytes) {
  budget_.Give(bytes);
  held_bytes_ -= bytes;
}

void WatchBacklog::Drop() {
  for (const SharedEvent& event : events_) Taken(event.bytes);
  events_.clear();
}

}  // namespace resched::server
