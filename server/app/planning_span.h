// What a "resched.plan" span records (docs/observability.md): the algorithm, its parameters,
// how much it planned (jobs, or a DAG's tasks) and what came out. The attribute helpers return
// nothing when the call is not traced, so untraced calls pay no formatting.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/model/dag.h"
#include "core/online/plan_state.h"
#include "core/registry/params.h"
#include "server/app/cluster_state.h"
#include "server/trace/span.h"

namespace resched::server {

inline constexpr char kPlanSpan[] = "resched.plan";
inline constexpr char kValidateSpan[] = "resched.validate";
inline constexpr char kPlanAttemptSpan[] = "resched.plan.attempt";

// One step (`step`: "submit", "cancel", ...) of the online policy of `txn`'s cluster, with the
// jobs queued and running before it.
trace::Attributes PolicyStepAttributes(const ClusterState::Txn& txn, absl::string_view step);
// A DAG planner's run on `dag`.
trace::Attributes DagPlannerAttributes(const std::string& algorithm, const AlgorithmParams& params,
                                       const Dag& dag);
// One attempt (from 1) of a call that plans on a copy of the cluster and then commits under its
// lock (ReserveDAG, a committing QueryDeadline, Replan): its lock waits, planning and commit are
// the attempt's children, so a retry shows as a second attempt.
trace::ScopedSpan PlanAttemptSpan(int attempt);
// The attempt's plan went stale (the cluster changed while it was planned): it ends failed,
// saying so, and the call plans again.
void MarkStale(trace::ScopedSpan& attempt);
// The outcome of a step that leaves one job: its id, state and allocation, or the error.
void RecordOutcome(trace::ScopedSpan& span, const absl::StatusOr<const JobRecord*>& job);
void RecordOutcome(trace::ScopedSpan& span, const absl::Status& status);

}  // namespace resched::server
