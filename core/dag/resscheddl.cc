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

// Start times of the tasks not placed yet in a CPA schedule on an empty q-processor machine
// (§5.2.2). Placing tasks in increasing bottom level usually removes the last task of the CPA
// mapping order, which leaves the rest of that schedule unchanged, so the schedule is only
// recomputed when some other task is removed.
class CpaGuide {
 public:
  CpaGuide(const DagGraph& g, int q, Time release, std::vector<int> widths)
      : g_(g), q_(q), release_(release), widths_(std::move(widths)) {
    order_ = ByDecreasingBottomLevel(g, BottomLevels(g, TimesFor(g, widths_)));
    Recompute();
  }

  Time StartOf(int v) const { return start_[v]; }

  void Remove(int v) {
    const bool last = !order_.empty() && order_.back() == v;
    order_.erase(std::find(order_.begin(), order_.end(), v));
    if (!last) Recompute();
  }

 private:
  void Recompute() {
    Timeline machine(q_);
    DagPlan plan;
    // The machine is empty and every width is at most q, so the mapping cannot fail.
    (void)MapWithWidths(g_, order_, widths_, release_, machine, plan);
    start_.assign(g_.size(), release_);
    for (int v : order_) start_[v] = plan.tasks[v].start;
  }

  const DagGraph& g_;
  int q_;
  Time release_;
  std::vector<int> widths_;
  std::vector<int> order_;
  std::vector<Time> start_;
};

}  // namespace

absl::StatusOr<ResschedDlOptions> ParseResschedDlName(std::string_view name) {
  ResschedDlOptions o;
  if (name == "dl_bd_all") {
    o.resource_conservative = false;
    o.bound = AllocationSource::kAll;
  } else if (name == "dl_bd_cpa") {
    o.resource_conservative = false;
    o.bound = AllocationSource::kCpa;
  } else if (name == "dl_bd_cpar") {
    o.resource_conservative = false;
    o.bound = AllocationSource::kCpar;
  } else if (name == "dl_rc_cpa") {
    o.bound = AllocationSource::kCpa;
  } else if (name == "dl_rc_cpar") {
    o.bound = AllocationSource::kCpar;
  } else {
    return absl::InvalidArgumentError(absl::StrFormat(
        "algorithm '%s' is not one of dl_bd_all, dl_bd_cpa, dl_bd_cpar, dl_rc_cpa, dl_rc_cpar",
        std::string(name)));
  }
  return o;
}

namespace {

// Everything about a deadline plan that does not depend on the deadline, computed once per
// tightest-deadline search rather than once per probe.
struct DeadlinePrep {
  std::vector<int> order;         // increasing bottom level: successors first
  std::vector<int> bounds;        // DL_BD: widths allowed per task
  std::optional<CpaGuide> guide;  // DL_RC
};

DeadlinePrep Prepare(const DagGraph& g, Time release, const ResschedDlOptions& options) {
  const int q = EffectiveQ(g.capacity, options.q);
  const std::vector<int> cpar = CpaAllocation(g, q, options.cpa);
  DeadlinePrep prep;
  prep.order = ByDecreasingBottomLevel(g, BottomLevels(g, TimesFor(g, cpar)));
  std::reverse(prep.order.begin(), prep.order.end());
  if (options.resource_conservative) {
    if (options.bound == AllocationSource::kCpa) {
      prep.guide.emplace(g, g.capacity, release, CpaAllocation(g, g.capacity, options.cpa));
    } else {
      prep.guide.emplace(g, q, release, cpar);
    }
  } else {
    prep.bounds = options.bound == AllocationSource::kCpar
                      ? cpar
                      : AllocationWidths(g, options.bound, q, options.cpa);
  }
  return prep;
}

// One backwards pass on `work`, booking each task there; the bookings are removed again
// before returning, so `work` comes back unchanged.
std::optional<DagPlan> RunBackwards(const DagGraph& g, Timeline& work, Time release, Time deadline,
                                    const ResschedDlOptions& options, const DeadlinePrep& prep) {
  std::optional<CpaGuide> guide = prep.guide;
  DagPlan plan;
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
    if (guide) {
      const double lag = static_cast<double>(guide->StartOf(v) - release) * options.lambda;
      const Time threshold = release + static_cast<Duration>(std::ceil(lag));
      r = FewestStartingAfter(g.widths[v], work, release, task_deadline, threshold);
      if (!r) r = LatestUpTo(g.widths[v], g.capacity, work, release, task_deadline);
      guide->Remove(v);
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
  return plan;
}

}  // namespace

std::optional<DagPlan> PlanByDeadline(const DagGraph& g, const Timeline& timeline, Time release,
                                      Time deadline, const ResschedDlOptions& options) {
  Timeline work = timeline.Snapshot();
  return RunBackwards(g, work, release, deadline, options, Prepare(g, release, options));
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
                                                      Duration resolution) {
  resolution = std::max<Duration>(resolution, 1);
  TightestDeadline result;
  Time lo = CriticalPathBound(g, release) - 1;  // no deadline at or below lo can be met
  Time hi = lo + 1;
  ResschedOptions turnaround;
  turnaround.q = options.q;
  turnaround.cpa = options.cpa;
  if (absl::StatusOr<DagPlan> p = PlanRessched(g, timeline, release, turnaround); p.ok()) {
    hi = std::max(hi, p->completion);
  }
  const DeadlinePrep prep = Prepare(g, release, options);
  Timeline work = timeline.Snapshot();
  auto probe = [&](Time deadline) {
    ++result.probes;
    return RunBackwards(g, work, release, deadline, options, prep);
  };
  std::optional<DagPlan> best;
  while (true) {
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
    const Time mid = lo + (hi - lo) / 2;
    if (std::optional<DagPlan> p = probe(mid)) {
      hi = mid;
      best = std::move(p);
    } else {
      lo = mid;
    }
  }
  result.deadline = best->completion;  // the plan meets any deadline from its completion on
  result.plan = *std::move(best);
  return result;
}

}  // namespace resched
