#include "core/plan/periodic_replan.h"

#include <memory>

#include "core/plan/replan.h"
#include "core/registry/registry.h"

namespace resched {

std::optional<std::vector<PlannedJob>> PlanningReplanner::PlanAt(const ClusterPlan& plan) {
  const PeriodicReplan& replan = plan.spec().replan;
  PeriodicPlan& decision =
      decisions_.emplace_back(PeriodicPlan{.at = plan.now(), .planned = std::nullopt});
  // Checked at the cluster's creation: the planner is a built one.
  absl::StatusOr<std::unique_ptr<OfflinePlanner>> planner =
      MakeOfflinePlanner(replan.algorithm, replan.params);
  if (!planner.ok()) return std::nullopt;
  absl::StatusOr<ReplanProposal> proposal =
      ProposeReplan(plan, **planner, replan.objective, control_, /*lower_bounds=*/false);
  if (!proposal.ok()) {
    stopped_ |= control_.Stop();
    return std::nullopt;
  }
  if (!IsBetter(replan.objective, proposal->trial.before, proposal->trial.after)) {
    return std::nullopt;
  }
  decision.planned = std::move(proposal->planned);
  return decision.planned;
}

std::optional<std::vector<PlannedJob>> RecordedReplanner::PlanAt(const ClusterPlan& plan) {
  if (next_ < decisions_.size() && decisions_[next_].at == plan.now()) {
    return decisions_[next_++].planned;
  }
  // Not the instant the decisions were made for: none of the rest can be trusted either.
  next_ = decisions_.size();
  ++planned_here_;
  return PlanningReplanner().PlanAt(plan);
}

}  // namespace resched
