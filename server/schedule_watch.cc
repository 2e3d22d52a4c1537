#include "server/schedule_watch.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/errors.h"

namespace resched::server {

void ScheduleWatch::Start(std::shared_ptr<ScheduleWatch> self,
                          std::optional<pb::ScheduleEvent> first) {
  {
    MutexLock lock(&mu_);
    self_ = std::move(self);
    if (first) backlog_.push_front(*std::move(first));
    started_ = true;
  }
  Pump();
}

void ScheduleWatch::Push(const pb::ScheduleEvent& event) {
  {
    MutexLock lock(&mu_);
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
    MutexLock lock(&mu_);
    if (!end_) end_ = ToGrpc(status);
  }
  Pump();
}

void ScheduleWatch::OnWriteDone(bool ok) {
  {
    MutexLock lock(&mu_);
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
    MutexLock lock(&mu_);
    backlog_.clear();
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
    in_flight_ = std::move(backlog_.front());
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
