// Start-up from a data directory, and the rebuild of a cluster whose last change could not be
// saved: the journal's records go, in order, through the functions that applied them live
// (service_apply.h), at the clock each was applied at.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/resched/convert.h"
#include "server/service.h"
#include "server/service_apply.h"

namespace resched::server {
namespace {

const char* ChangeName(const pb::JournalRecord& record) {
  switch (record.change_case()) {
    case pb::JournalRecord::kCreateCluster:
      return "CreateCluster";
    case pb::JournalRecord::kDeleteCluster:
      return "DeleteCluster";
    case pb::JournalRecord::kSubmitJob:
      return "SubmitJob";
    case pb::JournalRecord::kCancelJob:
      return "CancelJob";
    case pb::JournalRecord::kReportJobEvent:
      return "ReportJobEvent";
    case pb::JournalRecord::kAddReservation:
      return "AddReservation";
    case pb::JournalRecord::kRemoveReservation:
      return "RemoveReservation";
    case pb::JournalRecord::kCommitDag:
      return "a DAG booking";
    case pb::JournalRecord::kReleaseDag:
      return "ReleaseDAG";
    case pb::JournalRecord::kAdvanceClock:
      return "AdvanceClock";
    case pb::JournalRecord::kClockSettled:
      return "a clock settling";
    case pb::JournalRecord::kReplyOnly:
      return "an answer";
    case pb::JournalRecord::CHANGE_NOT_SET:
      break;
  }
  return "an unknown change";
}

// Applies a record's change to `txn` and remembers its answer under its request id.
absl::Status ApplyChange(ClusterState::Txn& txn, const pb::JournalRecord& record,
                         const std::string& cluster) {
  absl::Status status;
  switch (record.change_case()) {
    case pb::JournalRecord::kSubmitJob: {
      pb::SubmitJobResponse response;
      status = ApplySubmitJob(txn, record.submit_job(), &response);
      break;
    }
    case pb::JournalRecord::kCancelJob: {
      pb::Job response;
      status = ApplyCancelJob(txn, record.cancel_job(), &response);
      break;
    }
    case pb::JournalRecord::kReportJobEvent: {
      pb::Job response;
      status = ApplyReportJobEvent(txn, record.report_job_event(), &response);
      break;
    }
    case pb::JournalRecord::kAddReservation: {
      pb::Reservation response;
      status = ApplyAddReservation(txn, record.add_reservation(), &response);
      break;
    }
    case pb::JournalRecord::kRemoveReservation:
      status = ApplyRemoveReservation(txn, record.remove_reservation());
      break;
    case pb::JournalRecord::kCommitDag:
      status = ApplyCommittedDag(txn, record.commit_dag(), cluster);
      break;
    case pb::JournalRecord::kReleaseDag:
      status = ApplyReleaseDag(txn, record.release_dag());
      break;
    case pb::JournalRecord::kAdvanceClock: {
      pb::AdvanceClockResponse response;
      status = ApplyAdvanceClock(txn, record.advance_clock(), &response);
      break;
    }
    case pb::JournalRecord::kClockSettled:
    case pb::JournalRecord::kReplyOnly:
      break;
    default:
      return absl::DataLossError("the record holds no change this server knows");
  }
  if (!status.ok()) return status;
  if (!record.request_id().empty()) {
    txn.replies.Remember(record.request_id(), record.method(), record.reply());
  }
  return absl::OkStatus();
}

}  // namespace

Durability ReschedService::MakeDurability() {
  return Durability{journal_.get(),
                    [this](const std::string& name) { return RebuildCluster(name); }};
}

absl::Status ReschedService::ApplyRecord(const StoredRecord& stored) {
  pb::JournalRecord record;
  auto failure = [&](const absl::Status& cause) {
    return absl::DataLossError(absl::StrFormat(
        "data directory %s: replaying record LSN %d (%s on cluster '%s') of %s failed: %s; the "
        "journal does not match this server (written by another version?)",
        journal_->dir(), stored.lsn, ChangeName(record), stored.cluster, journal_->path(),
        cause.message()));
  };
  if (!record.ParseFromString(stored.payload)) {
    return failure(absl::DataLossError("the record does not parse"));
  }
  auto now = FromProto(record.now(), "now");
  if (!now.ok()) return failure(now.status());
  if (record.has_create_cluster()) {
    MutexLock lock(&create_mu_);
    absl::StatusOr<pb::Cluster> created = Create(record.create_cluster(), *now);
    if (!created.ok()) return failure(created.status());
    if (!record.request_id().empty()) {
      cluster_replies_.Remember(record.request_id(), record.method(), record.reply());
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::shared_ptr<ClusterState>> state = Find(stored.cluster);
  if (!state.ok()) return failure(state.status());
  if (record.has_delete_cluster()) {
    if (absl::Status s = (*state)->Delete([](const ClusterPlan&) { return absl::OkStatus(); });
        !s.ok()) {
      return failure(s);
    }
    WriterMutexLock lock(&clusters_mu_);
    clusters_.erase(stored.cluster);
    return absl::OkStatus();
  }
  absl::Status applied = (*state)->Replay(
      *now, [&](ClusterState::Txn& txn) { return ApplyChange(txn, record, stored.cluster); });
  return applied.ok() ? absl::OkStatus() : failure(applied);
}

absl::StatusOr<bool> ReschedService::OpenDataDir(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<Journal>> journal = Journal::Open(dir);
  if (!journal.ok()) return journal.status();
  journal_ = *std::move(journal);
  const bool fresh = journal_->last_lsn() == 0;
  // Replayed clusters have no journal attached yet, so replay journals nothing again.
  if (absl::Status s = journal_->Scan([this](const StoredRecord& r) { return ApplyRecord(r); });
      !s.ok()) {
    return s;
  }
  ReaderMutexLock lock(&clusters_mu_);
  for (auto& [name, state] : clusters_) state->AttachDurability(MakeDurability());
  return fresh;
}

absl::StatusOr<std::shared_ptr<ClusterState>> ReschedService::RebuildCluster(
    const std::string& name) {
  // The cluster's records since its last creation (a name may be deleted and created again).
  std::vector<StoredRecord> records;
  absl::Status scanned = journal_->Scan(
      [&](const StoredRecord& r) {
        pb::JournalRecord record;
        if (record.ParseFromString(r.payload) && record.has_create_cluster()) records.clear();
        records.push_back(r);
        return absl::OkStatus();
      },
      &name);
  if (!scanned.ok()) return scanned;
  if (records.empty()) {
    return absl::DataLossError(absl::StrCat("data directory ", journal_->dir(),
                                            ": no record creates cluster '", name, "'"));
  }
  std::shared_ptr<ClusterState> state;
  for (const StoredRecord& r : records) {
    pb::JournalRecord record;
    if (!record.ParseFromString(r.payload)) {
      return absl::DataLossError(absl::StrFormat("data directory %s: record LSN %d does not parse",
                                                 journal_->dir(), r.lsn));
    }
    absl::StatusOr<Time> now = FromProto(record.now(), "now");
    if (!now.ok()) return now.status();
    absl::Status applied;
    if (record.has_create_cluster()) {
      absl::StatusOr<std::shared_ptr<ClusterState>> created =
          NewClusterState(record.create_cluster().spec(), *now);
      if (!created.ok()) return created.status();
      state = *std::move(created);
    } else if (record.has_delete_cluster() || state == nullptr) {
      return absl::NotFoundError(absl::StrCat("cluster '", name, "' was deleted"));
    } else {
      applied = state->Replay(
          *now, [&](ClusterState::Txn& txn) { return ApplyChange(txn, record, name); });
    }
    if (!applied.ok()) return applied;
  }
  return state;
}

}  // namespace resched::server
