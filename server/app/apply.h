// The changes the application makes to a cluster, one function per kind, given the request as
// it was accepted. The application's calls make them live; the journal records what they did to
// the plan (core/plan/plan_change.h). Start-up replays records of the older request format through
// them (server/app/recovery.cc).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "core/dag/dag_plan.h"
#include "core/model/dag.h"
#include "resched/v1/journal.pb.h"
#include "resched/v1/service.pb.h"
#include "server/app/cluster_state.h"
#include "server/auth/tenant_limits.h"

namespace resched::server {

// With a `quota`, the job is placed only when its owner stays within it (server/app/quota.h); the
// journal's replay passes none, as what it replays was accepted.
absl::Status ApplySubmitJob(ClusterState::Txn& txn, const pb::SubmitJobRequest& request,
                            pb::SubmitJobResponse* response,
                            const auth::TenantLimit* quota = nullptr);
absl::Status ApplyCancelJob(ClusterState::Txn& txn, const pb::CancelJobRequest& request,
                            pb::Job* response);
absl::Status ApplyReportJobEvent(ClusterState::Txn& txn, const pb::ReportJobEventRequest& request,
                                 pb::Job* response);
absl::Status ApplyAddReservation(ClusterState::Txn& txn, const pb::AddReservationRequest& request,
                                 pb::Reservation* response);
absl::Status ApplyRemoveReservation(ClusterState::Txn& txn,
                                    const pb::RemoveReservationRequest& request);
absl::Status ApplyReleaseDag(ClusterState::Txn& txn, const pb::ReleaseDAGRequest& request);
absl::Status ApplyReportDagTaskEvent(ClusterState::Txn& txn,
                                     const pb::ReportDagTaskEventRequest& request,
                                     pb::DagReservation* response);
// The instant an AdvanceClock request moves `plan`'s clock to (`to`, or now + `by`).
absl::StatusOr<Time> AdvanceTarget(const ClusterPlan& plan, const pb::AdvanceClockRequest& request);
// `replanner` makes the periodic Replans due on the way (ClusterPlan::AdvanceTo).
absl::Status ApplyAdvanceClock(ClusterState::Txn& txn, const pb::AdvanceClockRequest& request,
                               pb::AdvanceClockResponse* response,
                               PeriodicReplanner* replanner = nullptr);

// Books a planned DAG (ReserveDAG, a committing QueryDeadline) and announces it to watchers.
// `owner`: the tenant reserving it (empty without tokens).
absl::Status CommitPlannedDag(ClusterState::Txn& txn, const Dag& dag, const DagPlan& plan,
                              const std::string& algorithm, const std::string& label,
                              const std::string& owner, Time release, const std::string& cluster,
                              std::string* dag_id);
// The replay of such a booking from a record of the request format (journal.proto).
absl::Status ApplyCommittedDag(ClusterState::Txn& txn, const pb::CommittedDag& committed,
                               const std::string& cluster);

// Applies a Replan's plan (live, and on replay of a record of the request format: it kept the
// allocations, not the request, so that replay never plans again).
absl::Status ApplyCommittedReplan(ClusterState::Txn& txn, const pb::CommittedReplan& committed);

}  // namespace resched::server
