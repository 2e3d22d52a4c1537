// The id of a booking in a timeline (core/timeline/timeline.h), which a job's record keeps while
// the job is placed.
#pragma once

#include <cstdint>

namespace resched {

using ReservationId = std::int64_t;

}  // namespace resched
