// One cluster in the server: its ClusterPlan behind a single writer lock, its clock, the
// answers it gave to request ids (idempotent retries) and the WatchSchedule streams it feeds.
// Different clusters proceed in parallel.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/plan/cluster_plan.h"
#include "resched/v1/service.pb.h"
#include "server/mutex.h"

namespace resched::server {

namespace pb = ::resched::v1;

// The answers given to client request ids, oldest forgotten first.
class ReplyCache {
 public:
  explicit ReplyCache(size_t capacity) : capacity_(capacity) {}
  // The first answer to `request_id` for `method`, if any. The same id used for another method
  // is an error the caller reports.
  struct Entry {
    std::string method;
    std::string reply;  // serialized response message
  };
  const Entry* Find(const std::string& request_id) const;
  void Remember(const std::string& request_id, std::string method, std::string reply);

 private:
  size_t capacity_;
  absl::flat_hash_map<std::string, Entry> entries_;
  std::deque<std::string> order_;
};

// A WatchSchedule stream, as its cluster sees it.
class ScheduleSink {
 public:
  virtual ~ScheduleSink() = default;
  // Called under the cluster's lock, in sequence order: must not block.
  virtual void Push(const pb::ScheduleEvent& event) = 0;
  // The stream ends with `status` after what was pushed (cluster deleted, server stopping).
  virtual void End(const absl::Status& status) = 0;
  // True once the stream is over: the cluster then drops it.
  virtual bool Closed() const = 0;
};

class ClusterState {
 public:
  ClusterState(std::unique_ptr<ClusterPlan> plan, AlgorithmParams params);

  const std::string& name() const { return name_; }
  bool simulated() const { return simulated_; }

  // What an operation sees under the writer lock.
  struct Txn {
    ClusterPlan& plan;
    ReplyCache& replies;
    std::vector<pb::ScheduleEvent>& events;  // extra events to publish (reservations, clock)
  };
  // Runs `fn` under the writer lock, after moving a WALL clock to the present; then publishes
  // the jobs that changed and the events `fn` added. NOT_FOUND, without running `fn`, once the
  // cluster is deleted: a call that found the cluster just before its deletion changes nothing.
  [[nodiscard]] absl::Status Run(const std::function<void(Txn&)>& fn);

  // A deep copy of the plan at the present, for what-if queries outside the lock; NOT_FOUND
  // once the cluster is deleted.
  absl::StatusOr<std::unique_ptr<ClusterPlan>> Snapshot();

  // Deletes the cluster if `may_delete` allows it (returns OK), in one step under the lock: every
  // later Run and Snapshot answers NOT_FOUND. The caller then drops the cluster from the server.
  absl::Status Delete(const std::function<absl::Status(const ClusterPlan&)>& may_delete);
  const AlgorithmParams& params() const { return params_; }

  // Subscribes `sink` and returns the SNAPSHOT event it starts with (the schedule `snapshot`
  // builds), in one step under the lock: the sink gets every later event and none before.
  // After EndWatchers, ends the sink at once and returns nullopt.
  std::optional<pb::ScheduleEvent> Watch(
      std::shared_ptr<ScheduleSink> sink,
      const std::function<pb::Schedule(const ClusterPlan&)>& snapshot);
  // Ends every stream with `status`, and every later one at once.
  void EndWatchers(const absl::Status& status);

 private:
  absl::Status DeletedError() const;
  void SettleClockLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PublishLocked(std::vector<pb::ScheduleEvent> extra) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  const bool simulated_;
  const AlgorithmParams params_;
  Mutex mu_;
  std::unique_ptr<ClusterPlan> plan_ ABSL_GUARDED_BY(mu_) ABSL_PT_GUARDED_BY(mu_);
  ReplyCache replies_ ABSL_GUARDED_BY(mu_){10'000};
  std::vector<std::shared_ptr<ScheduleSink>> sinks_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> ended_ ABSL_GUARDED_BY(mu_);
  bool deleted_ ABSL_GUARDED_BY(mu_) = false;
  std::int64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 1;
};

// Microseconds since the Unix epoch, from the system clock.
Time WallNow();

}  // namespace resched::server
