// Start-up from a data directory, and the rebuild of a cluster whose last change could not be
// saved: each cluster's snapshot is loaded, then the journal's later records are applied in
// order: what each change did to the plan (PlanChange), without running any policy or planner.
// Records of the request format, which servers wrote before, go through the functions that
// applied them live (server/app/apply.h), at the clock each was applied at, re-planning.
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/resched/convert.h"
#include "proto/resched/snapshot_convert.h"
#include "resched/v1/snapshot.pb.h"
#include "server/app/application.h"
#include "server/app/apply.h"
#include "server/base/log.h"

namespace resched::server {
namespace {

std::string ChangeName(const pb::JournalRecord& record) {
  switch (record.change_case()) {
    case pb::JournalRecord::kPlanChange:
      return record.method().empty() ? "a change" : record.method();
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
    case pb::JournalRecord::kCommitReplan:
      return "a Replan";
    case pb::JournalRecord::kClockSettled:
      return "a clock settling";
    case pb::JournalRecord::kReplyOnly:
      return "an answer";
    case pb::JournalRecord::CHANGE_NOT_SET:
      break;
  }
  return "an unknown change";
}

// Applies a record of the request format to `txn` and remembers its answer under its request id.
absl::Status ApplyRequestRecord(ClusterState::Txn& txn, const pb::JournalRecord& record,
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
    case pb::JournalRecord::kCommitReplan:
      status = ApplyCommittedReplan(txn, record.commit_replan());
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

Durability Application::MakeDurability() {
  Durability durability;
  durability.journal = journal_.get();
  durability.rebuild = [this](const std::string& name) { return RebuildCluster(name); };
  if (limits_.snapshots) {
    durability.snapshot = [this](ClusterImage image) { snapshotter_->Submit(std::move(image)); };
  }
  durability.snapshot_every = limits_.snapshot_every_records;
  return durability;
}

std::int64_t Application::FlushSnapshots() {
  if (snapshotter_ == nullptr) return 0;
  snapshotter_->Flush();
  return snapshotter_->written();
}

absl::StatusOr<std::shared_ptr<ClusterState>> Application::RestoreSnapshot(
    const StoredRecord& stored, pb::JournalRecord* creation) const {
  auto failure = [&](absl::string_view cause) {
    return absl::DataLossError(
        absl::StrFormat("%s: the snapshot of cluster '%s' (LSN %d) in %s cannot be loaded: %s",
                        journal_->name(), stored.cluster, stored.lsn, journal_->location(), cause));
  };
  pb::ClusterSnapshot snapshot;
  if (!snapshot.ParseFromString(stored.payload)) return failure("it does not parse");
  if (!snapshot.creation().has_create_cluster()) return failure("it has no creation record");
  const pb::ClusterSpec& proto_spec = snapshot.creation().create_cluster().spec();
  absl::StatusOr<ClusterSpec> spec = FromProto(proto_spec);
  if (!spec.ok()) return failure(spec.status().message());
  absl::StatusOr<ClusterPlanImage> image = FromSnapshot(snapshot.plan());
  if (!image.ok()) return failure(image.status().message());
  image->spec = *std::move(spec);
  image->params = FromProto(proto_spec.policy());
  image->limits = PlanLimits();
  const AlgorithmParams params = image->params;
  absl::StatusOr<std::unique_ptr<ClusterPlan>> plan = ClusterPlan::FromImage(*std::move(image));
  if (!plan.ok()) return failure(plan.status().message());
  if ((*plan)->spec().name != stored.cluster) {
    return failure(absl::StrCat("it holds cluster '", (*plan)->spec().name, "'"));
  }
  auto state = std::make_shared<ClusterState>(*std::move(plan), params);
  std::vector<std::pair<std::string, ReplyCache::Entry>> replies;
  replies.reserve(snapshot.replies_size());
  for (const pb::SnapshotReply& r : snapshot.replies()) {
    replies.emplace_back(r.request_id(), ReplyCache::Entry{r.method(), r.reply()});
  }
  state->Restore(snapshot.next_sequence(), replies);
  *creation = snapshot.creation();
  state->SetCreation(snapshot.creation());
  return state;
}

absl::Status Application::ApplyRecord(const StoredRecord& stored) {
  pb::JournalRecord record;
  auto failure = [&](const absl::Status& cause) {
    return absl::DataLossError(absl::StrFormat(
        "%s: replaying record LSN %d (%s on cluster '%s') of %s failed: %s; the journal does "
        "not match this server (written by another version?)",
        journal_->name(), stored.lsn, ChangeName(record), stored.cluster, journal_->location(),
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
    absl::StatusOr<std::shared_ptr<ClusterState>> state = Find(stored.cluster);
    if (!state.ok()) return failure(state.status());
    (*state)->SetCreation(std::move(record));
    return absl::OkStatus();
  }
  absl::StatusOr<std::shared_ptr<ClusterState>> state = Find(stored.cluster);
  // The deletion's record outlives the cluster's others (DropClusterBefore).
  if (!state.ok() && record.has_delete_cluster()) return absl::OkStatus();
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
  absl::Status applied = record.has_plan_change()
                             ? (*state)->ApplyJournaled(record)
                             : (*state)->Replay(*now, [&](ClusterState::Txn& txn) {
                                 return ApplyRequestRecord(txn, record, stored.cluster);
                               });
  return applied.ok() ? absl::OkStatus() : failure(applied);
}

absl::StatusOr<bool> Application::OpenDataDir(const std::string& dir, JournalOpenOptions options) {
  absl::StatusOr<std::unique_ptr<Journal>> journal = Journal::Open(dir, options);
  if (!journal.ok()) return journal.status();
  return TakeJournal(*std::move(journal));
}

absl::StatusOr<bool> Application::TakeJournal(std::unique_ptr<Journal> journal, bool load) {
  journal_ = std::move(journal);
  const std::string& where = journal_->location();
  if (journal_->lost_data()) {
    Log(LogLevel::kError, "data_loss_accepted", journal_->recovery_note(), {{"journal", where}});
  } else if (!journal_->recovery_note().empty()) {
    Log(LogLevel::kWarning, "unclean_stop", journal_->recovery_note(), {{"journal", where}});
  }
  const bool fresh = journal_->last_lsn() == 0;
  // Each snapshot first, then the records after it. Replayed clusters have no journal attached
  // yet, so replay journals nothing again.
  absl::flat_hash_map<std::string, std::int64_t> snapshot_lsn;
  absl::Status loaded =
      !load ? absl::OkStatus()
            : journal_->ScanSnapshots([&](const StoredRecord& stored) -> absl::Status {
                pb::JournalRecord creation;
                absl::StatusOr<std::shared_ptr<ClusterState>> state =
                    RestoreSnapshot(stored, &creation);
                if (!state.ok()) return state.status();
                MutexLock lock(&create_mu_);
                // The creation's answer, for a retried CreateCluster.
                if (!creation.request_id().empty()) {
                  cluster_replies_.Remember(creation.request_id(), creation.method(),
                                            creation.reply());
                }
                Observe(**state);
                WriterMutexLock clusters(&clusters_mu_);
                clusters_[stored.cluster] = *std::move(state);
                snapshot_lsn[stored.cluster] = stored.lsn;
                return absl::OkStatus();
              });
  if (!loaded.ok()) return loaded;
  if (absl::Status s = !load ? absl::OkStatus() : journal_->Scan([&](const StoredRecord& r) {
        const auto covered = snapshot_lsn.find(r.cluster);
        if (covered != snapshot_lsn.end() && r.lsn <= covered->second) return absl::OkStatus();
        return ApplyRecord(r);
      });
      !s.ok()) {
    return s;
  }
  journal_->SetCommitObserver(
      [this](double seconds, std::size_t records) { metrics_.ObserveCommit(seconds, records); });
  journal_->SetHealthObserver([this](const absl::Status& status) { OnJournalHealth(status); });
  journal_->SetCallbackExecutor(
      [this](std::function<void()> task) { workers_.Post(std::move(task)); });
  // A full disk at start: the journal serves reads and refuses changes until a probe commits.
  const absl::Status writable = journal_->CheckWritable();
  metrics_.SetJournalWritable(writable.ok());
  if (!writable.ok()) {
    Log(LogLevel::kError, "journal_read_only",
        absl::StrCat("the journal (", journal_->name(), ") cannot write (", writable.message(),
                     "): started read-only; every change is refused with UNAVAILABLE and the "
                     "health check says NOT_SERVING until a probe commits"),
        {{"journal", where}});
    MutexLock lock(&health_mu_);
    journal_writable_ = false;
  }
  snapshotter_ = std::make_unique<Snapshotter>(
      journal_.get(), [this](bool written) { metrics_.CountSnapshot(written); });
  ReaderMutexLock lock(&clusters_mu_);
  for (auto& [name, state] : clusters_) state->AttachDurability(MakeDurability());
  return fresh;
}

absl::StatusOr<std::shared_ptr<ClusterState>> Application::RebuildCluster(const std::string& name,
                                                                          std::int64_t* last_lsn) {
  // The cluster's snapshot, if any, then its records after it since its last creation (a name
  // may be deleted and created again).
  std::optional<StoredRecord> snapshot;
  absl::Status found = journal_->ScanSnapshots(
      [&](const StoredRecord& r) {
        snapshot = r;
        return absl::OkStatus();
      },
      &name);
  if (!found.ok()) return found;
  const std::int64_t after = snapshot ? snapshot->lsn : 0;
  std::vector<StoredRecord> records;
  bool created = false;
  absl::Status scanned = journal_->Scan(
      [&](const StoredRecord& r) {
        if (r.lsn <= after) return absl::OkStatus();
        pb::JournalRecord record;
        if (record.ParseFromString(r.payload) && record.has_create_cluster()) {
          records.clear();
          created = true;
        }
        records.push_back(r);
        return absl::OkStatus();
      },
      &name);
  if (!scanned.ok()) return scanned;
  if (last_lsn != nullptr) *last_lsn = records.empty() ? after : records.back().lsn;
  std::shared_ptr<ClusterState> state;
  if (snapshot && !created) {
    pb::JournalRecord creation;
    absl::StatusOr<std::shared_ptr<ClusterState>> restored = RestoreSnapshot(*snapshot, &creation);
    if (!restored.ok()) return restored.status();
    state = *std::move(restored);
  } else if (!created) {
    return absl::DataLossError(
        absl::StrCat(journal_->name(), ": no record or snapshot creates cluster '", name, "'"));
  }
  for (const StoredRecord& r : records) {
    if (absl::Status applied = ApplyToCopy(state, r, name); !applied.ok()) return applied;
  }
  return state;
}

absl::Status Application::ApplyToCopy(std::shared_ptr<ClusterState>& state,
                                      const StoredRecord& stored, const std::string& name) const {
  pb::JournalRecord record;
  if (!record.ParseFromString(stored.payload)) {
    return absl::DataLossError(
        absl::StrFormat("%s: record LSN %d does not parse", journal_->name(), stored.lsn));
  }
  absl::StatusOr<Time> now = FromProto(record.now(), "now");
  if (!now.ok()) return now.status();
  if (record.has_create_cluster()) {
    absl::StatusOr<std::shared_ptr<ClusterState>> made =
        NewClusterState(record.create_cluster().spec(), *now);
    if (!made.ok()) return made.status();
    state = *std::move(made);
    state->SetCreation(std::move(record));
    return absl::OkStatus();
  }
  if (record.has_delete_cluster()) {
    return absl::NotFoundError(absl::StrCat("cluster '", name, "' was deleted"));
  }
  if (state == nullptr) {
    return absl::DataLossError(
        absl::StrFormat("%s: record LSN %d of cluster '%s' comes before "
                        "any record that creates it",
                        journal_->name(), stored.lsn, name));
  }
  if (record.has_plan_change()) return state->ApplyJournaled(record);
  return state->Replay(
      *now, [&](ClusterState::Txn& txn) { return ApplyRequestRecord(txn, record, name); });
}

}  // namespace resched::server
