// CPA, Critical Path and Area-based scheduling (Radulescu & van Gemund 2001), as Aida & Casanova
// §2.1 and §4.2 use it: an allocation phase that grows the critical path's tasks one processor
// at a time, then a list-scheduling mapping phase by decreasing bottom level.
//
// Allocation (CPA's own rule): every task starts on its smallest allowed width. While
// T_CP > T_A, where T_CP is the critical path length under the current allocation (edge delays
// included) and T_A = (1/P) * sum_t p_t * t(p_t) the average area, the task of the critical
// path with the largest gain t(p)/p - t(p')/p' (p' its next allowed width, at most P) grows to
// p'; the phase stops when no critical task can grow with a positive gain.
//
// The stopping rule. Aida & Casanova use "the improved criterion" of N'Takpé, Suter & Casanova
// (ISPDC 2007), whose text we could not obtain; §2.1 says only that it is more stringent and
// limits allocations so they do not hinder task parallelism. Our reading, and what we
// implement: CPA's criterion above plus MCPA's bound (Bansal et al. 2006, the paper's ref. [7])
// generalized to any DAG: the allocations of the tasks of one precedence level (tasks at equal
// depth, the longest edge count from an entry) never sum to more than P, so tasks that can run
// side by side are never allotted more than the machine together. `level_bound = false` gives
// the original criterion.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "core/dag/dag_graph.h"
#include "core/dag/dag_plan.h"
#include "core/model/plan_control.h"
#include "core/timeline/timeline.h"

namespace resched {

struct CpaOptions {
  bool level_bound = true;
};

// Each task's precedence level: its depth, the longest edge count from an entry task (the
// levels whose allocations MCPA's bound keeps within the machine).
std::vector<int> PrecedenceLevels(const DagGraph& g);

// The allocation phase for a machine of `processors` processors: one width per task, each an
// allowed width of the task (its smallest one when even that exceeds `processors`). `control` is
// asked once per widening step: when it says stop, the widths reached so far come back (still an
// allocation, only less refined) and the caller answers CANCELLED.
std::vector<int> CpaAllocation(const DagGraph& g, int processors, CpaOptions options = {},
                               const PlanControl& control = {});

// Mapping with fixed widths: places the tasks of `order` (predecessors first) one by one at the
// earliest start on `timeline` after `release` and after their already placed predecessors
// (end + transfer), booking each on `timeline`. Tasks whose plan entry has k > 0 count as
// placed; predecessors not placed are ignored. RESOURCE_EXHAUSTED when a task can never fit.
absl::Status MapWithWidths(const DagGraph& g, const std::vector<int>& order,
                           const std::vector<int>& widths, Time release, Timeline& timeline,
                           DagPlan& plan);

// Plain CPA: the allocation for the timeline's capacity, then the mapping by decreasing bottom
// level on the timeline (around its reservations; on an empty timeline, CPA itself). CANCELLED
// when `control` says stop.
absl::StatusOr<DagPlan> PlanCpa(const DagGraph& g, const Timeline& timeline, Time release,
                                CpaOptions options = {}, const PlanControl& control = {});

}  // namespace resched
