#include "server/app/cluster_state.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/plan/plan_change.h"
#include "proto/resched/convert.h"
#include "proto/resched/snapshot_convert.h"
#include "server/app/deferred_durability.h"
#include "server/app/schedule_view.h"
#include "server/trace/span.h"

namespace resched::server {

Time WallNow() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

constexpr char kLockWaitSpan[] = "resched.lock_wait";

// An inline call (server/app/call_context.h) is declined on a cluster whose last change took
// longer: its policy plans over the whole queue, and the next change is likely as slow.
constexpr std::int64_t kInlineChangeLimitNanos = 200'000;

std::int64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start)
      .count();
}

}  // namespace

const ReplyCache::Entry* ReplyCache::Find(const std::string& request_id) const {
  auto it = entries_.find(request_id);
  return it == entries_.end() ? nullptr : &it->second;
}

void ReplyCache::Remember(const std::string& request_id, std::string method, std::string reply) {
  if (request_id.empty() || entries_.contains(request_id)) return;
  entries_[request_id] = Entry{std::move(method), std::move(reply)};
  order_.push_back(request_id);
  if (order_.size() > capacity_) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
}

std::vector<std::pair<std::string, ReplyCache::Entry>> ReplyCache::Entries() const {
  std::vector<std::pair<std::string, Entry>> out;
  out.reserve(order_.size());
  for (const std::string& id : order_) out.emplace_back(id, entries_.at(id));
  return out;
}

ClusterState::ClusterState(std::unique_ptr<ClusterPlan> plan, AlgorithmParams params)
    : name_(plan->spec().name),
      simulated_(plan->spec().clock == ClockKind::kSimulated),
      params_(std::move(params)),
      plan_(std::move(plan)) {}

void ClusterState::AttachDurability(Durability durability) {
  MutexLock lock(&mu_);
  durability_ = std::move(durability);
  plan_->TrackChanges(durability_.journal != nullptr);
}

void ClusterState::Peek(const std::function<void(const ClusterPlan&)>& fn) {
  MutexLock lock(&mu_);
  if (!deleted_) fn(*plan_);
}

void ClusterState::SetPlanningObserver(
    std::function<void(const std::string& policy, double seconds)> observe) {
  MutexLock lock(&mu_);
  observe_planning_ = std::move(observe);
}

void ClusterState::SetCreation(pb::JournalRecord creation) {
  MutexLock lock(&mu_);
  creation_ = std::move(creation);
}

pb::JournalRecord ClusterState::creation() {
  MutexLock lock(&mu_);
  return creation_;
}

void ClusterState::Restore(std::int64_t next_sequence,
                           const std::vector<std::pair<std::string, ReplyCache::Entry>>& replies) {
  MutexLock lock(&mu_);
  next_sequence_ = next_sequence;
  feed_->Replayed({}, next_sequence - 1, /*rebuilt=*/false);
  for (const auto& [id, entry] : replies) replies_.Remember(id, entry.method, entry.reply);
}

void ClusterState::AppendChangeLocked(pb::JournalRecord record, Time now, int events,
                                      int extra_events) {
  const auto started = std::chrono::steady_clock::now();
  *record.mutable_plan_change() = ToJournal(plan_->TakeChange());
  record.set_events(events);
  record.set_extra_events(extra_events);
  AppendLocked(std::move(record), now);
  // Replay parses and applies the record, about what building it took; the planning that made
  // the change is not run again (restart_bench's workload: 6.5 us built, 4.9 us replayed).
  last_record_nanos_ = NanosSince(started);
  replay_nanos_since_snapshot_ += last_record_nanos_;
}

void ClusterState::AppendLocked(pb::JournalRecord record, Time now) {
  *record.mutable_now() = ToTimestamp(now);
  last_lsn_ = durability_.journal->Append(name_, record.SerializeAsString());
  ++records_since_snapshot_;
}

bool ClusterState::SnapshotDueLocked(std::int64_t more_records,
                                     std::int64_t more_replay_nanos) const {
  // Due when replaying the records since the last snapshot would take about as long as loading
  // one (which costs roughly ten copies of the plan), so that a restart stays within about
  // twice the load time whatever a change costs; and at the latest after snapshot_every
  // records. The copy's cost is the last image's, or an estimate from the plan's size. Not
  // before kMinRecords: a snapshot's transaction and compaction cost a few milliseconds however
  // small the plan, more than replaying that many records (about 5 ms) would.
  constexpr std::int64_t kMinRecords = 1000;
  constexpr std::int64_t kLoadPerCopy = 10;
  constexpr std::int64_t kCopyNanosPerItem = 300;
  if (!durability_.snapshot || snapshot_in_flight_->load()) return false;
  const std::int64_t records = records_since_snapshot_ + more_records;
  const std::int64_t copy_nanos =
      image_nanos_ > 0 ? image_nanos_
                       : static_cast<std::int64_t>(plan_->retained_count()) * kCopyNanosPerItem;
  const bool replay_as_slow_as_load =
      records >= kMinRecords &&
      replay_nanos_since_snapshot_ + more_replay_nanos >= kLoadPerCopy * copy_nanos;
  return replay_as_slow_as_load || records >= durability_.snapshot_every;
}

void ClusterState::MaybeSnapshotLocked() {
  if (last_lsn_ == 0 || !SnapshotDueLocked(0, 0)) return;
  const auto started = std::chrono::steady_clock::now();
  ClusterImage image;
  image.cluster = name_;
  image.lsn = last_lsn_;
  image.creation = creation_;
  image.next_sequence = next_sequence_;
  image.replies = replies_.Entries();
  image.plan = plan_->Image();
  image.in_flight = snapshot_in_flight_;
  snapshot_in_flight_->store(true);
  records_since_snapshot_ = 0;
  replay_nanos_since_snapshot_ = 0;
  image_nanos_ = NanosSince(started);
  durability_.snapshot(std::move(image));
}

absl::Status ClusterState::AwaitDurable(CallContext& call, std::int64_t lsn, bool own_change) {
  if (lsn == 0) return absl::OkStatus();
  Journal* journal = nullptr;
  {
    MutexLock lock(&mu_);
    journal = durability_.journal;
  }
  if (DeferredDurability* deferred = call.deferred()) {
    if (own_change || !journal->Durable(lsn)) deferred->Defer(*journal, lsn, own_change);
    return absl::OkStatus();
  }
  return WaitDurableTraced(*journal, lsn, own_change);
}

absl::Status WaitDurableTraced(Journal& journal, std::int64_t lsn, bool own_change) {
  if (!own_change && journal.Durable(lsn)) return absl::OkStatus();
  trace::ScopedSpan commit(own_change ? "resched.journal.commit" : "resched.journal.wait");
  if (commit.recording()) commit.SetAttribute("resched.journal.lsn", lsn);
  absl::Status durable = journal.WaitDurable(lsn);
  commit.SetResult(durable.ok(), durable.message());
  return durable;
}

absl::Status ClusterState::RecoverLocked() {
  if (durability_.journal == nullptr || last_lsn_ == 0 || !durability_.journal->Failed(last_lsn_)) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::shared_ptr<ClusterState>> fresh = durability_.rebuild(name_);
  if (!fresh.ok()) return fresh.status();
  {
    MutexLock other(&(*fresh)->mu_);
    plan_ = std::move((*fresh)->plan_);
    plan_->TrackChanges(true);
    rows_.reset();  // made again from the rebuilt plan; its watchers start over below
    ++changes_;
    replies_ = std::move((*fresh)->replies_);
    next_sequence_ = (*fresh)->next_sequence_;
    records_since_snapshot_ = (*fresh)->records_since_snapshot_;
    replay_nanos_since_snapshot_ = (*fresh)->replay_nanos_since_snapshot_;
  }
  last_lsn_ = 0;
  // The streams' first schedules may hold changes that are now undone: they end, and clients
  // re-subscribe.
  const absl::Status rolled_back = absl::UnavailableError(absl::StrCat(
      "cluster '", name_, "': changes that could not be saved were rolled back; watch again"));
  feed_->Reset(next_sequence_ - 1, rolled_back);
  feed_->TakeRecent(*(*fresh)->feed_);
  return absl::OkStatus();
}

void ClusterState::SettleClockLocked() {
  if (simulated_) return;
  const bool journaled = durability_.journal != nullptr;
  // A clock moved now could not be journaled: answers stay at the last durable state.
  if (journaled && !durability_.journal->CheckWritable().ok()) return;
  const Time now = WallNow();
  if (now <= plan_->now()) return;
  ++changes_;
  // AdvanceTo fails only for a time before now, which the test excludes.
  (void)plan_->AdvanceTo(now);
  // A settling that changed no job changed nothing a client saw: what it did to the plan (a hold
  // that expired) goes with the next record. The record goes first, so that its events are sent
  // once it is durable.
  const auto events = static_cast<int>(plan_->PeekChangedJobs().size());
  if (events > 0 && journaled) {
    pb::JournalRecord record;
    record.set_method("clock");
    AppendChangeLocked(std::move(record), plan_->now(), events, /*extra_events=*/0);
  }
  PublishLocked({});
  if (events > 0 && journaled) MaybeSnapshotLocked();
}

absl::Status ClusterState::DeletedError() const {
  if (retired_) return *retired_;
  return absl::NotFoundError(absl::StrCat("cluster '", name_, "' was deleted"));
}

absl::Status ClusterState::GoneError() {
  MutexLock lock(&mu_);
  return DeletedError();
}

std::int64_t ClusterState::Retire(const absl::Status& why) {
  MutexLock lock(&mu_);
  deleted_ = true;
  gone_ = true;
  retired_ = why;
  ended_ = why;
  feed_->EndAll(why);
  return last_lsn_;
}

bool ClusterState::LockForCall(const CallContext& call) {
  if (call.runs_inline()) return mu_.TryLock();
  trace::ScopedSpan wait(kLockWaitSpan);
  mu_.Lock();
  return true;
}

bool ClusterState::DeclinesInlineLocked(const CallContext& call) const {
  if (!call.runs_inline()) return false;
  if (last_change_nanos_ > kInlineChangeLimitNanos) return true;
  if (durability_.journal == nullptr) return false;
  // Its answer must wait for the journal without holding the thread; a cluster whose last
  // change failed to commit reloads from disk first; and a snapshot that this change's record
  // may make due copies the whole plan, which is no work for gRPC's thread.
  return call.deferred() == nullptr || (last_lsn_ != 0 && durability_.journal->Failed(last_lsn_)) ||
         SnapshotDueLocked(1, last_record_nanos_);
}

absl::Status ClusterState::Run(CallContext& call, const std::function<void(Txn&)>& fn) {
  std::int64_t lsn = 0;
  bool own_change = false;
  {
    if (!LockForCall(call)) return call.Decline();
    MutexLock lock(&mu_, AdoptLock{});
    if (DeclinesInlineLocked(call)) return call.Decline();
    if (deleted_) return DeletedError();
    if (absl::Status s = RecoverLocked(); !s.ok()) return s;
    const std::int64_t before = last_lsn_;
    SettleClockLocked();
    std::vector<pb::ScheduleEvent> extra;
    Txn txn{*plan_, replies_, extra, params_, changes_};
    txn.rows = [this]() -> const ProcessorRows& {
      mu_.AssertHeld();
      return RowsLocked();
    };
    fn(txn);
    PublishLocked(std::move(extra));
    lsn = last_lsn_;
    own_change = lsn != before;  // the clock's settling, journaled
  }
  return AwaitDurable(call, lsn, own_change);
}

absl::Status ClusterState::Change(CallContext& call, const ChangeFn& fn) {
  std::int64_t lsn = 0;
  bool own_change = false;
  {
    if (!LockForCall(call)) return call.Decline();
    MutexLock lock(&mu_, AdoptLock{});
    if (DeclinesInlineLocked(call)) return call.Decline();
    if (deleted_) return DeletedError();
    if (absl::Status s = RecoverLocked(); !s.ok()) return s;
    if (durability_.journal != nullptr) {
      if (absl::Status s = durability_.journal->CheckWritable(); !s.ok()) return s;
    }
    const std::int64_t before = last_lsn_;
    SettleClockLocked();
    const Time now = plan_->now();
    std::vector<pb::ScheduleEvent> extra;
    Txn txn{*plan_, replies_, extra, params_, changes_++};
    const auto started = std::chrono::steady_clock::now();
    std::optional<pb::JournalRecord> record = fn(txn);
    const std::int64_t applied = NanosSince(started);
    last_change_nanos_ = applied;
    if (observe_planning_) {
      observe_planning_(plan_->spec().policy, static_cast<double>(applied) * 1e-9);
    }
    if (!record && durability_.journal != nullptr &&
        plan_->untaken_timeline_ops() > durability_.max_carried_ops) {
      record.emplace();
      record->set_method("undone");
    }
    const bool journaled = record && durability_.journal != nullptr;
    if (journaled) {
      const auto extra_events = static_cast<int>(extra.size());
      const auto events = static_cast<int>(plan_->PeekChangedJobs().size()) + extra_events;
      AppendChangeLocked(*std::move(record), now, events, extra_events);
    }
    PublishLocked(std::move(extra));
    // Only right after a record: a snapshot must hold nothing the next record will carry (a
    // failed call's undo, which re-books jobs under new ids).
    if (journaled) MaybeSnapshotLocked();
    lsn = last_lsn_;
    own_change = lsn != before;
  }
  return AwaitDurable(call, lsn, own_change);
}

absl::Status ClusterState::Replay(Time now, const std::function<absl::Status(Txn&)>& fn) {
  MutexLock lock(&mu_);
  if (deleted_) return DeletedError();
  if (now > plan_->now()) {
    if (absl::Status s = plan_->AdvanceTo(now); !s.ok()) return s;
  }
  PublishLocked({});
  std::vector<pb::ScheduleEvent> extra;
  Txn txn{*plan_, replies_, extra, params_, changes_++};
  const auto started = std::chrono::steady_clock::now();
  absl::Status status = fn(txn);
  replay_nanos_since_snapshot_ += NanosSince(started);
  PublishLocked(std::move(extra));
  ++records_since_snapshot_;
  return status;
}

absl::Status ClusterState::ApplyJournaled(const pb::JournalRecord& record) {
  MutexLock lock(&mu_);
  if (deleted_) return DeletedError();
  absl::StatusOr<PlanChange> change = FromJournal(record.plan_change());
  if (!change.ok()) return change.status();
  const auto started = std::chrono::steady_clock::now();
  ++changes_;
  if (absl::Status s = plan_->ApplyChange(*std::move(change)); !s.ok()) return s;
  replay_nanos_since_snapshot_ += NanosSince(started);
  rows_.reset();  // its events carry no rows: made again from the plan when next asked for
  // No stream watches a replay; its job events are rebuilt for watchers that resume later.
  const std::vector<const JobRecord*> changed = plan_->TakeChangedJobs();
  const bool rebuilt = record.extra_events() == 0 && std::ssize(changed) == record.events();
  std::vector<pb::ScheduleEvent> events;
  if (rebuilt) {
    events.reserve(changed.size());
    for (const JobRecord* job : changed) {
      pb::ScheduleEvent& event = events.emplace_back();
      event.set_kind(pb::ScheduleEvent::JOB_CHANGED);
      *event.mutable_job() = ToProto(*job, name_);
      event.set_sequence(next_sequence_ + std::ssize(events) - 1);
      *event.mutable_now() = ToTimestamp(plan_->now());
    }
  }
  next_sequence_ += record.events();
  feed_->Replayed(std::move(events), next_sequence_ - 1, rebuilt);
  if (!record.request_id().empty()) {
    replies_.Remember(record.request_id(), record.method(), record.reply());
  }
  ++records_since_snapshot_;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ClusterPlan>> ClusterState::CopyPlan(CallContext& call,
                                                                    std::uint64_t* changes_seen) {
  std::unique_ptr<ClusterPlan> copy;
  std::int64_t lsn = 0;
  bool own_change = false;
  {
    trace::ScopedSpan wait(kLockWaitSpan);
    MutexLock lock(&mu_);
    wait.End();
    if (deleted_) return DeletedError();
    if (absl::Status s = RecoverLocked(); !s.ok()) return s;
    const std::int64_t before = last_lsn_;
    SettleClockLocked();
    copy = plan_->Copy();
    if (changes_seen != nullptr) *changes_seen = changes_;
    lsn = last_lsn_;
    own_change = lsn != before;
  }
  if (absl::Status s = AwaitDurable(call, lsn, own_change); !s.ok()) return s;
  return copy;
}

absl::Status ClusterState::Delete(const std::function<absl::Status(const ClusterPlan&)>& may_delete,
                                  const pb::JournalRecord& record) {
  trace::ScopedSpan wait(kLockWaitSpan);
  MutexLock lock(&mu_);
  wait.End();
  if (deleted_) return DeletedError();
  if (absl::Status s = RecoverLocked(); !s.ok()) return s;
  SettleClockLocked();
  if (absl::Status allowed = may_delete(*plan_); !allowed.ok()) return allowed;
  if (durability_.journal != nullptr) {
    // Durable before the cluster counts as deleted; deletions are rare enough to wait under
    // the lock, which keeps a refused deletion from having been visible.
    if (absl::Status s = durability_.journal->CheckWritable(); !s.ok()) return s;
    AppendLocked(record, plan_->now());
    if (absl::Status s = WaitDurableTraced(*durability_.journal, last_lsn_); !s.ok()) return s;
    // Only the deletion's record stays: it deletes whatever an older snapshot, still on its
    // way to the disk, would bring back at the next start. A failure here only leaves more to
    // replay.
    (void)durability_.journal->DropClusterBefore(name_, last_lsn_);
  }
  deleted_ = true;
  gone_ = true;
  return absl::OkStatus();
}

ProcessorRows& ClusterState::RowsLocked() {
  if (rows_ == nullptr) {
    rows_ = std::make_unique<ProcessorRows>(RowGroupCounts(*plan_));
    (void)SyncRows(*plan_, *rows_);
    row_changes_since_prune_ = 0;
  }
  return *rows_;
}

namespace {

void AddIds(const std::vector<int>& ids, google::protobuf::RepeatedField<int32_t>* out) {
  out->Clear();
  out->Add(ids.begin(), ids.end());
}

}  // namespace

void ClusterState::MoveRowsLocked(std::vector<pb::ScheduleEvent>& events) {
  // The items the events carry, as the plan now has them.
  std::vector<ProcessorRows::Change> changes;
  for (const pb::ScheduleEvent& event : events) {
    switch (event.kind()) {
      case pb::ScheduleEvent::JOB_CHANGED: {
        const JobRecord* job = plan_->FindJob(event.job().id());
        changes.emplace_back(JobRowKey(event.job().id()),
                             job != nullptr ? RowSpanOf(*job) : std::nullopt);
        break;
      }
      case pb::ScheduleEvent::RESERVATION_ADDED:
      case pb::ScheduleEvent::RESERVATION_REMOVED: {
        std::optional<ProcessorRows::Span> span;
        for (const ExternalReservation* r : plan_->Reservations()) {
          if (r->id == event.reservation().id()) span = RowSpanOf(*r);
        }
        changes.emplace_back(HoldRowKey(event.reservation().id()), span);
        break;
      }
      case pb::ScheduleEvent::DAG_RESERVED:
      case pb::ScheduleEvent::DAG_RELEASED:
      case pb::ScheduleEvent::DAG_TASK_CHANGED: {
        const DagReservation* dag = plan_->FindDag(event.dag().id());
        for (const pb::TaskPlacement& placement : event.dag().placements()) {
          std::optional<ProcessorRows::Span> span;  // none once released
          for (size_t i = 0; dag != nullptr && i < dag->tasks.size(); ++i) {
            if (dag->tasks[i].task == placement.task()) span = RowSpanOf(dag->tasks[i]);
          }
          changes.emplace_back(DagTaskRowKey(event.dag().id(), placement.task()), span);
        }
        break;
      }
      default:
        break;
    }
  }
  // Ended jobs leave the kept history, and holds expire, without an event of their own.
  constexpr int kChangesBetweenPrunes = 4096;
  row_changes_since_prune_ += static_cast<int>(changes.size());
  std::vector<std::string> moved = rows_->Update(changes);
  if (row_changes_since_prune_ >= kChangesBetweenPrunes) {
    row_changes_since_prune_ = 0;
    for (std::string& key : SyncRows(*plan_, *rows_)) moved.push_back(std::move(key));
  }
  for (pb::ScheduleEvent& event : events) {
    if (event.has_job()) {
      AddIds(rows_->Ids(JobRowKey(event.job().id())),
             event.mutable_job()->mutable_allocation()->mutable_processor_ids());
    }
    if (event.has_reservation()) {
      AddIds(rows_->Ids(HoldRowKey(event.reservation().id())),
             event.mutable_reservation()->mutable_processor_ids());
    }
    if (event.has_dag()) {
      for (pb::TaskPlacement& placement : *event.mutable_dag()->mutable_placements()) {
        AddIds(rows_->Ids(DagTaskRowKey(event.dag().id(), placement.task())),
               placement.mutable_allocation()->mutable_processor_ids());
      }
    }
  }
  for (const std::string& key : moved) {
    const std::optional<RowItem> item = RowItemOf(key);
    if (!item) continue;
    pb::RowMove* move = events.back().add_moved_rows();
    switch (item->kind) {
      case RowItem::kJob: {
        move->set_job_id(item->id);
        const JobRecord* job = plan_->FindJob(item->id);
        if (job != nullptr) move->set_owner(job->job.owner);
        break;
      }
      case RowItem::kHold:
        move->set_reservation_id(item->id);
        break;
      case RowItem::kDagTask: {
        move->set_dag_id(item->id);
        move->set_task(item->task);
        const DagReservation* dag = plan_->FindDag(item->id);
        if (dag != nullptr) move->set_owner(dag->owner);
        break;
      }
    }
    AddIds(rows_->Ids(key), move->mutable_processor_ids());
  }
}

int ClusterState::PublishLocked(std::vector<pb::ScheduleEvent> extra) {
  std::vector<pb::ScheduleEvent> out;
  for (const JobRecord* job : plan_->TakeChangedJobs()) {
    pb::ScheduleEvent event;
    event.set_kind(pb::ScheduleEvent::JOB_CHANGED);
    *event.mutable_job() = ToProto(*job, name_);
    out.push_back(std::move(event));
  }
  for (auto& event : extra) out.push_back(std::move(event));
  if (out.empty()) return 0;
  if (rows_ != nullptr) MoveRowsLocked(out);
  for (auto& event : out) {
    event.set_sequence(next_sequence_++);
    *event.mutable_now() = ToTimestamp(plan_->now());
  }
  const auto published = static_cast<int>(out.size());
  Journal* journal = durability_.journal;
  const std::int64_t lsn = last_lsn_;
  const bool durable = journal == nullptr || lsn == 0 || journal->Durable(lsn);
  feed_->Publish(std::move(out), lsn, durable);
  if (!durable) {
    journal->WhenDurable(lsn, [feed = feed_, lsn](const absl::Status& committed) {
      // A failed commit's events are never sent: RecoverLocked resets the feed.
      if (committed.ok()) feed->Release(lsn);
    });
  }
  return published;
}

std::optional<pb::ScheduleEvent> ClusterState::Watch(
    const std::shared_ptr<ScheduleSink>& sink,
    const std::function<pb::Schedule(const ClusterPlan&, const ProcessorRows&)>& build_schedule,
    std::int64_t after_sequence) {
  pb::ScheduleEvent first;
  std::int64_t lsn = 0;
  Journal* journal = nullptr;
  {
    MutexLock lock(&mu_);
    if (ended_) {
      sink->End(*ended_);
      return std::nullopt;
    }
    if (absl::Status s = RecoverLocked(); !s.ok()) {
      sink->End(s);
      return std::nullopt;
    }
    SettleClockLocked();
    if (after_sequence > 0 && feed_->Resume(sink, after_sequence)) return std::nullopt;
    first.set_kind(pb::ScheduleEvent::SCHEDULE);
    *first.mutable_schedule() = build_schedule(*plan_, RowsLocked());
    *first.mutable_now() = ToTimestamp(plan_->now());
    first.set_sequence(next_sequence_ - 1);
    feed_->Subscribe(sink, first.sequence());
    lsn = last_lsn_;
    journal = durability_.journal;
  }
  if (journal != nullptr && lsn != 0) {
    if (absl::Status s = journal->WaitDurable(lsn); !s.ok()) {
      sink->End(s);
      return std::nullopt;
    }
  }
  return first;
}

void ClusterState::EndWatchers(const absl::Status& status) {
  MutexLock lock(&mu_);
  ended_ = status;
  feed_->EndAll(status);
}

}  // namespace resched::server
