// A 4-processor SIMULATED FCFS cluster at time 0, for the tests of ClusterState itself.
#pragma once

#include <memory>

#include "server/app/cluster_state.h"
#include "tests/testing/status.h"

namespace resched::server {

inline std::unique_ptr<ClusterState> SimulatedCluster() {
  ClusterSpec spec{"c", {{"", 4, 1.0}}, ClockKind::kSimulated, "fcfs", {}};
  return std::make_unique<ClusterState>(
      ::resched::testing::OkValue(ClusterPlan::Create(spec, {}, 0)), AlgorithmParams{});
}

}  // namespace resched::server
