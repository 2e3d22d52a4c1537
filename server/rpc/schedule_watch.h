// One WatchSchedule stream on the callback API: a write reactor fed by its cluster. The cluster
// pushes events under its lock, in sequence order; the stream writes them one at a time and
// keeps the rest in a bounded backlog, so a slow reader never blocks the cluster nor holds a
// thread. A reader that falls too far behind (max_backlog events, or past the memory budget all
// streams share) gets RESOURCE_EXHAUSTED and must resubscribe.
#pragma once

#include <grpcpp/grpcpp.h>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "server/app/cluster_state.h"
#include "server/app/watch_budget.h"
#include "server/base/mutex.h"

namespace resched::server {

class ScheduleWatch final : public grpc::ServerWriteReactor<pb::ScheduleEvent>,
                            public ScheduleSink {
 public:
  // `on_done` runs once, when gRPC is done with the stream (metrics). `budget` (outliving the
  // stream) holds what its unwritten events take.
  ScheduleWatch(size_t max_backlog, WatchBudget& budget, std::function<void()> on_done = nullptr)
      : max_backlog_(max_backlog), budget_(budget), on_done_(std::move(on_done)) {}
  ~ScheduleWatch() override;

  // Begins writing: `first` (the SCHEDULE), then what was pushed meanwhile; a first schedule that
  // does not fit in the budget ends the stream at once. `self` keeps the stream alive until gRPC is
  // done with it.
  void Start(std::shared_ptr<ScheduleWatch> self, std::optional<pb::ScheduleEvent> first);

  void Push(const pb::ScheduleEvent& event) override;
  void End(const absl::Status& status) override;
  bool Closed() const override;

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // Starts the next write, or finishes once the backlog is empty and an end was given. Called
  // without mu_, and never calls gRPC with mu_ held, so reactions may run inline.
  void Pump() ABSL_LOCKS_EXCLUDED(mu_);

  // Ends the stream with RESOURCE_EXHAUSTED saying why, dropping what it holds.
  void GiveUpLocked(const std::string& why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Returns to the budget what the backlog's events hold, and empties it.
  void DropBacklogLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t max_backlog_;
  WatchBudget& budget_;
  const std::function<void()> on_done_;
  mutable Mutex mu_;
  // Each event with what it holds of the budget.
  std::deque<std::pair<pb::ScheduleEvent, size_t>> backlog_ ABSL_GUARDED_BY(mu_);
  // What the stream holds of the budget: its backlog and the write in flight.
  size_t held_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t in_flight_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  // StartWrite's message: set under mu_ while no write is in flight, then read by gRPC alone
  // until OnWriteDone.
  pb::ScheduleEvent in_flight_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<grpc::Status> end_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<ScheduleWatch> self_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server
