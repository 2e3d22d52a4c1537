// The sequential-task generator of Saule et al. §4.1: n tasks (20,000 in the paper) for m
// processors (300), sizes uniform in [a, b], exponential inter-arrival times with rate lambda,
// parameters chosen for a target Delta = b / a and a target load (§4: sum_i p_i over
// max_i r_i - min_i r_i).
// The paper gives the targets, not a, b and lambda. We take a = min_time, b = Delta * a and, once
// the sizes are drawn, lambda = load * (n - 1) / sum_i p_i, so that the expected release span
// (n - 1) / lambda gives exactly the target load. The realized load varies by about 1 / sqrt(n);
// the realized Delta is slightly below the target (the extremes a and b are never drawn).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/model/time.h"
#include "core/workload/workload.h"

namespace resched {

struct SequentialWorkloadOptions {
  int tasks = 20000;
  int processors = 300;
  double delta = 10;                          // the paper uses 5 to 100
  double load = 250;                          // the paper uses 220 to 310
  Duration min_time = 60 * kMicrosPerSecond;  // a
  std::uint64_t seed = 1;
};

// Sequential jobs (RigidModel k = 1) released from time 0, in release order, ids "t0", "t1", ...
// Errors: INVALID_ARGUMENT naming the option and its limit.
absl::StatusOr<Workload> GenerateSequentialWorkload(const SequentialWorkloadOptions& options);

}  // namespace resched
