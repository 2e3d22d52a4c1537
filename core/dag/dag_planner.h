// The DAG planner interface: what ReserveDAG, QueryDeadline, the experiments and the benchmarks
// call, through a planner the registry builds by name (core/registry/registry.h).
//
// Every planner answers both questions, on one speed or on groups of several (DagPlanningInput).
// Turnaround planners (cpa, bl_*_bd_*, heft, barbosa) answer a deadline query with their own plan:
// feasible when it completes by K, and their completion is the tightest deadline they can promise.
// Deadline planners (dl_*) answer ReserveDAG with the plan of their tightest deadline.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dag/dag_plan.h"
#include "core/model/cluster.h"
#include "core/model/dag.h"
#include "core/model/plan_control.h"
#include "core/timeline/timeline.h"

namespace resched {

// The window before now over which the historical available processors q are averaged (§4.2),
// unless a planner's options say otherwise.
inline constexpr double kDefaultHistoryWindowHours = 168;

struct DagPlanningInput {
  const Dag* dag = nullptr;
  const Timeline* timeline = nullptr;  // the cluster's bookings (not modified)
  Time release = 0;                    // no task starts before
  // Historical average of available processors (Aida & Casanova §4.2), used by the *_cpar
  // variants when their own q is 0; 0 here means P.
  int historical_q = 0;
  // Relative processor speeds for HEFT and Barbosa (one per processor); empty: all 1. Unused
  // when `groups` is set.
  std::vector<double> speeds;
  // Asked during planning (per task, per CPA widening step, before each tightest-deadline
  // probe); a stop answers CANCELLED.
  PlanControl control;
  // A cluster of processor groups of different speeds: the groups, and per group what it has
  // free for the DAG (group_free.h), whose free processors sum to `timeline`'s. Empty on one
  // speed. HEFT and Barbosa then map tasks onto the groups' processors (a task inside one
  // group); the other planners plan the whole DAG in one group, at its speed: each group is
  // tried and the earliest completion wins (ties: the slower group). Every task's
  // TaskReservation::group says where it runs.
  std::vector<ProcessorGroup> groups = {};
  std::vector<Timeline> group_free = {};
};

struct DeadlineAnswer {
  bool feasible = false;
  std::optional<DagPlan> plan;   // when feasible, or the tightest plan when no K was given
  std::optional<Time> tightest;  // when asked, or when K cannot be met
  int probes = 0;                // deadline-planner runs (tightest-deadline search)
  // K was given and the heuristic found no plan for K itself, but the tightest-deadline search
  // found one for a tighter deadline, which meets K too: `plan` is that one. The paper's
  // algorithm would have answered "infeasible".
  bool from_tightest_search = false;
  int fallback_tasks = 0;  // tasks of `plan` on DL_RC's fallback (ResschedDlOptions::fallback)
};

class DagPlanner {
 public:
  virtual ~DagPlanner() = default;

  // The turnaround-minimizing plan. Errors: INVALID_ARGUMENT for a bad DAG (field "dag..."),
  // RESOURCE_EXHAUSTED when the cluster can never run it.
  virtual absl::StatusOr<DagPlan> Plan(const DagPlanningInput& input) const = 0;

  // With `deadline`: whether it can be met, and the plan (plus the tightest deadline when the
  // planner fails at K; if the tightest deadline it finds is still <= K, that plan is the
  // answer, since the heuristics are not monotone in K). Without: the tightest deadline and its
  // plan.
  virtual absl::StatusOr<DeadlineAnswer> AnswerDeadline(const DagPlanningInput& input,
                                                        std::optional<Time> deadline) const = 0;

  // The window before now over which the caller averages DagPlanningInput::historical_q.
  virtual Duration HistoryWindow() const { return CeilMicros(kDefaultHistoryWindowHours * 3600); }
};

// Time-weighted average of free processors over [from, to) on `timeline`, rounded to the
// nearest integer and clamped to [1, P]: the historical q of §4.2 when [from, to) lies in the
// past of the cluster.
int AverageFree(const Timeline& timeline, Time from, Time to);

}  // namespace resched
