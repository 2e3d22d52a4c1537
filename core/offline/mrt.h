// MRT: the dual approximation of Mounié, Rapine and Trystram for the makespan of independent
// monotonic moldable jobs (dutot §1.3 and §3.2 call it "[7]"; 3/2 + epsilon on an empty machine).
//
// For a guess d, a job's canonical allotment for a height h is its least width running in at
// most h. Jobs with t(1) <= d/2 are "small" (set aside, work W_S, run on one processor). A
// knapsack by dynamic programming over processors puts every other job either in shelf 1
// (height d, its allotment for d; at most m processors in all) or in shelf 2 (height d/2, its
// allotment for d/2), minimizing the total work. If that work exceeds m d - W_S, no schedule of
// length d exists: d is rejected, and it is a lower bound on the optimal makespan (also with
// reservations on the machine, which only take capacity away). A binary search finds the
// smallest accepted d within a relative epsilon; the largest rejected guess, or the area and
// longest-job bounds when none was rejected, is reported as the lower bound. A rejection proves
// the bound only for monotonic jobs (time non-increasing, work non-decreasing in k); with a job
// that is not, only the area and longest-job bounds are reported.
//
// Deviation, for jobs that are not monotonic (a table or power-of-two model may be superlinear):
// the allotment for h is the width of least work among those running in at most h (the least
// width for a monotonic job, so MRT's rule there), and a job is small only when one processor is
// that width for d. With MRT's rules as written such a job is given more work than it needs, and
// the test rejects guesses that a schedule meets, down to the jobs run one after another.
//
// MRT then moves jobs between the shelves until both fit within 3d/2. We do not have that
// step's text (the reference is not among the papers) and follow it only as far as this: while
// shelf 2 is wider than the machine, its widest job that fits the room left in shelf 1 moves
// there (at its allotment for d). Then the shelves are booked on the free profile in MRT's
// order, each job at the earliest start the timeline allows: shelf 1 from now, shelf 2 from
// now + d, the small jobs from now. The schedule is always valid and the lower bound exact; the
// 3/2 guarantee is not claimed (it holds when the moves leave shelf 2 within the machine and
// the small jobs fit, as on the tests' hand-checked cases).
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/offline/offline_planner.h"

namespace resched {

enum class MrtShelf { kFirst, kSecond, kSmall };

struct MrtShelves {
  Duration d = 0;                // the smallest guess accepted
  Duration lower_bound = 0;      // every schedule on m processors is at least this long
  std::vector<int> width;        // per job: its allotment
  std::vector<int> width_for_d;  // per job not small: its allotment for d (shelf 1's)
  std::vector<MrtShelf> shelf;
  std::vector<int> order;  // shelf 1, then shelf 2, then the small jobs; longest first in each
};

// INVALID_ARGUMENT when a job has no width on `m` processors; CANCELLED when `control` says stop.
absl::StatusOr<MrtShelves> MrtDualApproximation(const std::vector<OfflineJob>& jobs, int m,
                                                double epsilon, const PlanControl& control);

// MRT's options, for "mrt" and the list planners that take its allotment.
struct MrtOptions {
  double epsilon = 1e-3;  // relative precision of the search on the makespan
};

// Registry name "mrt": the shelves booked as described above, and MRT's lower bound.
std::unique_ptr<OfflinePlanner> MakeMrtPlanner(const MrtOptions& options);

}  // namespace resched
