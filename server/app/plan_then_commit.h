// Planning off a cluster's lock and committing under it, for the calls whose planner may be slow
// (ReserveDAG, a committing QueryDeadline, Replan): the plan is made on a copy of the cluster, so
// that every other call on it goes on meanwhile; the commit then checks the plan against the
// cluster as it is by then, under the lock, and books it, or finds it stale (the cluster took
// what the plan needed, or its clock moved past what the plan promised), and the plan is made
// again on a new copy, at most kMaxPlanAttempts times.
#pragma once

#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "core/plan/cluster_plan.h"
#include "server/app/call_context.h"
#include "server/app/cluster_state.h"

namespace resched::server {

// Attempts before the call gives up with ABORTED: each retry means the cluster changed under the
// previous plan in a way the plan cannot absorb.
inline constexpr int kMaxPlanAttempts = 3;

// How one attempt ended: with the call's answer, or stale (plan again).
struct AttemptOutcome {
  absl::Status status;
  bool stale = false;
};

// Calls `attempt(copy, number)` with a fresh copy of `state`'s plan, taken for `call`, and the
// attempt's number (from 1) until an attempt is not stale, and returns its answer. Each attempt
// is traced as a resched.plan.attempt span, marked stale when it is. After kMaxPlanAttempts
// stale attempts: ABORTED, saying `what_changed` (what the cluster did to the plans).
absl::Status PlanThenCommit(
    CallContext& call, ClusterState& state, std::string_view what_changed,
    absl::FunctionRef<AttemptOutcome(const ClusterPlan& copy, int number)> attempt);

// What stops a planner run off the lock for `call` on `state`: the call's deadline or
// cancellation, or the cluster deleted or moved to another replica meanwhile.
PlanControl PlanningControl(const CallContext& call, const ClusterState& state);

// The answer of a planner that failed: `call`'s own status when its deadline passed or it was
// cancelled, NOT_FOUND (or the retirement's status) when the cluster went away (a stopped
// planner says only CANCELLED), else the planner's error.
absl::Status PlannerFailed(const CallContext& call, ClusterState& state,
                           const absl::Status& planned);

}  // namespace resched::server
