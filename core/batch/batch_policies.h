// Online policies that plan their jobs in batches with an offline planner: above both the online
// policies and the offline planners, below the registry that builds them by name.
#pragma once

#include <cstdint>
#include <memory>

#include "core/offline/planners.h"
#include "core/online/policy.h"

namespace resched {

// dutot §2.2's on-line batches scheduled by §3.2's bi-criteria algorithm (bicriteria_batch.cc):
// the online policy "bicriteria-batch".
std::unique_ptr<OnlinePolicy> MakeBicriteriaBatchPolicy(const BicriteriaOptions& options);

}  // namespace resched
