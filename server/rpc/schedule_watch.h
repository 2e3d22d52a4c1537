// One WatchSchedule stream on the callback API: a write reactor fed by its cluster. The cluster
// pushes events under its lock, in sequence order; the stream writes them one at a time and
// keeps the rest in a bounded backlog (server/app/watch_backlog.h), so a slow reader never blocks
// the cluster nor holds a thread. A reader that falls too far behind gets RESOURCE_EXHAUSTED and
// must resubscribe.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "server/app/shared_event.h"
#include "server/app/watch_backlog.h"
#include "server/base/mutex.h"
#include "server/rpc/watch_opener.h"

namespace resched::server {

class ScheduleWatch final : public grpc::ServerWriteReactor<pb::ScheduleEvent>,
                            public WatchOpener::Stream,
                            public std::enable_shared_from_this<ScheduleWatch> {
 public:
  // `on_done` runs once, when gRPC is done with the stream. `budget` (outliving the stream)
  // holds what its unwritten events take.
  ScheduleWatch(size_t max_backlog, WatchBudget& budget, std::function<void()> on_done = nullptr)
      : on_done_(std::move(on_done)), backlog_(max_backlog, budget) {}

  // Begins writing: `first` (the SCHEDULE), then what was pushed meanwhile; a first schedule that
  // does not fit in the budget ends the stream at once. Keeps the stream alive until gRPC is done
  // with it.
  void Start(std::optional<pb::ScheduleEvent> first) override;

  void Push(const SharedEvent& event) override;
  void End(const absl::Status& status) override;
  bool Closed() const override;

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // Starts the next write, or finishes once the backlog is empty and an end was given. Called
  // without mu_, and never calls gRPC with mu_ held, so reactions may run inline.
  void Pump() ABSL_LOCKS_EXCLUDED(mu_);

  const std::function<void()> on_done_;
  mutable Mutex mu_;
  WatchBacklog backlog_ ABSL_GUARDED_BY(mu_);
  // StartWrite's message, with what it holds of the budget: set under mu_ while no write is in
  // flight, then read by gRPC alone until OnWriteDone.
  SharedEvent in_flight_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<grpc::Status> end_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<ScheduleWatch> self_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server
