// One cluster in the server: its ClusterPlan behind a single writer lock, its clock, the
// answers it gave to request ids (idempotent retries) and the WatchSchedule streams it feeds.
// Different clusters proceed in parallel.
//
// With a journal attached (server/store), every change appends its record under the lock (what
// it did to the plan, core/plan/plan_change.h, so that replay runs no policy) and
// every call returns only once the cluster's last record is durable, so no answer shows a state
// that a crash could lose. A change is refused, unapplied, while the journal refuses writes; if
// a commit fails after the change was applied in memory, the next call rebuilds the cluster
// from its durable records first (Durability::rebuild).
#pragma once

#include <atomic>
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
#include "core/plan/cluster_plan_image.h"
#include "resched/v1/journal.pb.h"
#include "resched/v1/service.pb.h"
#include "server/app/call_context.h"
#include "server/app/processor_rows.h"
#include "server/app/schedule_feed.h"
#include "server/base/mutex.h"
#include "server/store/journal.h"

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
  // Every answer kept, oldest first (snapshots).
  std::vector<std::pair<std::string, Entry>> Entries() const;

 private:
  size_t capacity_;
  absl::flat_hash_map<std::string, Entry> entries_;
  std::deque<std::string> order_;
};

class ClusterState;

// A cluster's state as plain values, taken under its lock for a snapshot, right after its journal
// record `lsn`; encoded and written off the lock (server/app/snapshotter.h).
struct ClusterImage {
  std::string cluster;
  std::int64_t lsn = 0;
  pb::JournalRecord creation;
  std::int64_t next_sequence = 1;
  std::vector<std::pair<std::string, ReplyCache::Entry>> replies;  // oldest first
  ClusterPlanImage plan;
  // Set while this image is on its way; whoever writes or drops it clears it.
  std::shared_ptr<std::atomic<bool>> in_flight;
};

// Where a cluster's changes go. Without a journal the cluster is ephemeral.
struct Durability {
  Journal* journal = nullptr;
  // The cluster `name` as its durable records leave it (its snapshot, then its later records).
  std::function<absl::StatusOr<std::shared_ptr<ClusterState>>(const std::string& name)> rebuild;
  // Takes an image to write as the cluster's snapshot; none when unset.
  std::function<void(ClusterImage)> snapshot;
  // A cluster's image is taken once replaying its records since the last snapshot would cost about
  // as much as loading one (ClusterState::MaybeSnapshotLocked), and at the latest after this
  // many records.
  std::int64_t snapshot_every = 10'000;
  // A failed call's undo (re-bookings under new ids) goes with the next record; calls that keep
  // failing would pile it up in memory, so past this many timeline ops it is journaled alone.
  std::size_t max_carried_ops = 65'536;
};

class ClusterState {
 public:
  // The events a cluster keeps for watchers that resume (WatchScheduleRequest.after_sequence).
  static constexpr size_t kRecentEventsKept = 2048;

  ClusterState(std::unique_ptr<ClusterPlan> plan, AlgorithmParams params);

  // Journals this cluster's changes from now on (after its records were replayed).
  void AttachDurability(Durability durability);
  // The journal record that created the cluster, kept for its snapshots.
  void SetCreation(pb::JournalRecord creation);
  // The record that created the cluster (SetCreation's).
  pb::JournalRecord creation();
  // Puts back what a snapshot saved beside the plan (before any call).
  void Restore(std::int64_t next_sequence,
               const std::vector<std::pair<std::string, ReplyCache::Entry>>& replies);

  const std::string& name() const { return name_; }
  bool simulated() const { return simulated_; }
  // True once the cluster is deleted or retired; read without the lock, by planners running off
  // it, so that one whose cluster is gone stops instead of planning for nobody.
  bool Gone() const { return gone_.load(std::memory_order_relaxed); }
  // What calls on a gone cluster answer: NOT_FOUND, or the retirement's status.
  absl::Status GoneError();

  // What an operation sees under the writer lock.
  struct Txn {
    ClusterPlan& plan;
    ReplyCache& replies;
    std::vector<pb::ScheduleEvent>& events;  // extra events to publish (reservations, clock)
    const AlgorithmParams& params;           // the policy's (traces)
    // How many calls could have changed the plan before this one: equal to a copy's
    // (CopyPlan's `changes_seen`), the plan is in the state the copy was taken in.
    std::uint64_t changes_seen = 0;
    // The processor rows GetSchedule draws the plan's items on, made on first use; unset on a
    // copy of the plan.
    std::function<const ProcessorRows&()> rows = {};
  };
  // Runs `fn`, which reads, under the writer lock, after moving a WALL clock to the present; then
  // publishes the jobs that changed. NOT_FOUND, without running `fn`, once the cluster is
  // deleted: a call that found the cluster just before its deletion changes nothing. While the
  // journal refuses writes, a WALL clock stays where it was durably left. `call` says how the
  // call waits (server/app/call_context.h): an inline call is declined, with nothing run, where it
  // would wait.
  [[nodiscard]] absl::Status Run(CallContext& call, const std::function<void(Txn&)>& fn);

  // A change: `fn` applies it and returns its record, or nullopt when it changed nothing (an
  // error, a replayed answer). Refused with UNAVAILABLE, without running `fn`, while the journal
  // refuses writes; UNAVAILABLE too when the record could not be made durable (the change is
  // then undone before the cluster's next call).
  using ChangeFn = std::function<std::optional<pb::JournalRecord>(Txn&)>;
  [[nodiscard]] absl::Status Change(CallContext& call, const ChangeFn& fn);

  // Applies a journaled change, the record's PlanChange, without running the policy (start-up,
  // rebuild), and remembers its answer; nothing is journaled. DATA_LOSS when it does not fit, and
  // the cluster must then be dropped.
  [[nodiscard]] absl::Status ApplyJournaled(const pb::JournalRecord& record);

  // Replays a record of the request format (journal.proto) at the clock it was applied at: moves
  // the clock to `now` if it is ahead, then runs `fn`, which re-plans; nothing is journaled.
  [[nodiscard]] absl::Status Replay(Time now, const std::function<absl::Status(Txn&)>& fn);

  // Runs `fn` on the plan as the last change left it, under the lock: no clock settling, no
  // wait for durability (metrics). Does nothing once the cluster is deleted.
  void Peek(const std::function<void(const ClusterPlan&)>& fn);
  // Where the time the cluster's policy takes per change is reported (metrics).
  void SetPlanningObserver(std::function<void(const std::string& policy, double seconds)> observe);

  // A deep copy of the plan at the present, for what-if queries outside the lock; NOT_FOUND
  // once the cluster is deleted.
  // `changes_seen`, when given, receives Txn::changes_seen as it is at the copy.
  absl::StatusOr<std::unique_ptr<ClusterPlan>> CopyPlan(CallContext& call,
                                                        std::uint64_t* changes_seen = nullptr);

  // Deletes the cluster if `may_delete` allows it (returns OK), in one step under the lock: every
  // later Run and CopyPlan answers NOT_FOUND. The caller then drops the cluster from the server.
  // With a journal, `record` is durable before the cluster counts as deleted.
  absl::Status Delete(const std::function<absl::Status(const ClusterPlan&)>& may_delete,
                      const pb::JournalRecord& record = {});
  const AlgorithmParams& params() const { return params_; }

  // Subscribes `sink` and returns the SCHEDULE event it starts with (the schedule
  // `build_schedule` makes), in one step under the lock: the sink gets every later event and none
  // before. Resuming (`after_sequence` > 0), pushes the events after it into the sink instead and
  // returns nullopt when they are all held (ScheduleFeed::Resume). Waits for the schedule's changes
  // to be durable: a watcher sees no change a crash could undo. After EndWatchers, ends the sink at
  // once and returns nullopt.
  std::optional<pb::ScheduleEvent> Watch(
      const std::shared_ptr<ScheduleSink>& sink,
      const std::function<pb::Schedule(const ClusterPlan&, const ProcessorRows&)>& build_schedule,
      std::int64_t after_sequence = 0);
  // Ends every stream with `status`, and every later one at once.
  void EndWatchers(const absl::Status& status);
  // The cluster stops being served here (another replica takes it over, docs/ha.md): once the
  // call in progress is done, every later call on this state fails with `why`, and so do its
  // watchers. Returns the LSN of its last record, which must be durable before the other
  // replica reads the cluster.
  std::int64_t Retire(const absl::Status& why);

 private:
  absl::Status DeletedError() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes the lock for `call`: waits for it, or, for an inline call, takes it only if it is free.
  bool LockForCall(const CallContext& call) ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true, mu_);
  // Whether an inline `call` must run on a worker instead: its answer would block for the
  // journal (no DeferredDurability), its last change failed to commit, its record may make a
  // snapshot due, or its last change was slow.
  bool DeclinesInlineLocked(const CallContext& call) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rebuilds the cluster from its durable records when its last record failed to commit.
  absl::Status RecoverLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves a WALL clock to the present and publishes what that changed, journaled as a
  // ClockSettled record when it changed anything; a no-op while the journal refuses writes.
  void SettleClockLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Numbers the events of the jobs that changed and `extra` and hands them to the feed, which
  // sends them once the last record is durable, with the rows their items moved to. Returns how
  // many it published.
  int PublishLocked(std::vector<pb::ScheduleEvent> extra) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The plan's processor rows, made (from the whole plan) on first use.
  ProcessorRows& RowsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the rows of the items `events` carry and gives the events their ids; flags the last
  // one when other items moved too.
  void MoveRowsLocked(std::vector<pb::ScheduleEvent>& events) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AppendLocked(pb::JournalRecord record, Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Appends `record` with what the plan did since the last one (ClusterPlan::TakeChange) and the
  // number of events the change published, `extra_events` of them not about a job.
  void AppendChangeLocked(pb::JournalRecord record, Time now, int events, int extra_events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hands an image to the snapshot writer when enough records were journaled since the last
  // one and none is on its way.
  void MaybeSnapshotLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether a snapshot is due once `more_records` more records, costing `more_replay_nanos` to
  // replay, are journaled (MaybeSnapshotLocked's rule).
  bool SnapshotDueLocked(std::int64_t more_records, std::int64_t more_replay_nanos) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Waits for `lsn` (0: nothing to wait for) to be durable, or notes it in `call`'s
  // DeferredDurability; `own_change`: the call's own record.
  absl::Status AwaitDurable(CallContext& call, std::int64_t lsn, bool own_change);

  const std::string name_;
  const bool simulated_;
  const AlgorithmParams params_;
  Mutex mu_;
  std::unique_ptr<ClusterPlan> plan_ ABSL_GUARDED_BY(mu_) ABSL_PT_GUARDED_BY(mu_);
  ReplyCache replies_ ABSL_GUARDED_BY(mu_){10'000};
  // Shared with the journal's callbacks that release its events. Locked after mu_.
  const std::shared_ptr<ScheduleFeed> feed_ = std::make_shared<ScheduleFeed>(kRecentEventsKept);
  std::optional<absl::Status> ended_ ABSL_GUARDED_BY(mu_);
  bool deleted_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<bool> gone_ = false;  // deleted_, for readers without the lock
  // Why calls on a retired state fail (Retire); nullopt: deleted, or live.
  std::optional<absl::Status> retired_ ABSL_GUARDED_BY(mu_);
  std::int64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 1;
  // Made when first asked for (GetSchedule, WatchSchedule), so that a cluster nobody draws pays
  // nothing for them; dropped when the plan is rebuilt or replayed into without its events.
  std::unique_ptr<ProcessorRows> rows_ ABSL_GUARDED_BY(mu_);
  // Changes since the rows last dropped the items that left the plan without an event (ended
  // jobs past the kept history, expired holds).
  int row_changes_since_prune_ ABSL_GUARDED_BY(mu_) = 0;
  Durability durability_ ABSL_GUARDED_BY(mu_);
  // The LSN of this cluster's last journaled record (0: none since start-up or a rebuild).
  std::int64_t last_lsn_ ABSL_GUARDED_BY(mu_) = 0;
  // Every change, settling of the clock, replayed record and rollback counts, whether or not it
  // changed the plan in the end (Txn::changes_seen).
  std::uint64_t changes_ ABSL_GUARDED_BY(mu_) = 0;
  pb::JournalRecord creation_ ABSL_GUARDED_BY(mu_);
  // Records journaled or replayed since the state of the last snapshot, what replaying them
  // costs (measured when replayed; when journaled, the time building each record took, which
  // replay's parse and apply track), and how long the last image's copy took
  // (MaybeSnapshotLocked).
  std::int64_t records_since_snapshot_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t replay_nanos_since_snapshot_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t last_record_nanos_ ABSL_GUARDED_BY(mu_) = 0;  // the last record's build time
  std::int64_t last_change_nanos_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t image_nanos_ ABSL_GUARDED_BY(mu_) = 0;
  std::function<void(const std::string&, double)> observe_planning_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<std::atomic<bool>> snapshot_in_flight_ =
      std::make_shared<std::atomic<bool>>(false);
};

// Waits until the journal's record `lsn` is durable: the call's own change, in a
// "resched.journal.commit" span when the call is traced; or an earlier change, that a read or a
// refused change must not answer before (nothing a crash could lose shows), in a
// "resched.journal.wait" span when it is not durable yet, and in none when it is.
absl::Status WaitDurableTraced(Journal& journal, std::int64_t lsn, bool own_change = true);

// Microseconds since the Unix epoch, from the system clock.
Time WallNow();

}  // namespace resched::server
