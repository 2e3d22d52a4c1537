// The bridge's side of one resched cluster over gRPC: reads what is planned (GetSchedule) and
// makes the changes a round decided (holds, job and DAG task events). The one place of the
// bridge that knows protobuf.
#pragma once

#include <grpcpp/channel.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bridge/resched_view.h"
#include "bridge/wakeup.h"
#include "resched/v1/service.grpc.pb.h"

namespace resched::bridge {

class ReschedCluster {
 public:
  ReschedCluster(std::shared_ptr<grpc::Channel> channel, std::string cluster,
                 absl::Duration call_timeout);

  // Creates the cluster (WALL clock, `capacity` processors) when it does not exist; fails with
  // FAILED_PRECONDITION when it exists with another capacity or a simulated clock.
  absl::Status Ensure(int capacity);
  absl::StatusOr<ReschedView> Read();
  // A hold moves queued jobs out of its way (the batch system's load is a fact).
  absl::Status AddHold(const HoldSpec& hold);
  absl::Status RemoveHold(const std::string& id);
  // `source` makes the request id, so a report repeated after a restart is answered once.
  absl::Status Report(const EventReport& report, const std::string& source);

  // Watches the cluster's schedule (WatchSchedule) until StopWatching, notifying `wakeup` at
  // every event; a stream that breaks is opened again a second later. Runs on its own thread.
  void WatchChanges(Wakeup& wakeup);
  void StopWatching();

  const std::string& name() const { return cluster_; }

 private:
  void Prepare(grpc::ClientContext& context) const;

  std::unique_ptr<v1::Resched::Stub> stub_;
  std::string cluster_;
  absl::Duration call_timeout_;
  absl::Mutex watch_mu_;
  bool stop_watching_ ABSL_GUARDED_BY(watch_mu_) = false;
  grpc::ClientContext* watch_context_ ABSL_GUARDED_BY(watch_mu_) = nullptr;
};

}  // namespace resched::bridge
