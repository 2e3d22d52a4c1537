// A job as a cluster keeps it: the submission, its state, its allocation and the booking that
// holds it in the cluster's timeline. The online policies place and move these records, the
// cluster's plan owns them.
#pragma once

#include <cstdint>

#include "core/model/allocation.h"
#include "core/model/job.h"
#include "core/model/reservation_id.h"
#include "core/model/time.h"

namespace resched {

struct JobRecord {
  Job job;
  JobState state = JobState::kQueued;
  Allocation allocation;
  bool placed = false;             // allocation booked in the timeline
  ReservationId reservation = -1;  // the timeline booking while placed
  bool guaranteed = false;         // the policy keeps or improves this allocation
  bool ended_early = false;        // finished, failed or cancelled before its planned end
  // Placed by a committed Replan: out of the online policy's queue, kept in its width and its
  // order among the replanned jobs, moved only earlier.
  bool replanned = false;
  // On a cluster of several speeds, the index of the processor group it runs in (its model is
  // then on that group's speed); -1 on a cluster of one speed.
  int group = -1;
  Time submitted = 0;
  std::int64_t sequence = 0;  // submission order within the cluster
};

}  // namespace resched
