// Width selection for moldable jobs: among the allowed widths, the allocation with the
// earliest completion; ties go to fewer processors.
#pragma once

#include <optional>

#include "core/model/job.h"
#include "core/model/runtime_model.h"
#include "core/online/start_bounds.h"
#include "core/timeline/timeline.h"

namespace resched {

// Earliest-completion allocation starting at or after `not_before` and at or before
// `start_limit`; nullopt when none exists. With `bounds`, what earlier searches on this timeline
// proved lets searches begin later, and a width whose first possible start cannot beat the best
// completion is not searched; the answer is the same.
std::optional<Allocation> EarliestCompletion(const Timeline& timeline, const RuntimeModel& model,
                                             Time not_before, Time start_limit = kTimeMax,
                                             StartBounds* bounds = nullptr);

// Earliest-completion allocation that starts exactly at `t`; nullopt when no width fits then.
std::optional<Allocation> StartingAt(const Timeline& timeline, const RuntimeModel& model, Time t);

}  // namespace resched
