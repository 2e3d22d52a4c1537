#include "core/plan/replan.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>

#include "absl/strings/str_format.h"
#include "core/metrics/metrics.h"
#include "core/offline/minsum_lower_bound.h"
#include "core/offline/mrt.h"

namespace resched {
namespace {

// Figures differing by less than this share are equal: sums of doubles in another order.
constexpr double kRelativeTolerance = 1e-9;

bool Above(double after, double before) {
  return after > before + kRelativeTolerance * std::max(1.0, std::abs(before));
}

// The precision MRT's binary search gets when it only serves as a bound.
constexpr double kBoundEpsilon = 1e-3;

std::optional<Time> MakespanLowerBound(const OfflineProblem& problem,
                                       std::optional<Duration> from_planner,
                                       const PlanControl& control, absl::Status& error) {
  Duration mrt = 0;
  if (from_planner) {
    mrt = *from_planner;
  } else {
    absl::StatusOr<MrtShelves> shelves =
        MrtDualApproximation(problem.jobs, problem.free.capacity(), kBoundEpsilon, control);
    if (!shelves.ok()) {
      error = shelves.status();
      return std::nullopt;
    }
    mrt = shelves->lower_bound;
  }
  // A job released later ends no earlier than its release plus its shortest time.
  Time bound = problem.now + mrt;
  for (const OfflineJob& job : problem.jobs) {
    Duration shortest = kTimeMax;
    for (int k : job.model.Widths(problem.free.capacity())) {
      shortest = std::min(shortest, job.model.TimeOn(k));
    }
    bound = std::max(bound, std::max(problem.now, job.release) + shortest);
  }
  return bound;
}

MetricItem ItemOf(const JobRecord& job) {
  return {job.job.release,  job.allocation.start, job.allocation.end,
          job.allocation.k, job.job.weight,       job.job.model.SequentialTime()};
}

QueueFigures FiguresOf(const std::vector<MetricItem>& items, int capacity, Time now) {
  if (items.empty()) return {};
  const ScheduleMetrics m = ComputeMetrics(items, capacity);
  double from_now = 0;
  for (const MetricItem& item : items) {
    from_now += item.weight * static_cast<double>(item.end - now);
  }
  return QueueFigures{m.jobs,         m.makespan,    m.weighted_completion,
                      m.mean_stretch, m.max_stretch, from_now / kMicrosPerSecond};
}

}  // namespace

QueueFigures FiguresOfQueue(const ClusterPlan& plan) {
  std::vector<MetricItem> items;
  for (const JobRecord* job : plan.QueuedJobs()) items.push_back(ItemOf(*job));
  return FiguresOf(items, plan.capacity(), plan.now());
}

bool IsWorse(ReplanObjective objective, const QueueFigures& before, const QueueFigures& after) {
  const bool makespan = after.makespan > before.makespan;
  const bool weighted =
      Above(after.weighted_completion_from_now, before.weighted_completion_from_now);
  switch (objective) {
    case ReplanObjective::kMakespan:
      return makespan;
    case ReplanObjective::kWeightedCompletion:
      return weighted;
    case ReplanObjective::kMaxStretch:
      return Above(after.max_stretch, before.max_stretch);
    case ReplanObjective::kBicriteria:
      return makespan || weighted;
  }
  return true;
}

bool IsBetter(ReplanObjective objective, const QueueFigures& before, const QueueFigures& after) {
  if (IsWorse(objective, before, after)) return false;
  if (objective == ReplanObjective::kBicriteria) {
    return IsWorse(ReplanObjective::kMakespan, after, before) ||
           IsWorse(ReplanObjective::kWeightedCompletion, after, before);
  }
  return IsWorse(objective, after, before);
}

absl::StatusOr<ReplanTrial> TryReplan(const ClusterPlan& plan,
                                      const std::vector<PlannedJob>& planned,
                                      ReplanObjective objective) {
  ReplanTrial trial;
  trial.before = FiguresOfQueue(plan);
  std::unique_ptr<ClusterPlan> copy = plan.Copy();
  if (absl::Status s = copy->ApplyReplan(planned); !s.ok()) return s;
  // Jobs planned at now have started on the copy: the figures count them as queued still.
  std::vector<MetricItem> items;
  for (const JobRecord* old : plan.QueuedJobs()) {
    const JobRecord* now = copy->FindJob(old->job.id);
    if (now->allocation != old->allocation) {
      trial.moves.push_back({old->job.id, old->allocation, now->allocation});
    }
    items.push_back(ItemOf(*now));
  }
  trial.after = FiguresOf(items, plan.capacity(), plan.now());
  trial.worse = IsWorse(objective, trial.before, trial.after);
  return trial;
}

absl::StatusOr<ReplanProposal> ProposeReplan(const ClusterPlan& plan, const OfflinePlanner& planner,
                                             ReplanObjective objective, const PlanControl& control,
                                             bool lower_bounds) {
  // One problem on one speed; on several, one per group with its queued jobs, which keep their
  // group: their models are at its speed.
  const std::vector<const JobRecord*> queued = plan.QueuedJobs();
  std::vector<OfflineProblem> problems;
  std::vector<std::vector<std::size_t>> positions;  // of each problem's jobs in `queued`
  if (plan.spec().homogeneous()) {
    problems.emplace_back().free = plan.FreeForQueued();
    positions.emplace_back();
  } else {
    for (Timeline& free : plan.FreeByGroupForQueued()) {
      problems.emplace_back().free = std::move(free);
      positions.emplace_back();
    }
  }
  for (std::size_t i = 0; i < queued.size(); ++i) {
    const JobRecord* job = queued[i];
    const std::size_t p = problems.size() == 1 ? 0 : static_cast<std::size_t>(job->group);
    problems[p].jobs.push_back({job->job.id, job->job.model, job->job.weight, job->job.release});
    positions[p].push_back(i);
  }
  ReplanProposal proposal;
  proposal.planned.resize(queued.size());
  double weights = 0;
  double weighted_bound = 0;  // the LP bounds' sum, in weight x microseconds after now
  for (std::size_t p = 0; p < problems.size(); ++p) {
    OfflineProblem& problem = problems[p];
    if (problem.jobs.empty() && problems.size() > 1) continue;
    problem.now = plan.now();
    const auto started = std::chrono::steady_clock::now();
    absl::StatusOr<OfflinePlan> offline = planner.Plan(problem, control);
    proposal.planner_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!offline.ok()) return offline.status();
    if (offline->allocations.size() != problem.jobs.size()) {
      return absl::InternalError(absl::StrFormat("the planner placed %d of %d jobs",
                                                 offline->allocations.size(), problem.jobs.size()));
    }
    for (std::size_t i = 0; i < problem.jobs.size(); ++i) {
      proposal.planned[positions[p][i]] = {problem.jobs[i].id, offline->allocations[i]};
    }
    if (!lower_bounds || problem.jobs.empty()) continue;
    // With several groups, bounds for the plans that keep every job in its group: the latest
    // group's makespan bound, and the sum of the groups' weighted-completion bounds.
    if (objective == ReplanObjective::kMakespan || objective == ReplanObjective::kBicriteria) {
      absl::Status error;
      const std::optional<Time> bound =
          MakespanLowerBound(problem, offline->makespan_lower_bound, control, error);
      if (!error.ok()) return error;
      if (bound) {
        proposal.makespan_lower_bound = std::max(proposal.makespan_lower_bound.value_or(0), *bound);
      }
    }
    if (objective == ReplanObjective::kWeightedCompletion ||
        objective == ReplanObjective::kBicriteria) {
      absl::StatusOr<double> lp = WeightedCompletionLowerBound(problem, control);
      if (!lp.ok()) return lp.status();
      weighted_bound += *lp;
      for (const OfflineJob& job : problem.jobs) weights += job.weight;
      // The LP bounds sum w (C - now) in weight x microseconds; the figures sum w C in seconds.
      proposal.weighted_completion_lower_bound =
          (weighted_bound + weights * static_cast<double>(plan.now())) /
          static_cast<double>(kMicrosPerSecond);
    }
  }
  absl::StatusOr<ReplanTrial> trial = TryReplan(plan, proposal.planned, objective);
  if (!trial.ok()) return trial.status();
  proposal.trial = *std::move(trial);
  return proposal;
}

std::optional<Time> EarliestStartInBoth(const Timeline& cluster, const Timeline* group, Time from,
                                        Duration length, int k, Time before) {
  while (true) {
    const std::optional<Time> start = cluster.EarliestStart(from, length, k);
    if (!start || *start >= before) return std::nullopt;
    if (group == nullptr || length == 0 || group->MinFree(*start, *start + length) >= k) {
      return start;
    }
    const std::optional<Time> in_group = group->EarliestStart(*start, length, k);
    if (!in_group || *in_group >= before) return std::nullopt;
    from = *in_group;
  }
}

absl::StatusOr<std::vector<PlannedJob>> FittedToNow(const ClusterPlan& plan,
                                                    std::vector<PlannedJob> planned) {
  Timeline free = plan.FreeForQueued();
  std::vector<Timeline> groups;
  if (!plan.spec().homogeneous()) groups = plan.FreeByGroupForQueued();
  std::vector<std::size_t> order(planned.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return planned[a].allocation.start < planned[b].allocation.start;
  });
  for (std::size_t i : order) {
    Allocation& a = planned[i].allocation;
    const JobRecord* job = plan.FindJob(planned[i].id);
    const Duration length = a.end - a.start;
    if (job == nullptr || job->state != JobState::kQueued || length <= 0) continue;
    Timeline* group = groups.empty() || job->group < 0 ? nullptr : &groups[job->group];
    const std::optional<Time> chosen = EarliestStartInBoth(
        free, group, std::max({a.start, plan.now(), job->job.release}), length, a.k);
    if (!chosen) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "job '%s' of the plan fits nowhere on %d processors after %s (the cluster changed "
          "while it was planned)",
          planned[i].id, a.k, FormatInstant(std::max(a.start, plan.now()))));
    }
    a = Allocation{a.k, *chosen, *chosen + length};
    (void)free.ForceAdd(a.start, a.end, a.k);  // it fits: found just above
    if (group != nullptr) (void)group->ForceAdd(a.start, a.end, a.k);
  }
  return planned;
}

}  // namespace resched
