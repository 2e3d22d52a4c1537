// HEFT, Heterogeneous Earliest Finish Time (Topcuoglu, Hariri & Wu, IEEE TPDS 13(3), 2002, §4.1),
// the task-parallel baseline of Barbosa & Monteiro (§2, §5.3): every task runs on ONE processor.
//
// Followed: rank_u(i) = w̄_i + max_{j ∈ succ(i)} (c̄_ij + rank_u(j)); tasks by decreasing rank_u;
// each goes to the processor giving the earliest finish time under the insertion policy (the
// earliest idle slot, long enough, after its data are ready); no communication between tasks on the
// same processor. Choices and deviations:
// - Cost per task per processor (HeftPlan): the task's time on one processor (TimeOn(1)) divided
//   by the processor's relative speed, rounded up to the microsecond: a cost per processor type.
//   A task whose model forbids width 1 (rigid k > 1, k_min > 1) is refused, not stretched onto
//   one processor: the schedule would hold less capacity than the task needs.
//   HeftPlanWithCosts takes any task x processor matrix (Topcuoglu's unrelated processors).
// - c̄_ij is the edge's transfer: with one transfer delay per edge there is nothing to average over
//   processor pairs (Topcuoglu's Fig. 3 example does the same with its edge weights).
// - Ties: equal ranks keep a topological order (so a predecessor never follows a successor); equal
//   finish times go to the lowest processor index.
// - Existing reservations (a count-based Timeline): at instant t the processors [0, free(t)) are
//   the available ones, so a task may run on processor j over [s, e) only if j < MinFree(s, e) and
//   no other task of the plan on j overlaps [s, e). At any instant the plan then uses at most
//   free(t) processors, and the plan's count-based reservations (k = 1) fit the timeline. Processor
//   ids are this convention's, not physical nodes.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/dag/dag_plan.h"
#include "core/dag/processor_free.h"
#include "core/metrics/validate.h"
#include "core/model/cluster.h"
#include "core/model/dag.h"
#include "core/model/plan_control.h"
#include "core/model/time.h"
#include "core/timeline/timeline.h"

namespace resched {

// Cost of each task on each processor: costs[task][processor].
using TaskCosts = std::vector<std::vector<Duration>>;

// One relative speed per processor, groups in order (processor ids follow the groups).
std::vector<double> ProcessorSpeeds(const ClusterSpec& spec);

// costs[i][j] = the time of task i on one processor / speeds[j]. INVALID_ARGUMENT for no processor,
// a speed that is not > 0, or a task whose model does not allow width 1 (naming the task).
absl::StatusOr<TaskCosts> CostsFromSpeeds(const Dag& dag, const std::vector<double>& speeds);

// rank_u of every task, in microseconds (mean cost over processors; mean communication = the edge's
// transfer). The DAG must be acyclic and costs sized tasks x processors.
std::vector<double> UpwardRanks(const Dag& dag, const TaskCosts& costs);

// HEFT on processors of relative speeds `speeds` (e.g. ProcessorSpeeds(spec)), no task before
// `release`. `timeline`: the cluster's existing reservations, null for a dedicated cluster; when
// given, speeds.size() must equal its capacity. Each task gets k = 1 and processors = {j}. Errors:
// INVALID_ARGUMENT (DAG, speeds), RESOURCE_EXHAUSTED when a task fits on no processor (a hold that
// never ends), CANCELLED when `control` says stop (asked before each task).
absl::StatusOr<DagPlan> HeftPlan(const Dag& dag, const std::vector<double>& speeds, Time release,
                                 const Timeline* timeline, const PlanControl& control = {});

// Same with an explicit cost matrix (costs[task][processor], every cost >= 0).
absl::StatusOr<DagPlan> HeftPlanWithCosts(const Dag& dag, const TaskCosts& costs, Time release,
                                          const Timeline* timeline,
                                          const PlanControl& control = {});

// Same on processors free where `free` says (processor_free.h): on several groups, each task's
// TaskReservation::group is the group of its processor.
absl::StatusOr<DagPlan> HeftPlanOn(const Dag& dag, const TaskCosts& costs, Time release,
                                   const ProcessorFree& free, const PlanControl& control = {});

// DagPlanToValidate for plans mapped on processors (HEFT, Barbosa): an edge whose two tasks ran on
// the same single processor needs no transfer (HEFT's rule), and, unless `check_durations`, the
// models are dropped because durations then depend on the processors' speeds, which the validator
// does not know.
ScheduleToValidate MappedDagPlanToValidate(const Dag& dag, const DagPlan& plan,
                                           const Timeline& timeline, Time release,
                                           bool check_durations);

// Checks what the count-based validator cannot see: processor ids in [0, processors), k equal to
// the number of ids, ids distinct, no two tasks (over all `plans`) overlapping on one processor,
// and, with a timeline, the convention above (j < MinFree(start, end)).
absl::Status ValidateProcessorMapping(const std::vector<const DagPlan*>& plans, int processors,
                                      const Timeline* timeline);
// The same on processors free where `free` says, each task's processors in the group its
// TaskReservation::group names (-1 with one group).
absl::Status ValidateProcessorMapping(const std::vector<const DagPlan*>& plans,
                                      const ProcessorFree& free);

}  // namespace resched
