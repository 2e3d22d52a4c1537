#include "server/app/ownership.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace resched::server {

namespace pb = ::resched::v1;

bool SeesAllTenants(const auth::Principal* caller) {
  return caller == nullptr || caller->role >= auth::Role::kOperator;
}

absl::Status CheckOwner(const auth::Principal* caller, const std::string& owner,
                        absl::string_view what) {
  if (SeesAllTenants(caller) || owner == caller->tenant) return absl::OkStatus();
  // The answer an id that does not exist gets: a different one would tell a user which of the
  // ids it guesses are another tenant's.
  return absl::NotFoundError(absl::StrCat(what, " not found"));
}

absl::StatusOr<std::string> SubmissionOwner(const auth::Principal* caller,
                                            const std::string& requested, absl::string_view field) {
  if (caller == nullptr) return requested;
  if (requested.empty()) return caller->tenant;
  if (requested != caller->tenant && !SeesAllTenants(caller)) {
    return absl::PermissionDeniedError(
        absl::StrCat(field, ": a user submits as its own tenant '", caller->tenant, "' (leave ",
                     field, " empty); submitting for another tenant needs the operator role"));
  }
  return requested;
}

void RedactJob(pb::Job& job) {
  job.clear_id();
  job.mutable_spec()->clear_name();
  job.mutable_spec()->clear_owner();
}

void RedactDag(pb::DagReservation& dag) {
  dag.clear_id();
  dag.clear_label();
  dag.clear_owner();
  dag.clear_edges();
  for (pb::TaskPlacement& placement : *dag.mutable_placements()) placement.clear_task();
}

void RedactForCaller(const auth::Principal* caller, pb::Job& job) {
  if (!SeesAllTenants(caller) && job.spec().owner() != caller->tenant) RedactJob(job);
}

void RedactForCaller(const auth::Principal* caller, pb::Schedule& schedule,
                     const ClusterPlan& plan) {
  if (SeesAllTenants(caller)) return;
  for (pb::Job& job : *schedule.mutable_jobs()) RedactForCaller(caller, job);
  for (pb::DagTaskSlot& slot : *schedule.mutable_dag_tasks()) {
    const DagReservation* dag = plan.FindDag(slot.dag_id());
    if (dag == nullptr || dag->owner != caller->tenant) {
      slot.clear_dag_id();
      slot.clear_task();
      slot.clear_owner();
    }
  }
}

void RedactForCaller(const auth::Principal* caller, pb::ScheduleEvent& event) {
  if (SeesAllTenants(caller)) return;
  if (event.has_job()) RedactForCaller(caller, *event.mutable_job());
  if (event.has_dag() && event.dag().owner() != caller->tenant) RedactDag(*event.mutable_dag());
  for (pb::RowMove& move : *event.mutable_moved_rows()) {
    if (!move.reservation_id().empty() || move.owner() == caller->tenant) continue;
    move.clear_job_id();
    move.clear_dag_id();
    move.clear_task();
    move.clear_owner();
  }
}

RedactingSink::RedactingSink(std::shared_ptr<ScheduleSink> inner,
                             std::shared_ptr<const auth::Principal> caller)
    : inner_(std::move(inner)), caller_(std::move(caller)) {}

void RedactingSink::Push(const SharedEvent& event) {
  const pb::ScheduleEvent& shared = *event.event;
  if (SeesAllTenants(caller_.get()) ||
      (!shared.has_job() && !shared.has_dag() && shared.moved_rows().empty())) {
    inner_->Push(event);  // nothing to hide: the event every watcher shares
    return;
  }
  pb::ScheduleEvent redacted = shared;
  RedactForCaller(caller_.get(), redacted);
  inner_->Push(ShareEvent(std::move(redacted)));
}

}  // namespace resched::server
