// What an online policy remembers between calls, for a snapshot (docs/durability.md): the same
// things its Copy keeps. Memoized work is left out; a restored policy recomputes it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/model/job.h"
#include "core/timeline/timeline.h"

namespace resched {

struct PolicyImage {
  // A partitioned policy (Split, the reservation scheme): whether its partition was built, the
  // part of each booking it made, and the latest start each part has seen.
  struct PartBooking {
    ReservationId booking = -1;
    int part = 0;
    Time start = 0;
  };
  bool partitioned = false;
  std::vector<PartBooking> part_bookings;
  std::vector<Time> part_last_start;
  // The reservation scheme: the part each queued job was given.
  std::vector<std::pair<JobId, int>> job_parts;

  bool empty() const {
    return !partitioned && part_bookings.empty() && part_last_start.empty() && job_parts.empty();
  }
};

}  // namespace resched
