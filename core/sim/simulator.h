// The discrete-event simulator (core/sim, used by the experiments): replays a workload through a
// registered policy on a ClusterPlan, the same code the server runs on every RPC, with the event
// rules of replay.h, and measures the schedule it produced.
#pragma once

#include <functional>
#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "core/metrics/metrics.h"
#include "core/model/cluster.h"
#include "core/plan/cluster_plan.h"
#include "core/registry/registry.h"
#include "core/sim/fairness.h"
#include "core/sim/replay.h"
#include "core/workload/workload.h"

namespace resched {

struct SimOptions {
  int max_jobs = 0;  // replay only the first max_jobs jobs in release order; 0: all
  std::function<void(const SimProgress&)> progress;
  int progress_every = 1000;  // releases between two progress calls; one more at the end
  // The plan's limits. Active jobs are not limited by default: a simulation measures the policy,
  // not the server's admission limit. The plan forgets ended jobs past max_retained_ended; the
  // simulator keeps its own records of them.
  ClusterLimits limits = {.max_active_jobs = std::numeric_limits<int>::max(),
                          .max_retained_ended = 10'000};
};

struct SimResult {
  std::vector<SimJobRecord> jobs;  // in workload order
  ScheduleMetrics metrics;
  FairnessHistogram fairness;
  // Wall-clock seconds spent in the plan (the policy and its bookkeeping), not in the replay loop
  // or the checks.
  double policy_seconds = 0;
};

// Replays `workload` on a cluster `spec` (whose clock must be SIMULATED; spec.policy names the
// policy) with the policy's `params`. The schedule is validated before it is returned: a violation
// is an INTERNAL error listing it.
absl::StatusOr<SimResult> Simulate(const Workload& workload, const ClusterSpec& spec,
                                   const AlgorithmParams& params, SimOptions options = {});

}  // namespace resched
