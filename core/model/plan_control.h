// Lets a long planning run stop early (the call's deadline or cancellation): planners ask it
// between steps and answer CANCELLED when it says stop. Shared by the offline planners (Replan)
// and the DAG planners (ReserveDAG, QueryDeadline).
#pragma once

#include <functional>

namespace resched {

struct PlanControl {
  std::function<bool()> should_stop;
  bool Stop() const { return should_stop && should_stop(); }
};

}  // namespace resched
