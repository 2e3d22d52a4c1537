// Multi-user parallel-task list scheduling: Barbosa & Monteiro, "A list scheduling algorithm for
// scheduling multi-user jobs on clusters", §3 (computational model), §4 (Algorithms 1 and 2).
//
// The user jobs form one master DAG (§4: a job's entry tasks wait for the exit tasks of the jobs
// it follows), scheduled in rounds of ready tasks. Alg. 1 gives each task a target capacity S'_i
// so that users with a share stay within S_limit = share * S_max and the others share the rest;
// Alg. 2 places the round by increasing t-level on the fastest free processors, adding
// processors while the task is below S'_i and its time drops, then moves processors from the
// lowest to the highest b-level task while that lowers the highest b-level.
//
// Deviations, where the paper leaves things open (docs/algorithms.md, "Barbosa & Monteiro in
// detail", gives the reasons and the measurements behind them):
// - The share is a per-round budget, not a per-instant cap.
// - A task's data are ready at the latest predecessor end + transfer (max over predecessors);
//   BarbosaOptions::sum_incoming_transfers selects §5.4's sum of the incoming transfers.
// - A correction move stays inside a user's capacity pool and must bring both tasks' b-levels
//   below the receiver's old one, so the shares hold and the loop ends.
// - Task time on p processors of summed relative speed S: eq. (1) with S for CommunicationModel
//   tasks, else TimeOn(p) * p / S. Every task gets at least its smallest allowed width.
// - Reservations: processor j is usable over [s, e) only if j < MinFree(s, e) (as in heft.h).
// - Groups (BarbosaScheduleOn with several, a cluster of several speeds): a task's processors
//   all come from one group, where §3 lets them mix speeds. Every booking of the cluster lives
//   in one group (its policies, holds and validator count per group), as a job does; Alg. 2's
//   growth runs in each group and the earliest end wins (ties: the slower group), a correction
//   move stays inside one group, and t*_i, S*_i are the best over the groups.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dag/dag_plan.h"
#include "core/dag/processor_free.h"
#include "core/model/dag.h"
#include "core/model/plan_control.h"
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
  PlanControl control;                  // asked before each round: CANCELLED when it says stop
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

// The same on processors free where `free` says (processor_free.h); speeds.size() must be
// free.processors(). On several groups, INVALID_ARGUMENT also for a task that fits no group.
absl::StatusOr<BarbosaResult> BarbosaScheduleOn(const std::vector<BarbosaJob>& jobs,
                                                const std::vector<JobPrecedence>& master,
                                                const std::vector<double>& speeds, Time release,
                                                const ProcessorFree& free,
                                                const BarbosaOptions& options = {});

// One DAG, one user without a share: the ReserveDAG planner "barbosa".
absl::StatusOr<DagPlan> BarbosaPlan(const Dag& dag, const std::vector<double>& speeds, Time release,
                                    const Timeline* timeline, const BarbosaOptions& options = {});

absl::StatusOr<DagPlan> BarbosaPlanOn(const Dag& dag, const std::vector<double>& speeds,
                                      Time release, const ProcessorFree& free,
                                      const BarbosaOptions& options = {});

// Time of a task of model `model` on p processors whose relative speeds sum to `speed_sum` (see the
// header comment); p must be an allowed width.
Duration BarbosaTaskTime(const RuntimeModel& model, int p, double speed_sum);

}  // namespace resched
