#include "server/rpc/schedule_watch.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/rpc/to_grpc.h"

namespace resched::server {

ScheduleWatch::~ScheduleWatch() {
  // Nothing is left unless gRPC dropped the stream with events unwritten.
  MutexLock lock(&mu_);
  budget_.Give(held_bytes_);
}

void ScheduleWatch::Start(std::shared_ptr<ScheduleWatch> self,
                          std::optional<pb::ScheduleEvent> first) {
  {
    MutexLock lock(&mu_);
    self_ = std::move(self);
    if (first && !end_) {
      const size_t bytes = WatchBudget::BytesOf(*first);
      if (budget_.TryTake(bytes)) {
        held_bytes_ += bytes;
        backlog_.emplace_front(*std::move(first), bytes);
      } else {
        GiveUpLocked(absl::StrFormat(
            "WatchSchedule streams hold %d bytes of events not yet written; this stream's "
            "first schedule of %d bytes would pass the limit (max_watch_memory_mib %d): watch "
            "again "
            "once their readers have caught up",
            budget_.held(), bytes, budget_.max_bytes() >> 20));
      }
    }
    started_ = true;
  }
  Pump();
}

void ScheduleWatch::Push(const pb::ScheduleEvent& event) {
  {
    MutexLock lock(&mu_);
    if (end_) return;
    const size_t bytes = WatchBudget::BytesOf(event);
    if (backlog_.size() >= max_backlog_) {
      GiveUpLocked(
          absl::StrCat("the watcher fell ", max_backlog_,
                       " events behind (the limit); watch again for a new first schedule"));
    } else if (held_bytes_ + bytes > budget_.share() && !budget_.TryTake(bytes)) {
      GiveUpLocked(absl::StrFormat(
          "WatchSchedule streams hold %d bytes of events not yet written, the limit "
          "(max_watch_memory_mib %d), and this stream's reader is %d bytes behind: watch again "
          "for a new first schedule",
          budget_.held(), budget_.max_bytes() >> 20, held_bytes_));
    } else {
      // Within its share a stream takes its events whatever the others hold.
      if (held_bytes_ + bytes <= budget_.share()) budget_.Take(bytes);
      held_bytes_ += bytes;
      backlog_.emplace_back(event, bytes);
    }
  }
  Pump();
}

void ScheduleWatch::GiveUpLocked(const std::string& why) {
  DropBacklogLocked();
  end_ = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, why);
}

void ScheduleWatch::DropBacklogLocked() {
  for (const auto& [event, bytes] : backlog_) {
    budget_.Give(bytes);
    held_bytes_ -= bytes;
  }
  backlog_.clear();
}

void ScheduleWatch::End(const absl::Status& status) {
  {
    MutexLock lock(&mu_);
    if (!end_) end_ = ToGrpc(status);
  }
  Pump();
}

void ScheduleWatch::OnWriteDone(bool ok) {
  {
    MutexLock lock(&mu_);
    writing_ = false;
    budget_.Give(in_flight_bytes_);
    held_bytes_ -= in_flight_bytes_;
    in_flight_bytes_ = 0;
    if (!ok) {  // the stream is broken: nothing more can be written
      DropBacklogLocked();
      if (!end_) end_ = grpc::Status(grpc::StatusCode::CANCELLED, "the stream was broken");
    }
  }
  Pump();
}

void ScheduleWatch::OnCancel() {
  {
    MutexLock lock(&mu_);
    DropBacklogLocked();
    if (!end_) end_ = grpc::Status(grpc::StatusCode::CANCELLED, "cancelled by the client");
  }
  Pump();
}

// Finished: the cluster drops the stream at its next publication (self_ keeps it alive until
// OnDone if it goes first).
bool ScheduleWatch::Closed() const {
  MutexLock lock(&mu_);
  return finished_;
}

void ScheduleWatch::OnDone() {
  if (on_done_) on_done_();
  std::shared_ptr<ScheduleWatch> keep;
  {
    MutexLock lock(&mu_);
    keep = std::move(self_);
  }
}  // `keep` may destroy *this here, with mu_ released

void ScheduleWatch::Pump() {
  mu_.Lock();
  if (!started_ || writing_ || finished_) {
    mu_.Unlock();
    return;
  }
  if (!backlog_.empty()) {
    in_flight_ = std::move(backlog_.front().first);
    in_flight_bytes_ = backlog_.front().second;
    backlog_.pop_front();
    writing_ = true;
    mu_.Unlock();
    StartWrite(&in_flight_);
    return;
  }
  if (!end_) {
    mu_.Unlock();
    return;
  }
  finished_ = true;
  const grpc::Status status = *end_;
  mu_.Unlock();
  Finish(status);
}

}  // namespace resched::server
