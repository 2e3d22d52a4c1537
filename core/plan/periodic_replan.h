// Who makes a SIMULATED cluster's periodic Replan while its clock advances (ClusterSpec::replan,
// ClusterPlan::AdvanceTo). The cluster's planner may take seconds: a server plans the advance on
// a copy of the cluster first, off its lock, with a PlanningReplanner, then repeats the advance
// on the cluster, under the lock, with a RecordedReplanner that hands out the plans made on the
// copy. Both advances start from the same state and are deterministic between due instants, so
// they meet the same instants with the same queues, and the cluster ends exactly as the copy did.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/model/plan_control.h"
#include "core/plan/cluster_plan.h"

namespace resched {

// What was decided at one due instant: the plan applied there, or nullopt where the queue was
// kept (the plan was not strictly better on the objective, or the planner failed).
struct PeriodicPlan {
  Time at = 0;
  std::optional<std::vector<PlannedJob>> planned;
};

// The cluster's planner (spec().replan: algorithm, parameters, objective) on the plan it is
// asked about; a plan is applied only when strictly better on the objective. Remembers each
// decision, in order.
class PlanningReplanner : public PeriodicReplanner {
 public:
  // `control` stops a planner that runs too long for its caller (a call's deadline).
  explicit PlanningReplanner(PlanControl control = {}) : control_(std::move(control)) {}
  std::optional<std::vector<PlannedJob>> PlanAt(const ClusterPlan& plan) override;

  // Every decision so far, in order of the instants.
  const std::vector<PeriodicPlan>& decisions() const { return decisions_; }
  // True once the control stopped a planner: a decision was then not the planner's, and the
  // decisions must not be applied elsewhere.
  bool stopped() const { return stopped_; }

 private:
  PlanControl control_;
  std::vector<PeriodicPlan> decisions_;
  bool stopped_ = false;
};

// Decisions made before by a PlanningReplanner on a plan in the same state, handed out in
// order. An instant they do not cover (the plan was not in the same state after all) is planned
// here, by the cluster's planner, so the advance is still right, only slower.
class RecordedReplanner : public PeriodicReplanner {
 public:
  explicit RecordedReplanner(std::vector<PeriodicPlan> decisions)
      : decisions_(std::move(decisions)) {}
  std::optional<std::vector<PlannedJob>> PlanAt(const ClusterPlan& plan) override;

  // The instants that were planned here rather than handed out.
  int planned_here() const { return planned_here_; }

 private:
  std::vector<PeriodicPlan> decisions_;
  std::size_t next_ = 0;
  int planned_here_ = 0;
};

}  // namespace resched
