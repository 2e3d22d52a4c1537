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
#include "server/cluster_state.h"
#include "server/trace/span.h"

namespace resched::server {

inline constexpr char kPlanSpan[] = "resched.plan";
inline constexpr char kValidateSpan[] = "resched.validate";

// One step (`step`: "submit", "cancel", ...) of the online policy of `txn`'s cluster, with the
// jobs queued and running before it.
trace::Attributes PolicyStepAttributes(const ClusterState::Txn& txn, absl::string_view step);
// A DAG planner's run on `dag`.
trace::Attributes DagPlannerAttributes(const std::string& algorithm, const AlgorithmParams& params,
                                       const Dag& dag);
// The outcome of a step that leaves one job: its id, state and allocation, or the error.
void RecordOutcome(trace::ScopedSpan& span, const absl::StatusOr<const JobRecord*>& job);
void RecordOutcome(trace::ScopedSpan& span, const absl::Status& status);

}  // namespace resched::server
