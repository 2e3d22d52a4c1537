#include "server/app/plan_then_commit.h"

#include <memory>

#include "absl/strings/str_format.h"
#include "server/app/planning_span.h"
#include "server/trace/span.h"

namespace resched::server {

absl::Status PlanThenCommit(
    CallContext& call, ClusterState& state, std::string_view what_changed,
    absl::FunctionRef<AttemptOutcome(const ClusterPlan& copy, int number)> attempt) {
  for (int number = 1; number <= kMaxPlanAttempts; ++number) {
    trace::ScopedSpan attempt_span = PlanAttemptSpan(number);
    absl::StatusOr<std::unique_ptr<ClusterPlan>> copy = state.CopyPlan(call);
    if (!copy.ok()) return copy.status();
    AttemptOutcome outcome = attempt(**copy, number);
    if (!outcome.stale) return outcome.status;
    MarkStale(attempt_span);
  }
  return absl::AbortedError(absl::StrFormat(
      "the cluster changed under %d plans in a row (%s); retry", kMaxPlanAttempts, what_changed));
}

PlanControl PlanningControl(const CallContext& call, const ClusterState& state) {
  return PlanControl{[&call, &state] { return !call.Status().ok() || state.Gone(); }};
}

absl::Status PlannerFailed(const CallContext& call, ClusterState& state,
                           const absl::Status& planned) {
  if (absl::Status stopped = call.Status(); !stopped.ok()) return stopped;
  if (state.Gone()) return state.GoneError();
  return planned;
}

}  // namespace resched::server
