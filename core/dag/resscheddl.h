// RESSCHEDDL (Aida & Casanova §5.2, §5.3): can a DAG finish by deadline K around existing
// reservations, and with which plan; and the tightest such K.
//
// Tasks go in increasing bottom level (BL_CPAR, as §5.2 prescribes), so a task's successors
// are placed before it; each is placed backwards, as late as possible, ending by its own
// deadline min(K, successors' starts - transfer) and starting at or after the release.
//   DL_BD_{ALL,CPA,CPAR} (§5.2.1, aggressive): among widths up to the bound (P, the CPA
//     allocation for P, or for q), the <processors, start> pair with the latest start (ties:
//     fewer processors).
//   DL_RC_{CPA,CPAR} (§5.2.2, resource conservative): T is the task's start in a CPA schedule
//     of the tasks not placed yet (CPA's allocation re-run on them for q = P or the historical q,
//     as the paper says; optionally the whole DAG's allocation kept), from the release on an
//     empty q-processor machine; the pair with the fewest processors whose latest start is at
//     or after release + lambda * (T - release) (lambda = 1 is the paper's rule, lambda > 1 its
//     proposed tuning). Widths are not bounded, as in the paper.
// When no width of a DL_RC task reaches the threshold, §5.2.2 and §5.3 say nothing: read
// literally, the task cannot be placed and the plan fails (DlRcFallback::kNone, the default).
// Two fallbacks of ours may be chosen instead, each another variant's rule for that task alone:
// the latest start among widths up to the CPA bound (kCpaBounded: DL_BD_CPA's or DL_BD_CPAR's
// rule, by the variant's bound) or among all widths (kWidest: DL_BD_ALL's rule).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dag/cpa.h"
#include "core/dag/dag_graph.h"
#include "core/dag/dag_plan.h"
#include "core/dag/ressched.h"
#include "core/model/plan_control.h"
#include "core/timeline/timeline.h"

namespace resched {

// DL_RC's choice for a task none of whose widths starts late enough (see above).
enum class DlRcFallback {
  kNone,        // the paper, literally: the plan fails
  kCpaBounded,  // the latest start among widths up to the variant's CPA bound
  kWidest,      // the latest start among all widths
};
// "none", "cpa-bounded", "widest": the names `resched algorithms` lists, in the enum's order.
const std::vector<std::string>& DlRcFallbackNames();

struct ResschedDlOptions {
  bool resource_conservative = true;                 // DL_RC_* rather than DL_BD_*
  AllocationSource bound = AllocationSource::kCpar;  // kAll, kCpa or kCpar
  int q = 0;                                         // historical available processors; 0: P
  double lambda = 1.0;                               // DL_RC threshold factor, >= 1
  // DL_RC: re-run CPA's allocation on the tasks not placed yet (§5.2.2); false keeps the whole
  // DAG's CPA widths for them.
  bool cpa_guide_reallocates = true;
  DlRcFallback fallback = DlRcFallback::kNone;
  CpaOptions cpa;
};

// A deadline plan and how many of its tasks took DL_RC's fallback.
struct DeadlinePlan {
  DagPlan plan;
  int fallback_tasks = 0;
};

// The five variants of §5.2 (DL_BD_ALL, DL_BD_CPA, DL_BD_CPAR, DL_RC_CPA, DL_RC_CPAR), the
// other options at their defaults; and a variant's name, "dl_rc_cpar".
std::vector<ResschedDlOptions> ResschedDlVariants();
std::string ResschedDlName(const ResschedDlOptions& options);

// A plan that ends by `deadline`, or nullopt when the heuristic finds none. When `control` says
// stop (asked during the CPA allocations it starts from), the answer means nothing and the caller
// answers CANCELLED.
std::optional<DeadlinePlan> PlanByDeadline(const DagGraph& g, const Timeline& timeline,
                                           Time release, Time deadline,
                                           const ResschedDlOptions& options,
                                           const PlanControl& control = {});

struct TightestDeadline {
  Time deadline = 0;
  DagPlan plan;
  int probes = 0;          // PlanByDeadline calls made
  int fallback_tasks = 0;  // of `plan`
};

// The smallest deadline (to `resolution`) for which PlanByDeadline succeeds. The search starts
// from a bracket: below, the critical path on the fastest widths (no deadline under it can be
// met); above, the turnaround of RESSCHED BL_CPAR_BD_CPAR (usually met, else doubled until met)
// and bisects it, where §5.3 bisects blindly. The heuristic is not monotone in K, so the answer
// is the tightest deadline the bisection met, not a proof that no tighter one works.
// RESOURCE_EXHAUSTED when no deadline within reach of the timeline works; CANCELLED when
// `control` says stop (asked before each probe and during the CPA allocations).
absl::StatusOr<TightestDeadline> FindTightestDeadline(const DagGraph& g, const Timeline& timeline,
                                                      Time release,
                                                      const ResschedDlOptions& options,
                                                      Duration resolution = kMicrosPerSecond,
                                                      const PlanControl& control = {});

// Each DL_RC task's T (§5.2.2): its start, in the CPA schedule of the tasks not placed before it
// in `placement`, on an empty machine of `machine` processors from the release. With
// `reallocate`, CPA's allocation is re-run on those tasks (the paper); otherwise the whole DAG's
// CPA widths are kept. Indexed by task. `control` as for CpaAllocation (asked for each task).
std::vector<Time> CpaGuideStarts(const DagGraph& g, const std::vector<int>& placement, int machine,
                                 Time release, bool reallocate, CpaOptions cpa = {},
                                 const PlanControl& control = {});

// Lower bound on any completion: release + the longest path on each task's fastest width.
Time CriticalPathBound(const DagGraph& g, Time release);

}  // namespace resched
