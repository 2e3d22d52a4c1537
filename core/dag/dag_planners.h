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

std::unique_ptr<DagPlanner> MakeCpaPlanner(CpaOptions cpa);
std::unique_ptr<DagPlanner> MakeResschedPlanner(ResschedOptions options);
std::unique_ptr<DagPlanner> MakeDeadlinePlanner(ResschedDlOptions options, Duration resolution);
std::unique_ptr<DagPlanner> MakeHeftPlanner();
std::unique_ptr<DagPlanner> MakeBarbosaPlanner();

}  // namespace resched
