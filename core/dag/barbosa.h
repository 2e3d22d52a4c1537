// Multi-user parallel-task list scheduling: Barbosa & Monteiro, "A list scheduling algorithm for
// scheduling multi-user jobs on clusters", §3 (computational model), §4 (Algorithms 1 and 2).
//
// The user jobs form one global DAG (the master DAG of §4: a precedence job a -> job b makes every
// entry task of b wait for every exit task of a, with no communication). The tasks are scheduled in
// rounds; a round is the set of ready tasks (all predecessors already placed):
// - Alg. 1: S*_i, the capacity (sum of relative speeds) of the fastest p processors that minimize
//   the task's time. A user with a share gets S'_i = S*_i, scaled down proportionally when its
//   ready tasks ask for more than S_limit = share * S_max; the others share what is left, S_max -
//   sum of the shared users' S'_i (line 10), the same way.
// - Alg. 2, lines 1-5: by increasing t-level (the time the task's data are ready), each task takes
//   the fastest processors free at a start s >= t-level, adding processors while S_i < S'_i and the
//   time decreases; every start from the t-level to the best finish found is tried ("starting
//   later, with more processors, they can finish at an earlier time").
// - Alg. 2, lines 6-14: while the task r with the minimum b-level has never been the maximum, one
//   processor moves from r to the task k with the maximum b-level.
//
// What Alg. 1 guarantees (and what it does not): per round and per user with a share, sum_i S'_i <=
// S_limit. Lines 3-5 stop adding processors as soon as S_i >= S'_i, so each task may exceed S'_i by
// less than one processor (S_i <= S'_i + s_max when the model allows width 1: the paper's "rounding
// effects", 13 processors for a 12-processor reservation in §5.4), and the correction loop moves
// processors only between tasks of the same user (below), so a round's total capacity per user
// stays <= S_limit + (its tasks in the round) * s_max. Nothing bounds the sum over tasks of
// different rounds that overlap in time: the share is a per-round budget, not a per-instant cap.
// When every S'_i is a whole number of (equal) processors and the user's tasks all belong to one
// round, the per-instant use is <= S_limit.
//
// Choices and deviations (the paper leaves these open):
// - Communication between tasks is always paid, even between tasks sharing processors: data are
//   redistributed between the processor grids of parallel tasks. A task's data are ready at the
//   latest predecessor end + transfer (the usual list-scheduling rule). §5.4 says instead that "the
//   algorithm sums those communications" (the latest end plus the SUM of the incoming transfers);
//   BarbosaOptions::sum_incoming_transfers selects that reading. It is not the default because, on
//   §5.2's DAGs (out-degree 2-5, so many edges into late tasks), it makes the parallel-task
//   schedules LONGER than HEFT's for 30 and 90 tasks (means over 20 seeds on 20 processors: 3.98 s
//   vs 3.03 s, 7.62 s vs 4.75 s), the opposite of Table 2; with the max they are 1.99 s and 3.28 s,
//   about Table 2's ratios.
// - b-levels use t*_i (minimum times) for unplaced tasks and the edges' transfers. The b-level
//   compared in lines 6-14 is measured from the schedule's origin: start + time + the successors'
//   b-level, since tasks of one round start at different t-levels.
// - A move of lines 11-13 is made only if processor q (tried fastest first) is free for both new
//   intervals, k's time decreases, and the larger of the two new b-levels is below k's old one;
//   otherwise the next donor (increasing b-level, never one that has been maximum) is tried, and
//   the loop stops when none can give. Every move lowers the sorted vector of b-levels
//   lexicographically, so the loop terminates. Moves stay within a capacity pool (one per user with
//   a share, one for everybody else) so that the shares hold after the correction.
// - Task time on a set Q of p processors: for CommunicationModel tasks eq. (1) with the sum of the
//   capacities, T_L + n^2(r + c - 2)/w + f(n) / (s * sum of relative speeds), where the model's
//   processor_speed s is the reference (relative speed 1); for other models TimeOn(p) * p / (sum of
//   relative speeds), i.e. the model describes p reference processors. On reference processors both
//   are exactly TimeOn(p). Only the widths the model allows are used (moves that would leave them
//   are skipped).
// - Every task gets at least its smallest allowed width, even when S'_i is smaller (Alg. 1 may
//   leave users without a share S'_i = 0 when the shares take all the capacity).
// - Rounds: S_max is the whole machine's capacity; Alg. 2 sees what is actually free (tasks of
//   earlier rounds still running, the timeline's reservations).
// - Existing reservations: the convention of heft.h (processor j is usable over [s, e) only if j <
//   MinFree(s, e)).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dag/dag_plan.h"
#include "core/model/dag.h"
#include "core/model/runtime_model.h"
#include "core/model/time.h"
#include "core/timeline/timeline.h"

namespace resched {

struct BarbosaJob {
  Dag dag;
  double share = 0;  // S_limit / S_max in (0, 1]; 0: no reservation
  std::string user;  // jobs of one user share one S_limit (and must give the same share)
};

// A master-DAG edge: job `after` starts once job `before` is done (zero communication).
struct JobPrecedence {
  int before = 0;
  int after = 0;
};

struct BarbosaOptions {
  bool sum_incoming_transfers = false;  // see the header comment
  bool correction = true;               // Alg. 2 lines 6-14 (off: lines 1-5 only, for ablation)
};

// What the algorithm did, round by round, for tests and experiments.
struct BarbosaRound {
  struct Entry {
    int job = 0;
    int task = 0;
    double optimal_capacity = 0;  // S*_i
    double target_capacity = 0;   // S'_i (Alg. 1)
    double placed_capacity = 0;   // S_i after Alg. 2 lines 1-5
    double final_capacity = 0;    // S_i after the b-level correction
  };
  std::vector<Entry> entries;
  int correction_iterations = 0;  // passes of lines 7-14, all pools
  int correction_moves = 0;       // processors moved
};

struct BarbosaResult {
  std::vector<DagPlan> plans;  // one per job, indexed like the input
  std::vector<BarbosaRound> rounds;
};

// Algorithms 1 and 2 over `jobs` linked by `master`, on processors of relative speeds `speeds`
// (e.g. ProcessorSpeeds(spec)), nothing before `release`, around `timeline`'s reservations (null:
// dedicated cluster; else speeds.size() must equal its capacity). Errors: INVALID_ARGUMENT (a DAG,
// shares outside [0, 1] or summing above 1, a user with two shares, a bad or cyclic master DAG,
// speeds), RESOURCE_EXHAUSTED when a task never fits.
absl::StatusOr<BarbosaResult> BarbosaSchedule(const std::vector<BarbosaJob>& jobs,
                                              const std::vector<JobPrecedence>& master,
                                              const std::vector<double>& speeds, Time release,
                                              const Timeline* timeline,
                                              const BarbosaOptions& options = {});

// One DAG, one user without a share: the ReserveDAG planner "barbosa".
absl::StatusOr<DagPlan> BarbosaPlan(const Dag& dag, const std::vector<double>& speeds, Time release,
                                    const Timeline* timeline, const BarbosaOptions& options = {});

// Time of a task of model `model` on p processors whose relative speeds sum to `speed_sum` (see the
// header comment); p must be an allowed width.
Duration BarbosaTaskTime(const RuntimeModel& model, int p, double speed_sum);

}  // namespace resched
