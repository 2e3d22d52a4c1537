// RESSCHED (Aida & Casanova §4.2, §4.3.2): minimize a DAG's turnaround around existing
// reservations. Tasks go in decreasing bottom level; each takes, among the widths up to its
// bound, the <processors, start> pair with the earliest completion on the timeline (ties: fewer
// processors), after its predecessors' ends plus the edges' transfer delays.
//
// Bottom levels (BL_x) use each task's time on: 1 processor (BL_1, the smallest allowed width),
// P (BL_ALL, the largest allowed width), the CPA allocation for P (BL_CPA) or for q (BL_CPAR).
// Bounds (BD_y): P (BD_ALL), P/2 (BD_HALF, §4.3.2), the CPA allocation for P (BD_CPA) or for q
// (BD_CPAR). q is the historical average number of available processors (§4.2), which the
// caller supplies. A bound below a task's smallest allowed width lets it use that width.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dag/cpa.h"
#include "core/dag/dag_graph.h"
#include "core/dag/dag_plan.h"
#include "core/timeline/timeline.h"

namespace resched {

enum class AllocationSource { kOne, kAll, kHalf, kCpa, kCpar };

struct ResschedOptions {
  AllocationSource bottom_level = AllocationSource::kCpar;  // kOne, kAll, kCpa or kCpar
  AllocationSource bound = AllocationSource::kCpar;         // kAll, kHalf, kCpa or kCpar
  int q = 0;  // historical average of available processors, in [1, P]; 0: P
  CpaOptions cpa;
};

// "1", "all", "half", "cpa" or "cpar", as the variants' names spell it.
const char* AllocationSourceName(AllocationSource source);
// The sixteen variants of §4.3.2 (BL_1, BL_ALL, BL_CPA, BL_CPAR by BD_ALL, BD_HALF, BD_CPA,
// BD_CPAR), q and CPA's options at their defaults; and a variant's name, "bl_cpar_bd_cpa".
std::vector<ResschedOptions> ResschedVariants();
std::string ResschedName(const ResschedOptions& options);

// The q the CPAR variants use on `capacity` processors: q clamped to [1, P]; 0 (unknown): P.
int EffectiveQ(int capacity, int q);

// Per-task widths for an allocation source on a machine of P = g.capacity and the given q;
// `control` as for CpaAllocation.
std::vector<int> AllocationWidths(const DagGraph& g, AllocationSource source, int q,
                                  CpaOptions cpa = {}, const PlanControl& control = {});

// The plan; RESOURCE_EXHAUSTED when some task can never be placed (a hold that never ends);
// CANCELLED when `control` says stop (asked during the allocation and before each task).
absl::StatusOr<DagPlan> PlanRessched(const DagGraph& g, const Timeline& timeline, Time release,
                                     const ResschedOptions& options,
                                     const PlanControl& control = {});

// The earliest-completion allocation of one task with widths up to `bound`, starting at or after
// `ready`; widths are tried from the widest down and the scan stops once the run time alone
// cannot beat the best completion. nullopt when no width ever fits.
std::optional<TaskReservation> EarliestCompletionUpTo(const WidthTable& w, int bound,
                                                      const Timeline& timeline, Time ready);

}  // namespace resched
