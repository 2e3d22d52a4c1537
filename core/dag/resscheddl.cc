#include "core/dag/resscheddl.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace resched {
namespace {

// The latest start over widths up to `bound` (ties: fewer processors).
std::optional<TaskReservation> LatestUpTo(const WidthTable& w, int bound, const Timeline& timeline,
                                          Time release, Time deadline) {
  std::optional<TaskReservation> best;
  for (int i = w.IndexAtMost(bound); i >= 0; --i) {
    // No narrower width can run fast enough to start later than the best.
    if (best && deadline - w.fastest[i] < best->start) break;
    const Duration d = w.times[i];
    if (deadline - d < release || (best && deadline - d < best->start)) continue;
    const std::optional<Time> s = timeline.LatestStart(release, deadline, d, w.widths[i]);
    if (s && (!best || *s >= best->start)) best = TaskReservation{w.widths[i], *s, *s + d, {}};
  }
  return best;
}

// The fewest processors whose latest start is at or after `threshold`.
std::optional<TaskReservation> FewestStartingAfter(const WidthTable& w, const Timeline& timeline,
                                                   Time release, Time deadline, Time threshold) {
  for (std::size_t i = 0; i < w.widths.size(); ++i) {
    const Duration d = w.times[i];
    if (deadline - d < std::max(threshold, release)) continue;
    const std::optional<Time> s = timeline.LatestStart(release, deadline, d, w.widths[i]);
    if (s && *s >= threshold) return TaskReservation{w.widths[i], *s, *s + d, {}};
  }
  return std::nullopt;
}

// Start times of `order`'s tasks in a CPA mapping with fixed `widths` from the release on an
// empty machine of `machine` processors (indexed by task; others keep the release).
std::vector<Time> CpaStarts(const DagGraph& g, const std::vector<int>& order,
                            const std::vector<int>& widths, int machine, Time release) {
  Timeline empty(machine);
  DagPlan plan;
  // The machine is empty and every width is at most its size, so the mapping cannot fail.
  (void)MapWithWidths(g, order, widths, release, empty, plan);
  std::vector<Time> start(g.size(), release);
  for (int v : order) start[v] = plan.tasks[v].start;
  return start;
}

}  // namespace

std::vector<ResschedDlOptions> ResschedDlVariants() {
  std::vector<ResschedDlOptions> variants;
  for (const bool resource_conservative : {false, true}) {
    for (AllocationSource bound :
         {AllocationSource::kAll, AllocationSource::kCpa, AllocationSource::kCpar}) {
      // §5.2.2's DL_RC comes with the CPA and CPAR bounds only.
      if (resource_conservative && bound == AllocationSource::kAll) continue;
      ResschedDlOptions variant;
      variant.resource_conservative = resource_conservative;
      variant.bound = bound;
      variants.push_back(variant);
    }
  }
  return variants;
}

const std::vector<std::string>& DlRcFallbackNames() {
  static const std::vector<std::string> names = {"none", "cpa-bounded", "widest"};
  return names;
}

std::string ResschedDlName(const ResschedDlOptions& options) {
  return absl::StrFormat("dl_%s_%s", options.resource_conservative ? "rc" : "bd",
                         AllocationSourceName(options.bound));
}

// Tasks are placed in a fixed order, so T does not depend on the deadline: computed once per
// search, not per probe.
//   reallocate (the paper: "use the CPA algorithm to compute a full schedule for all the
//     application tasks that have not been scheduled yet"): CPA's allocation is re-run on the
//     remaining tasks at each step, so they widen as the DAG shrinks;
//   otherwise the whole DAG's CPA widths are kept and the placed tasks only leave the mapping.
//     Removing the last task of the mapping order then leaves the other starts unchanged, so
//     the mapping is only redone when another task leaves.
std::vector<Time> CpaGuideStarts(const DagGraph& g, const std::vector<int>& placement, int machine,
                                 Time release, bool reallocate, CpaOptions cpa,
                                 const PlanControl& control) {
  std::vector<Time> guide(g.size(), release);
  if (reallocate) {
    std::vector<bool> placed(g.size(), false);
    for (int v : placement) {
      if (control.Stop()) return guide;
      std::vector<int> remaining;
      for (int u = 0; u < g.size(); ++u) {
        if (!placed[u]) remaining.push_back(u);
      }
      const DagGraph sub = InducedSubgraph(g, remaining);
      const std::vector<int> widths = CpaAllocation(sub, machine, cpa, control);
      const std::vector<int> order =
          ByDecreasingBottomLevel(sub, BottomLevels(sub, TimesFor(sub, widths)));
      const std::vector<Time> start = CpaStarts(sub, order, widths, machine, release);
      const auto at = std::find(remaining.begin(), remaining.end(), v);
      guide[v] = start[at - remaining.begin()];
      placed[v] = true;
    }
    return guide;
  }
  const std::vector<int> widths = CpaAllocation(g, machine, cpa, control);
  std::vector<int> order = ByDecreasingBottomLevel(g, BottomLevels(g, TimesFor(g, widths)));
  std::vector<Time> start = CpaStarts(g, order, widths, machine, release);
  for (int v : placement) {
    guide[v] = start[v];
    const bool last = !order.empty() && order.back() == v;
    order.erase(std::find(order.begin(), order.end(), v));
    if (!last) start = CpaStarts(g, order, widths, machine, release);
  }
  return guide;
}

namespace {

// Everything about a deadline plan that does not depend on the deadline, computed once per
// tightest-deadline search rather than once per probe.
struct DeadlinePrep {
  std::vector<int> order;         // increasing bottom level: successors first
  std::vector<int> bounds;        // DL_BD, and DL_RC's CPA-bounded fallback: widths per task
  std::vector<Time> guide_start;  // DL_RC: each task's T, see CpaGuideStarts
};

// `control` as for CpaAllocation.
DeadlinePrep Prepare(const DagGraph& g, Time release, const ResschedDlOptions& options,
                     const PlanControl& control) {
  const int q = EffectiveQ(g.capacity, options.q);
  const std::vector<int> cpar = CpaAllocation(g, q, options.cpa, control);
  DeadlinePrep prep;
  if (control.Stop()) return prep;
  prep.order = ByDecreasingBottomLevel(g, BottomLevels(g, TimesFor(g, cpar)));
  std::reverse(prep.order.begin(), prep.order.end());
  if (options.resource_conservative) {
    const int machine = options.bound == AllocationSource::kCpa ? g.capacity : q;
    prep.guide_start = CpaGuideStarts(g, prep.order, machine, release,
                                      options.cpa_guide_reallocates, options.cpa, control);
  }
  // DL_RC's widths are not bounded: only its CPA-bounded fallback reads the bounds.
  if (!options.resource_conservative || options.fallback == DlRcFallback::kCpaBounded) {
    prep.bounds = options.bound == AllocationSource::kCpar
                      ? cpar
                      : AllocationWidths(g, options.bound, q, options.cpa, control);
  }
  return prep;
}

// One backwards pass on `work`, booking each task there; the bookings are removed again
// before returning, so `work` comes back unchanged.
std::optional<DeadlinePlan> RunBackwards(const DagGraph& g, Timeline& work, Time release,
                                         Time deadline, const ResschedDlOptions& options,
                                         const DeadlinePrep& prep) {
  DagPlan plan;
  int fallback_tasks = 0;
  plan.tasks.resize(g.size());
  std::vector<ReservationId> booked;
  booked.reserve(g.size());
  bool feasible = true;
  for (int v : prep.order) {
    Time task_deadline = deadline;
    for (const Arc& s : g.succs[v]) {
      task_deadline = std::min(task_deadline, plan.tasks[s.task].start - s.transfer);
    }
    std::optional<TaskReservation> r;
    if (!prep.guide_start.empty()) {
      const double lag = static_cast<double>(prep.guide_start[v] - release) * options.lambda;
      const Time threshold = release + static_cast<Duration>(std::ceil(lag));
      r = FewestStartingAfter(g.widths[v], work, release, task_deadline, threshold);
      if (!r && options.fallback != DlRcFallback::kNone) {
        const int bound = options.fallback == DlRcFallback::kWidest ? g.capacity : prep.bounds[v];
        r = LatestUpTo(g.widths[v], bound, work, release, task_deadline);
        if (r) ++fallback_tasks;
      }
    } else {
      r = LatestUpTo(g.widths[v], prep.bounds[v], work, release, task_deadline);
    }
    absl::StatusOr<ReservationId> id = r ? work.Add(r->start, r->end, r->k)
                                         : absl::StatusOr<ReservationId>(absl::NotFoundError(""));
    if (!id.ok()) {
      feasible = false;
      break;
    }
    booked.push_back(*id);
    plan.tasks[v] = *r;
  }
  for (ReservationId id : booked) work.ReleaseHeld(id);
  if (!feasible) return std::nullopt;
  Summarize(plan);
  return DeadlinePlan{std::move(plan), fallback_tasks};
}

}  // namespace

std::optional<DeadlinePlan> PlanByDeadline(const DagGraph& g, const Timeline& timeline,
                                           Time release, Time deadline,
                                           const ResschedDlOptions& options,
                                           const PlanControl& control) {
  const DeadlinePrep prep = Prepare(g, release, options, control);
  if (control.Stop()) return std::nullopt;
  Timeline work = timeline.Copy();
  return RunBackwards(g, work, release, deadline, options, prep);
}

Time CriticalPathBound(const DagGraph& g, Time release) {
  std::vector<Duration> fastest(g.size());
  for (int i = 0; i < g.size(); ++i) fastest[i] = g.widths[i].fastest.back();
  const std::vector<Duration> bl = BottomLevels(g, fastest);
  return release + *std::max_element(bl.begin(), bl.end());
}

absl::StatusOr<TightestDeadline> FindTightestDeadline(const DagGraph& g, const Timeline& timeline,
                                                      Time release,
                                                      const ResschedDlOptions& options,
                                                      Duration resolution,
                                                      const PlanControl& control) {
  resolution = std::max<Duration>(resolution, 1);
  TightestDeadline result;
  Time lo = CriticalPathBound(g, release) - 1;  // no deadline at or below lo can be met
  Time hi = lo + 1;
  ResschedOptions turnaround;
  turnaround.q = options.q;
  turnaround.cpa = options.cpa;
  const absl::Status stopped = absl::CancelledError("the tightest-deadline search was stopped");
  absl::StatusOr<DagPlan> turnaround_plan = PlanRessched(g, timeline, release, turnaround, control);
  if (absl::IsCancelled(turnaround_plan.status())) return stopped;
  if (turnaround_plan.ok()) hi = std::max(hi, turnaround_plan->completion);
  const DeadlinePrep prep = Prepare(g, release, options, control);
  Timeline work = timeline.Copy();
  auto probe = [&](Time deadline) {
    ++result.probes;
    return RunBackwards(g, work, release, deadline, options, prep);
  };
  std::optional<DeadlinePlan> best;
  while (true) {
    if (control.Stop()) return stopped;
    best = probe(hi);
    if (best) break;
    lo = hi;
    const Duration span = hi - release;
    if (span > (kTimeMax / 2 - release) / 2) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("no deadline up to %s lets the DAG finish", FormatInstant(hi)));
    }
    hi = release + 2 * std::max<Duration>(span, resolution);
  }
  while (hi - lo > resolution) {
    if (control.Stop()) return stopped;
    const Time mid = lo + (hi - lo) / 2;
    if (std::optional<DeadlinePlan> p = probe(mid)) {
      hi = mid;
      best = std::move(p);
    } else {
      lo = mid;
    }
  }
  result.deadline = best->plan.completion;  // the plan meets any deadline from its completion on
  result.fallback_tasks = best->fallback_tasks;
  result.plan = std::move(best->plan);
  return result;
}

}  // namespace resched
