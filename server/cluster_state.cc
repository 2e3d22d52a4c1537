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

void ClusterState::SettleClockLocked() {
  if (simulated_) return;
  const Time now = WallNow();
  // AdvanceTo fails only for a time before now, which the test excludes.
  if (now > plan_->now()) (void)plan_->AdvanceTo(now);
}

absl::Status ClusterState::DeletedError() const {
  return absl::NotFoundError(absl::StrCat("cluster '", name_, "' was deleted"));
}

absl::Status ClusterState::Run(const std::function<void(Txn&)>& fn) {
  MutexLock lock(&mu_);
  if (deleted_) return DeletedError();
  SettleClockLocked();
  std::vector<pb::ScheduleEvent> extra;
  Txn txn{*plan_, replies_, extra};
  fn(txn);
  PublishLocked(std::move(extra));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ClusterPlan>> ClusterState::Snapshot() {
  MutexLock lock(&mu_);
  if (deleted_) return DeletedError();
  SettleClockLocked();
  PublishLocked({});
  return plan_->Clone();
}

absl::Status ClusterState::Delete(
    const std::function<absl::Status(const ClusterPlan&)>& may_delete) {
  MutexLock lock(&mu_);
  if (deleted_) return DeletedError();
  SettleClockLocked();
  PublishLocked({});
  if (absl::Status allowed = may_delete(*plan_); !allowed.ok()) return allowed;
  deleted_ = true;
  return absl::OkStatus();
}

void ClusterState::PublishLocked(std::vector<pb::ScheduleEvent> extra) {
  std::vector<pb::ScheduleEvent> out;
  for (const JobRecord* job : plan_->TakeChangedJobs()) {
    pb::ScheduleEvent event;
    event.set_kind(pb::ScheduleEvent::JOB_CHANGED);
    *event.mutable_job() = ToProto(*job, name_);
    out.push_back(std::move(event));
  }
  for (auto& event : extra) out.push_back(std::move(event));
  if (out.empty()) return;
  for (auto& event : out) {
    event.set_sequence(next_sequence_++);
    *event.mutable_now() = ToTimestamp(plan_->now());
  }
  std::erase_if(sinks_, [](const auto& sink) { return sink->Closed(); });
  for (const auto& sink : sinks_) {
    for (const auto& event : out) sink->Push(event);
  }
}

std::optional<pb::ScheduleEvent> ClusterState::Watch(
    std::shared_ptr<ScheduleSink> sink,
    const std::function<pb::Schedule(const ClusterPlan&)>& snapshot) {
  MutexLock lock(&mu_);
  if (ended_) {
    sink->End(*ended_);
    return std::nullopt;
  }
  SettleClockLocked();
  PublishLocked({});
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
