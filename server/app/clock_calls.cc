// AdvanceClock on a SIMULATED cluster. The clock's way may meet periodic Replans
// (ClusterSpec::replan), whose planner can take seconds: they are planned first on a copy of the
// cluster advanced the same way, off the lock, so that every other call on the cluster goes on
// meanwhile. The advance then runs on the cluster, under the lock, applying the copy's plans
// instead of planning (core/plan/periodic_replan.h), when no other call came between the copy and
// the commit; otherwise the copy is stale and the advance is planned again on a new one. After
// kMaxPlanAttempts stale copies the advance plans under the lock: a clock always advances.
#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/plan/periodic_replan.h"
#include "server/app/application.h"
#include "server/app/apply.h"
#include "server/app/call_helpers.h"
#include "server/app/plan_then_commit.h"
#include "server/app/planning_span.h"
#include "server/trace/span.h"

namespace resched::server {

absl::Status Application::AdvanceClock(CallContext& call, const pb::AdvanceClockRequest& request,
                                       pb::AdvanceClockResponse* response) {
  if (auto s = CheckRequestId(request.request_id()); !s.ok()) return s;
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  ClusterState& cluster = **state;
  if (!cluster.simulated()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cluster '", request.cluster(), "' has a WALL clock; only SIMULATED clocks advance"));
  }
  if (auto replay = AnsweredBefore<pb::AdvanceClockResponse>(call, cluster, request.request_id(),
                                                             "AdvanceClock")) {
    return *replay;
  }
  for (int number = 1; number <= kMaxPlanAttempts; ++number) {
    // Most advances meet no periodic Replan: a look under the lock spares them the copy.
    bool replan_due = false;
    cluster.Peek([&](const ClusterPlan& plan) {
      const absl::StatusOr<Time> target = AdvanceTarget(plan, request);
      replan_due = target.ok() && plan.PeriodicReplanDueBy(*target);
    });
    if (!replan_due) break;
    std::uint64_t changes_seen = 0;
    absl::StatusOr<std::unique_ptr<ClusterPlan>> copy = cluster.CopyPlan(call, &changes_seen);
    if (!copy.ok()) return copy.status();
    absl::StatusOr<Time> target = AdvanceTarget(**copy, request);
    // Nothing to plan on the way (or a bad target): the advance is quick, under the lock.
    if (!target.ok() || !(*copy)->PeriodicReplanDueBy(*target)) break;
    trace::ScopedSpan attempt_span = PlanAttemptSpan(number);
    PlanningReplanner ahead(PlanningControl(call, cluster));
    {
      trace::ScopedSpan planning(kPlanSpan);
      if (planning.recording()) {
        planning.SetAttribute("resched.algorithm", (*copy)->spec().replan.algorithm);
        planning.SetAttribute("resched.jobs.queued", std::int64_t{(*copy)->queued_count()});
      }
      RecordOutcome(planning, (*copy)->AdvanceTo(*target, &ahead));
    }
    if (ahead.stopped()) {
      return PlannerFailed(call, cluster,
                           absl::CancelledError("the periodic Replan's planner was stopped"));
    }
    bool stale = false;
    absl::Status advanced =
        RunIdempotent(call, cluster, request.request_id(), "AdvanceClock", response,
                      [&](ClusterState::Txn& txn) -> absl::Status {
                        if (txn.changes_seen != changes_seen) {
                          stale = true;
                          return absl::AbortedError(
                              "the cluster changed while its periodic Replans were planned");
                        }
                        RecordedReplanner recorded(ahead.decisions());
                        return ApplyAdvanceClock(txn, request, response, &recorded);
                      });
    if (!stale) return advanced;
    MarkStale(attempt_span);
  }
  return RunIdempotent(
      call, cluster, request.request_id(), "AdvanceClock", response,
      [&](ClusterState::Txn& txn) { return ApplyAdvanceClock(txn, request, response); });
}

}  // namespace resched::server
