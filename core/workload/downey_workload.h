// Moldable jobs from an SWF log with Downey's speedup model, as in Saule et al. §7 (after Sabin et
// al., JSSPP 2006): per job, A ("maximum parallelism" in the paper; Downey's A parameter) uniform
// in [k, P] where k is the recorded processor count and P the simulated cluster (512 in the paper),
// and sigma uniform in [0, 2]. The paper does not say how the sequential time t1 is set. We take
// the one that reproduces the log: t1 = run time * S(k), so that p(k) equals the recorded run time
// (up to the microsecond rounding). Other choices, and deviations:
// - the recorded run time is used (runtime_fraction = 1), not the requested time: the paper's
//   simulations know the run times (stretch needs p_{i,1});
// - jobs are selected as in swf_workload.h (first N usable jobs; the paper's "first 8,000 tasks"
//   does not say whether unusable records count); k is clamped to P;
// - jobs whose t1 would exceed kMaxJobDuration are skipped (counted as out of range).
// Check: the first 8,000 jobs give loads of 266 (SDSC Par 96) and 12.4 (OSC), against the paper's
// 272.4 and 12.4 (tested). Delta comes out near 1.7e7 and 6e6, against the paper's 1.6e8 and
// 6.2e7: a factor of 10 we cannot explain from the text.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "core/model/runtime_model.h"  // DowneySpeedup
#include "core/workload/swf.h"
#include "core/workload/swf_workload.h"

namespace resched {

struct DowneyWorkloadOptions {
  std::int64_t max_jobs = 8000;  // the paper's first 8,000 tasks; 0: all
  int processors = 512;          // P: the simulated cluster and A's upper bound
  double sigma_min = 0;
  double sigma_max = 2;
  std::uint64_t seed = 1;
  std::string name = "swf-downey";
};

// Errors: INVALID_ARGUMENT for options out of range or a log without usable jobs.
absl::StatusOr<SwfWorkload> SwfToDowneyWorkload(const SwfLog& log,
                                                const DowneyWorkloadOptions& options = {});

}  // namespace resched
