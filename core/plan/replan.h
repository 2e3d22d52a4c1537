// Replan's core: plan a cluster's queued jobs with an offline planner (core/offline) on the
// capacity they may use, try the plan on a copy of the cluster, and judge it against the
// current schedule on the chosen objective, with the lower bounds that show the gap. The server
// runs Propose on a snapshot, off the cluster's lock, and Try again under the lock to commit
// (docs/algorithms.md, "Replan").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/job.h"
#include "core/offline/offline_planner.h"
#include "core/plan/cluster_plan.h"

namespace resched {

// The queued jobs' figures, in the units of ScheduleMetrics (C in seconds since the epoch).
struct QueueFigures {
  int jobs = 0;
  Time makespan = 0;
  double weighted_completion = 0;
  double mean_stretch = 0;
  double max_stretch = 0;
  // Sum of w (C - now) in seconds, the cluster's present as origin: what "worse" and "better"
  // compare, since on a WALL clock the sum of w C (about 1.8e9 s per unit of weight) would hide
  // differences of seconds below any relative tolerance.
  double weighted_completion_from_now = 0;
};

QueueFigures FiguresOfQueue(const ClusterPlan& plan);

// True when `after` is worse than `before` on `objective` (beyond rounding).
bool IsWorse(ReplanObjective objective, const QueueFigures& before, const QueueFigures& after);
// True when `after` is strictly better than `before` on `objective` (for the bi-criteria
// objective: better on one figure, worse on none).
bool IsBetter(ReplanObjective objective, const QueueFigures& before, const QueueFigures& after);

struct JobMove {
  JobId id;
  Allocation before;
  Allocation after;
};

// A plan tried on a copy of the cluster: its figures, and every queued job it moved.
struct ReplanTrial {
  QueueFigures before;
  QueueFigures after;
  std::vector<JobMove> moves;  // in submission order
  bool worse = false;
};

// Applies `planned` to a copy of `plan` and compares. FAILED_PRECONDITION when the plan no
// longer applies (ClusterPlan::ApplyReplan).
absl::StatusOr<ReplanTrial> TryReplan(const ClusterPlan& plan,
                                      const std::vector<PlannedJob>& planned,
                                      ReplanObjective objective);

// The earliest start from `from`, before `before`, where `cluster` and `group` (when not null,
// the job's processor group) both have `k` processors free for `length`: each search starts where
// the other found room, so the starts only rise. nullopt when there is none before `before`.
std::optional<Time> EarliestStartInBoth(const Timeline& cluster, const Timeline* group, Time from,
                                        Duration length, int k, Time before = kTimeMax);

// `planned`, made on a copy of `plan` whose clock has moved on since (a WALL cluster), fitted to
// `plan` as it is: in the order of their planned starts, each job keeps its width and length and
// starts at the earliest instant, not before its planned start, now or its release, where it fits
// beside what the queued jobs may not use and the jobs fitted before it. Jobs planned for the
// instants that passed start now, and the others move only as far as those push them, so a job
// packed against a later reservation stays where it was planned. Jobs of the plan that are no
// longer queued are left as planned (ApplyReplan finds the plan stale). FAILED_PRECONDITION when
// a job fits nowhere.
absl::StatusOr<std::vector<PlannedJob>> FittedToNow(const ClusterPlan& plan,
                                                    std::vector<PlannedJob> planned);

struct ReplanProposal {
  std::vector<PlannedJob> planned;  // every queued job, in submission order
  ReplanTrial trial;
  // The lower bounds of the objective's figures (absolute, like the figures), when computed:
  // MRT's for the makespan, the LP relaxation's for the weighted completion.
  std::optional<Time> makespan_lower_bound;
  std::optional<double> weighted_completion_lower_bound;
  double planner_seconds = 0;
};

// Plans every queued job of `plan` with `planner` on FreeForQueued(), computes the objective's
// lower bounds (unless `lower_bounds` is false), and tries the plan. On groups of different
// speeds each group's queued jobs are planned in that group, on what it has free
// (FreeByGroupForQueued), and the bounds are those of plans that keep every job in its group.
// CANCELLED when `control` says stop.
absl::StatusOr<ReplanProposal> ProposeReplan(const ClusterPlan& plan, const OfflinePlanner& planner,
                                             ReplanObjective objective, const PlanControl& control,
                                             bool lower_bounds = true);

}  // namespace resched
