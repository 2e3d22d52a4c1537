// Runs one workload through one algorithm with the simulator and keeps the figures the
// experiment tables need.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/registry/registry.h"
#include "core/sim/simulator.h"
#include "core/workload/workload.h"

namespace resched::experiment {

// An algorithm as the experiments name it: a label for the tables, a registry name, parameters.
struct Contender {
  std::string label;
  std::string policy;
  AlgorithmParams params;
};

struct RunFigures {
  std::string label;
  ScheduleMetrics metrics;
  FairnessHistogram fairness;
  double policy_seconds = 0;
  SimJobRecord longest_flow;  // the job whose flow is the maximum flow
  // Share of the jobs whose sequential time is below longest_flow's, in [0, 1].
  double longest_flow_size_rank = 0;
};

absl::StatusOr<RunFigures> RunOne(const Workload& workload, int processors,
                                  const Contender& contender);

// Mean and (population) standard deviation.
struct MeanStd {
  double mean = 0;
  double std = 0;
};
MeanStd Summarize(const std::vector<double>& values);

}  // namespace resched::experiment
