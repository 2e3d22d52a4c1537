// The width search of Sabin et al.'s iterative moldable scheduler and of its improved variant
// (Saule et al. §5.4), as a function over a set of queued jobs; iterative.cc wraps it as the
// policies "iterative" and "iterative-improved". Exposed for tests and benchmarks.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/model/job.h"
#include "core/timeline/timeline.h"

namespace resched {

enum class IterativeRule {
  kNextWidth,            // Sabin et al.: one more processor (the next allowed width)
  kBestGainPerProcessor  // Saule et al.'s improvement: the x + k maximizing (p_x - p_{x+k}) / k
};

// Sums of flows in microseconds: exact, and far from overflow for any queue.
using FlowSum = __int128;

struct IterativePlan {
  std::vector<std::optional<Allocation>> allocations;  // per job, in input order
  std::int64_t steps = 0;     // candidate schedules built after the first one
  std::int64_t accepted = 0;  // of which kept
  FlowSum initial_flow = 0;   // every job on its smallest width
  FlowSum flow = 0;           // the result
};

// Plans `jobs` (submission order) on `base` from `now` on, by conservative backfilling in
// submission order, with widths chosen by the iterative search. `base` is not changed.
IterativePlan PlanIterative(const Timeline& base, const std::vector<const Job*>& jobs, Time now,
                            IterativeRule rule);

}  // namespace resched
