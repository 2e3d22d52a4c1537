// chrétien's LTF order, shared by "ltf" and the hybrid sparse LP (§4.4), which schedules the
// jobs its LP left fuzzy with it.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "core/offline/list_schedule.h"

namespace resched {

// The problem's jobs by decreasing work (the least width x time over the job's widths), the
// longer shortest run first on ties; each entry with width 0 (the earliest completion when its
// turn comes). INVALID_ARGUMENT when a job fits on no width of the machine.
absl::StatusOr<std::vector<ListEntry>> LtfOrder(const OfflineProblem& problem);

}  // namespace resched
