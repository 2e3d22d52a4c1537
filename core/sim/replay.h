// The replay loop of the discrete-event simulator: releases a workload's jobs into a cluster and
// reports their actual completions, in time order, through a SimDriver (sim_driver.h), so the same
// loop drives a ClusterPlan directly and a server through its API.
//
// Event rules.
// - A job is submitted at its release time, after the clock has moved there; releases that share an
//   instant are submitted in workload order (jobs are taken in release order, ties in workload
//   order).
// - A job ends runtime_fraction of the way into its allocation: its actual length is ceil(fraction
//   x planned length), at least 1 us (a product within 1e-6 us of an integer is that integer, so
//   floating-point noise does not add a microsecond). An end before the planned end is reported
//   (ReportEnded) at that instant; otherwise the job ends at its planned end on its own, as the
//   cluster's clock passes it.
// - The loop stops at the earliest of: the next release, the earliest actual end of a running job,
//   the earliest planned start of a queued job. So the cluster never processes an instant the loop
//   skipped: a job may start and end early between two releases, and every start is seen at the
//   instant it happens.
// - At one instant: the clock moves there (the cluster ends jobs at their planned ends and starts
//   jobs planned there), then early ends are reported in submission order (capacity is freed
//   first), then the instant's releases are submitted.
// - Guards: every stop is later than the previous one, and a replay of n jobs makes at most 8n + 64
//   stops (each job brings three events -- release, start, end -- and the margin lets a policy
//   postpone an estimated start a few times); past that it returns INTERNAL. The cluster's answers
//   are checked too: a job must start at a stop, never return to the queue, and never end before
//   its actual end.
#pragma once

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/job.h"
#include "core/sim/sim_driver.h"
#include "core/workload/workload.h"

namespace resched {

struct SimProgress {
  int released = 0;  // jobs submitted so far
  int total = 0;     // jobs to replay
  Time now = 0;
};

struct ReplayOptions {
  int max_jobs = 0;  // replay only the first max_jobs jobs in release order; 0: all
  std::function<void(const SimProgress&)> progress;
  int progress_every = 1000;  // releases between two progress calls; one more call at the end
};

// One replayed job: where and when it really ran.
struct SimJobRecord {
  int index = 0;  // position in Workload::jobs
  JobId id;       // as the cluster named it
  Time release = 0;
  int k = 0;
  Time start = 0;
  Time end = 0;                  // the actual end
  Duration sequential_time = 0;  // p(1) of the job's runtime model (the estimate)
  int group = -1;                // the processor group it ran in (groups of several speeds)
  bool ended_early = false;      // reported finished before its planned end
};

// The actual length of a job whose allocation lasts `length` (see the event rules).
Duration ActualLength(Duration length, double runtime_fraction);

// Replays `workload` into the cluster behind `driver`, whose clock must be at 0 with no jobs.
// Returns a record per replayed job, in workload order. INVALID_ARGUMENT names a bad workload
// field; the driver's errors are returned as they are.
absl::StatusOr<std::vector<SimJobRecord>> Replay(const Workload& workload, SimDriver& driver,
                                                 const ReplayOptions& options = {});

}  // namespace resched
