#include "core/dag/cpa.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace resched {
std::vector<int> PrecedenceLevels(const DagGraph& g) {
  std::vector<int> level(g.size(), 0);
  for (int v : g.topo) {
    for (const Arc& p : g.preds[v]) level[v] = std::max(level[v], level[p.task] + 1);
  }
  return level;
}

namespace {

// Top and bottom levels kept current while single task times drop: each change recomputes only
// the ancestors (bottom levels) and descendants (top levels) whose value really moves, instead
// of two passes over the whole DAG per CPA step.
class PathLengths {
 public:
  PathLengths(const DagGraph& g, std::vector<Duration> time)
      : g_(g),
        time_(std::move(time)),
        bl_(BottomLevels(g, time_)),
        tl_(TopLevels(g, time_)),
        position_(g.size()),
        dirty_(g.size(), false) {
    for (int i = 0; i < g.size(); ++i) position_[g.topo[i]] = i;
  }

  Duration Through(int v) const { return tl_[v] + bl_[v]; }

  void SetTime(int v, Duration t) {
    time_[v] = t;
    dirty_[v] = true;
    for (int p = position_[v]; p >= 0; --p) {
      const int u = g_.topo[p];
      if (!dirty_[u]) continue;
      dirty_[u] = false;
      Duration tail = 0;
      for (const Arc& s : g_.succs[u]) tail = std::max(tail, s.transfer + bl_[s.task]);
      if (time_[u] + tail == bl_[u]) continue;
      bl_[u] = time_[u] + tail;
      for (const Arc& a : g_.preds[u]) dirty_[a.task] = true;
    }
    for (const Arc& s : g_.succs[v]) dirty_[s.task] = true;
    for (int p = position_[v] + 1; p < g_.size(); ++p) {
      const int u = g_.topo[p];
      if (!dirty_[u]) continue;
      dirty_[u] = false;
      Duration head = 0;
      for (const Arc& a : g_.preds[u])
        head = std::max(head, tl_[a.task] + time_[a.task] + a.transfer);
      if (head == tl_[u]) continue;
      tl_[u] = head;
      for (const Arc& s : g_.succs[u]) dirty_[s.task] = true;
    }
  }

 private:
  const DagGraph& g_;
  std::vector<Duration> time_;
  std::vector<Duration> bl_;
  std::vector<Duration> tl_;
  std::vector<int> position_;
  std::vector<char> dirty_;  // char, not bool: no bit masking in the hot loops
};

}  // namespace

std::vector<int> CpaAllocation(const DagGraph& g, int processors, CpaOptions options,
                               const PlanControl& control) {
  const int n = g.size();
  std::vector<int> index(n, 0);
  std::vector<Duration> time(n);
  double area = 0;  // sum of p * t(p), in microsecond-processors
  for (int i = 0; i < n; ++i) {
    time[i] = g.widths[i].times[0];
    area += static_cast<double>(g.widths[i].widths[0]) * static_cast<double>(time[i]);
  }
  const std::vector<int> level = PrecedenceLevels(g);
  std::vector<long> level_sum(n, 0);
  for (int i = 0; i < n; ++i) level_sum[level[i]] += g.widths[i].widths[0];

  // The gain and extra processors of each task's next step, refreshed only when it grows.
  std::vector<double> gain(n);
  std::vector<int> grow(n);
  auto next_step = [&](int i) {
    const WidthTable& w = g.widths[i];
    const int next = index[i] + 1;
    if (next >= static_cast<int>(w.widths.size()) || w.widths[next] > processors) {
      gain[i] = 0;  // cannot grow: never chosen
      return;
    }
    grow[i] = w.widths[next] - w.widths[index[i]];
    gain[i] = static_cast<double>(w.times[index[i]]) / w.widths[index[i]] -
              static_cast<double>(w.times[next]) / w.widths[next];
  };
  for (int i = 0; i < n; ++i) next_step(i);

  PathLengths paths(g, time);
  while (!control.Stop()) {
    Duration critical = 0;
    for (int i = 0; i < n; ++i) critical = std::max(critical, paths.Through(i));
    if (static_cast<double>(critical) <= area / processors) break;

    int best = -1;
    double best_gain = 0;
    for (int i = 0; i < n; ++i) {
      if (gain[i] <= best_gain || paths.Through(i) != critical) continue;
      if (options.level_bound && level_sum[level[i]] + grow[i] > processors) continue;
      best_gain = gain[i];
      best = i;
    }
    if (best < 0) break;
    const WidthTable& w = g.widths[best];
    const int from = index[best];
    area -= static_cast<double>(w.widths[from]) * static_cast<double>(w.times[from]);
    area += static_cast<double>(w.widths[from + 1]) * static_cast<double>(w.times[from + 1]);
    level_sum[level[best]] += w.widths[from + 1] - w.widths[from];
    index[best] = from + 1;
    next_step(best);
    paths.SetTime(best, w.times[from + 1]);
  }
  std::vector<int> widths(n);
  for (int i = 0; i < n; ++i) widths[i] = g.widths[i].widths[index[i]];
  return widths;
}

absl::Status MapWithWidths(const DagGraph& g, const std::vector<int>& order,
                           const std::vector<int>& widths, Time release, Timeline& timeline,
                           DagPlan& plan) {
  plan.tasks.resize(g.size());
  for (int v : order) {
    Time ready = release;
    for (const Arc& p : g.preds[v]) {
      const TaskReservation& r = plan.tasks[p.task];
      if (r.k > 0) ready = std::max(ready, r.end + p.transfer);
    }
    const WidthTable& w = g.widths[v];
    const int i = w.IndexAtMost(widths[v]);
    const int k = w.widths[i];
    const Duration d = w.times[i];
    const std::optional<Time> start = timeline.EarliestStart(ready, d, k);
    if (!start || *start > kTimeMax - d) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("task '%s' never finds %d free processors for %d us", g.names[v], k, d));
    }
    if (absl::StatusOr<ReservationId> id = timeline.Add(*start, *start + d, k); !id.ok()) {
      return id.status();
    }
    plan.tasks[v] = TaskReservation{k, *start, *start + d, {}};
  }
  return absl::OkStatus();
}

absl::StatusOr<DagPlan> PlanCpa(const DagGraph& g, const Timeline& timeline, Time release,
                                CpaOptions options, const PlanControl& control) {
  const std::vector<int> widths = CpaAllocation(g, timeline.capacity(), options, control);
  if (control.Stop()) return absl::CancelledError("CPA was stopped");
  const std::vector<int> order = ByDecreasingBottomLevel(g, BottomLevels(g, TimesFor(g, widths)));
  Timeline work = timeline.Copy();
  DagPlan plan;
  if (absl::Status s = MapWithWidths(g, order, widths, release, work, plan); !s.ok()) return s;
  Summarize(plan);
  return plan;
}

}  // namespace resched
