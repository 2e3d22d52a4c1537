// The offline workloads of dutot §4.1 (the bi-criteria experiments): n moldable tasks, all
// available at time 0, on m processors (200 in the paper), weights uniform in [1, 10].
// - Sequential times: "uniform", uniform in [1, 10]; or "mixed", 70 % small tasks from a gaussian
//   centred on 1 (standard deviation 0.5) and 30 % large ones centred on 10 (deviation 5).
// - Parallelism: p(j) = p(j - 1) (X + j) / (1 + j) for j = 2..m, X a gaussian of deviation 0.2
//   redrawn until it lies in [0, 1]. This gives monotonic tasks (time non-increasing, work
//   non-decreasing in j). Mixed workloads make the small tasks weakly and the large tasks
//   highly parallel.
//
// Choices where the paper is silent or inconsistent, each a deviation to keep in mind:
// - The paper centres X on 0.9 for highly and 0.1 for weakly parallel tasks, but with its formula
//   X = 1 gives no speedup at all (p(j) = p(j - 1)) and X = 0 the quasi-linear speedup
//   p(j) = 2 p(1) / (j + 1). We follow its description of the result ("highly parallel, with a
//   quasi-linear speedup"; "weakly parallel, with a speedup close to 1"): X is centred on 0.1 for
//   highly and on 0.9 for weakly parallel tasks.
// - X is drawn once per task (the text allows one draw per step; per task keeps a task's
//   character).
// - Gaussian sequential times at or below 0 are redrawn (the paper says nothing).
// - Times are in minutes: the unit of the paper's "1 to 10" is not given, and the ratios the
//   experiments report do not depend on it.
// - Weights are real numbers, uniform in [1, 10).
// The Cirne-Berman workload (dutot's fourth type) is not generated here yet.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/workload/workload.h"

namespace resched {

enum class DutotParallelism { kWeak, kHigh, kMixed };

struct DutotWorkloadOptions {
  int tasks = 100;
  int processors = 200;
  DutotParallelism parallelism = DutotParallelism::kHigh;  // kMixed: the mixed sequential times
  std::uint64_t seed = 1;
};

// Tasks "t0", "t1", ... as TableModel jobs over widths 1..processors, released at 0.
// INVALID_ARGUMENT naming the option and its limit.
absl::StatusOr<Workload> GenerateDutotWorkload(const DutotWorkloadOptions& options);

}  // namespace resched
