#include "server/rpc/schedule_watch.h"

#include <utility>

#include "server/rpc/to_grpc.h"

namespace resched::server {

void ScheduleWatch::Start(std::optional<pb::ScheduleEvent> first) {
  {
    MutexLock lock(&mu_);
    self_ = shared_from_this();
    if (first && !end_) {
      if (absl::Status fits = backlog_.PushFirst(*std::move(first)); !fits.ok()) {
        end_ = ToGrpc(fits);
      }
    }
    started_ = true;
  }
  Pump();
}

void ScheduleWatch::Push(const SharedEvent& event) {
  {
    MutexLock lock(&mu_);
    if (end_) return;
    if (absl::Status kept = backlog_.Push(event); !kept.ok()) end_ = ToGrpc(kept);
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
    backlog_.Taken(in_flight_.bytes);
    in_flight_ = {};
    if (!ok) {  // the stream is broken: nothing more can be written
      backlog_.Drop();
      if (!end_) end_ = grpc::Status(grpc::StatusCode::CANCELLED, "the stream was broken");
    }
  }
  Pump();
}

void ScheduleWatch::OnCancel() {
  {
    MutexLock lock(&mu_);
    backlog_.Drop();
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
    in_flight_ = backlog_.Pop();
    writing_ = true;
    mu_.Unlock();
    StartWrite(in_flight_.event.get());
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
