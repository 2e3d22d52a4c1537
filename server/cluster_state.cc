#include "server/cluster_state.h"

#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/resched/convert.h"

namespace resched::server {

Time WallNow() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

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

ClusterState::ClusterState(std::unique_ptr<ClusterPlan> plan, AlgorithmParams params)
    : name_(plan->spec().name),
      simulated_(plan->spec().clock == ClockKind::kSimulated),
      params_(std::move(params)),
      plan_(std::move(plan)) {}

void ClusterState::AttachDurability(Durability durability) {
  MutexLock lock(&mu_);
  durability_ = std::move(durability);
}

void ClusterState::AppendLocked(pb::JournalRecord record, Time now) {
  *record.mutable_now() = ToTimestamp(now);
  last_lsn_ = durability_.journal->Append(name_, record.SerializeAsString());
}

absl::Status ClusterState::AwaitDurable(std::int64_t lsn) {
  if (lsn == 0) return absl::OkStatus();
  Journal* journal = nullptr;
  {
    MutexLock lock(&mu_);
    journal = durability_.journal;
  }
  return journal->WaitDurable(lsn);
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
    replies_ = std::move((*fresh)->replies_);
    next_sequence_ = (*fresh)->next_sequence_;
  }
  last_lsn_ = 0;
  // The streams saw events of changes that are now undone: they end, and clients re-subscribe.
  const absl::Status rolled_back = absl::UnavailableError(absl::StrCat(
      "cluster '", name_, "': changes that could not be saved were rolled back; watch again"));
  for (const auto& sink : sinks_) sink->End(rolled_back);
  sinks_.clear();
  return absl::OkStatus();
}

void ClusterState::SettleClockLocked() {
  if (simulated_) return;
  const bool journaled = durability_.journal != nullptr;
  // A clock moved now could not be journaled: answers stay at the last durable state.
  if (journaled && !durability_.journal->CheckWritable().ok()) return;
  const Time now = WallNow();
  if (now <= plan_->now()) return;
  // AdvanceTo fails only for a time before now, which the test excludes.
  (void)plan_->AdvanceTo(now);
  if (PublishLocked({}) > 0 && journaled) {
    pb::JournalRecord record;
    record.mutable_clock_settled();
    AppendLocked(std::move(record), plan_->now());
  }
}

absl::Status ClusterState::DeletedError() const {
  return absl::NotFoundError(absl::StrCat("cluster '", name_, "' was deleted"));
}

absl::Status ClusterState::Run(const std::function<void(Txn&)>& fn) {
  std::int64_t lsn = 0;
  {
    MutexLock lock(&mu_);
    if (deleted_) return DeletedError();
    if (absl::Status s = RecoverLocked(); !s.ok()) return s;
    SettleClockLocked();
    std::vector<pb::ScheduleEvent> extra;
    Txn txn{*plan_, replies_, extra};
    fn(txn);
    PublishLocked(std::move(extra));
    lsn = last_lsn_;
  }
  return AwaitDurable(lsn);
}

absl::Status ClusterState::Change(const ChangeFn& fn) {
  std::int64_t lsn = 0;
  {
    MutexLock lock(&mu_);
    if (deleted_) return DeletedError();
    if (absl::Status s = RecoverLocked(); !s.ok()) return s;
    if (durability_.journal != nullptr) {
      if (absl::Status s = durability_.journal->CheckWritable(); !s.ok()) return s;
    }
    SettleClockLocked();
    const Time now = plan_->now();
    std::vector<pb::ScheduleEvent> extra;
    Txn txn{*plan_, replies_, extra};
    std::optional<pb::JournalRecord> record = fn(txn);
    if (record && durability_.journal != nullptr) AppendLocked(*std::move(record), now);
    PublishLocked(std::move(extra));
    lsn = last_lsn_;
  }
  return AwaitDurable(lsn);
}

absl::Status ClusterState::Replay(Time now, const std::function<absl::Status(Txn&)>& fn) {
  MutexLock lock(&mu_);
  if (deleted_) return DeletedError();
  if (now > plan_->now()) {
    if (absl::Status s = plan_->AdvanceTo(now); !s.ok()) return s;
  }
  PublishLocked({});
  std::vector<pb::ScheduleEvent> extra;
  Txn txn{*plan_, replies_, extra};
  absl::Status status = fn(txn);
  PublishLocked(std::move(extra));
  return status;
}

absl::StatusOr<std::unique_ptr<ClusterPlan>> ClusterState::Snapshot() {
  std::unique_ptr<ClusterPlan> copy;
  std::int64_t lsn = 0;
  {
    MutexLock lock(&mu_);
    if (deleted_) return DeletedError();
    if (absl::Status s = RecoverLocked(); !s.ok()) return s;
    SettleClockLocked();
    copy = plan_->Clone();
    lsn = last_lsn_;
  }
  if (absl::Status s = AwaitDurable(lsn); !s.ok()) return s;
  return copy;
}

absl::Status ClusterState::Delete(const std::function<absl::Status(const ClusterPlan&)>& may_delete,
                                  const pb::JournalRecord& record) {
  MutexLock lock(&mu_);
  if (deleted_) return DeletedError();
  if (absl::Status s = RecoverLocked(); !s.ok()) return s;
  SettleClockLocked();
  if (absl::Status allowed = may_delete(*plan_); !allowed.ok()) return allowed;
  if (durability_.journal != nullptr) {
    // Durable before the cluster counts as deleted; deletions are rare enough to wait under
    // the lock, which keeps a refused deletion from having been visible.
    if (absl::Status s = durability_.journal->CheckWritable(); !s.ok()) return s;
    AppendLocked(record, plan_->now());
    if (absl::Status s = durability_.journal->WaitDurable(last_lsn_); !s.ok()) return s;
  }
  deleted_ = true;
  return absl::OkStatus();
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
  for (auto& event : out) {
    event.set_sequence(next_sequence_++);
    *event.mutable_now() = ToTimestamp(plan_->now());
  }
  std::erase_if(sinks_, [](const auto& sink) { return sink->Closed(); });
  for (const auto& sink : sinks_) {
    for (const auto& event : out) sink->Push(event);
  }
  return static_cast<int>(out.size());
}

std::optional<pb::ScheduleEvent> ClusterState::Watch(
    std::shared_ptr<ScheduleSink> sink,
    const std::function<pb::Schedule(const ClusterPlan&)>& snapshot) {
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
  pb::ScheduleEvent first;
  first.set_kind(pb::ScheduleEvent::SNAPSHOT);
  *first.mutable_snapshot() = snapshot(*plan_);
  *first.mutable_now() = ToTimestamp(plan_->now());
  first.set_sequence(next_sequence_ - 1);
  std::erase_if(sinks_, [](const auto& s) { return s->Closed(); });
  sinks_.push_back(std::move(sink));
  return first;
}

void ClusterState::EndWatchers(const absl::Status& status) {
  MutexLock lock(&mu_);
  ended_ = status;
  for (const auto& sink : sinks_) sink->End(status);
  sinks_.clear();
}

}  // namespace resched::server
