#include "server/schedule_watch.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/errors.h"

namespace resched::server {

void ScheduleWatch::Start(std::shared_ptr<ScheduleWatch> self,
                          std::optional<pb::ScheduleEvent> first) {
  {
    std::lock_guard lock(mu_);
    self_ = std::move(self);
    if (first) backlog_.push_front(*std::move(first));
    started_ = true;
  }
  Pump();
}

void ScheduleWatch::Push(const pb::ScheduleEvent& event) {
  {
    std::lock_guard lock(mu_);
    if (end_) return;
    if (backlog_.size() >= max_backlog_) {
      backlog_.clear();
      end_ = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          absl::StrCat("the watcher fell ", max_backlog_,
                                       " events behind (the limit); watch again for a new "
                                       "snapshot"));
    } else {
      backlog_.push_back(event);
    }
  }
  Pump();
}

void ScheduleWatch::End(const absl::Status& status) {
  {
    std::lock_guard lock(mu_);
    if (!end_) end_ = ToGrpc(status);
  }
  Pump();
}

void ScheduleWatch::OnWriteDone(bool ok) {
  {
    std::lock_guard lock(mu_);
    writing_ = false;
    if (!ok) {  // the stream is broken: nothing more can be written
      backlog_.clear();
      if (!end_) end_ = grpc::Status(grpc::StatusCode::CANCELLED, "the stream was broken");
    }
  }
  Pump();
}

void ScheduleWatch::OnCancel() {
  {
    std::lock_guard lock(mu_);
    backlog_.clear();
    if (!end_) end_ = grpc::Status(grpc::StatusCode::CANCELLED, "cancelled by the client");
  }
  Pump();
}

// Finished: the cluster drops the stream at its next publication (self_ keeps it alive until
// OnDone if it goes first).
bool ScheduleWatch::Closed() const {
  std::lock_guard lock(mu_);
  return finished_;
}

void ScheduleWatch::OnDone() {
  auto keep = std::move(self_);  // may destroy *this on return
}

void ScheduleWatch::Pump() {
  std::unique_lock lock(mu_);
  if (!started_ || writing_ || finished_) return;
  if (!backlog_.empty()) {
    in_flight_ = std::move(backlog_.front());
    backlog_.pop_front();
    writing_ = true;
    lock.unlock();
    StartWrite(&in_flight_);
    return;
  }
  if (!end_) return;
  finished_ = true;
  const grpc::Status status = *end_;
  lock.unlock();
  Finish(status);
}

}  // namespace resched::server
