// The DAG planners behind the interface of dag_planner.h, one factory each (dag_planner.cc);
// the registry maps names and parameters to them (core/registry/registry.cc). A q of 0 in the
// options means the input's historical_q.
#pragma once

#include <memory>

#include "core/dag/cpa.h"
#include "core/dag/dag_planner.h"
#include "core/dag/ressched.h"
#include "core/dag/resscheddl.h"

namespace resched {

// A RESSCHED variant, and the window its historical q is averaged over.
struct ResschedPlannerOptions {
  ResschedOptions ressched;
  double q_window_hours = kDefaultHistoryWindowHours;
};

// A RESSCHEDDL variant, the window of its historical q, and the precision of its
// tightest-deadline search.
struct DeadlinePlannerOptions {
  ResschedDlOptions resscheddl;
  double q_window_hours = kDefaultHistoryWindowHours;
  double resolution_s = 1;
};

std::unique_ptr<DagPlanner> MakeCpaPlanner(CpaOptions cpa);
std::unique_ptr<DagPlanner> MakeResschedPlanner(const ResschedPlannerOptions& options);
std::unique_ptr<DagPlanner> MakeDeadlinePlanner(const DeadlinePlannerOptions& options);
std::unique_ptr<DagPlanner> MakeHeftPlanner();
std::unique_ptr<DagPlanner> MakeBarbosaPlanner();

}  // namespace resched
