#include "core/dag/ressched.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace resched {
const char* AllocationSourceName(AllocationSource source) {
  switch (source) {
    case AllocationSource::kOne:
      return "1";
    case AllocationSource::kAll:
      return "all";
    case AllocationSource::kHalf:
      return "half";
    case AllocationSource::kCpa:
      return "cpa";
    case AllocationSource::kCpar:
      return "cpar";
  }
  return "?";
}

std::vector<ResschedOptions> ResschedVariants() {
  std::vector<ResschedOptions> variants;
  for (AllocationSource bottom_level : {AllocationSource::kOne, AllocationSource::kAll,
                                        AllocationSource::kCpa, AllocationSource::kCpar}) {
    for (AllocationSource bound : {AllocationSource::kAll, AllocationSource::kHalf,
                                   AllocationSource::kCpa, AllocationSource::kCpar}) {
      ResschedOptions variant;
      variant.bottom_level = bottom_level;
      variant.bound = bound;
      variants.push_back(variant);
    }
  }
  return variants;
}

std::string ResschedName(const ResschedOptions& options) {
  return absl::StrFormat("bl_%s_bd_%s", AllocationSourceName(options.bottom_level),
                         AllocationSourceName(options.bound));
}

int EffectiveQ(int capacity, int q) { return q <= 0 ? capacity : std::clamp(q, 1, capacity); }

std::vector<int> AllocationWidths(const DagGraph& g, AllocationSource source, int q, CpaOptions cpa,
                                  const PlanControl& control) {
  const int p = g.capacity;
  switch (source) {
    case AllocationSource::kOne:
      return std::vector<int>(g.size(), 1);
    case AllocationSource::kAll:
      return std::vector<int>(g.size(), p);
    case AllocationSource::kHalf:
      return std::vector<int>(g.size(), std::max(1, p / 2));
    case AllocationSource::kCpa:
      return CpaAllocation(g, p, cpa, control);
    case AllocationSource::kCpar:
      return CpaAllocation(g, EffectiveQ(g.capacity, q), cpa, control);
  }
  return {};
}

std::optional<TaskReservation> EarliestCompletionUpTo(const WidthTable& w, int bound,
                                                      const Timeline& timeline, Time ready) {
  std::optional<TaskReservation> best;
  for (int i = w.IndexAtMost(bound); i >= 0; --i) {
    const Duration d = w.times[i];
    // Once no width left can run fast enough to beat the best completion, stop.
    if (best && ready + w.fastest[i] > best->end) break;
    if (best && ready + d > best->end) continue;
    const std::optional<Time> start = timeline.EarliestStart(ready, d, w.widths[i]);
    if (!start || *start > kTimeMax - d) continue;  // only after a hold that never ends
    // Ties go to fewer processors: a narrower width equal in completion replaces the best.
    if (!best || *start + d <= best->end)
      best = TaskReservation{w.widths[i], *start, *start + d, {}};
  }
  return best;
}

absl::StatusOr<DagPlan> PlanRessched(const DagGraph& g, const Timeline& timeline, Time release,
                                     const ResschedOptions& options, const PlanControl& control) {
  const absl::Status stopped = absl::CancelledError("RESSCHED was stopped");
  const std::vector<int> bl_widths =
      AllocationWidths(g, options.bottom_level, options.q, options.cpa, control);
  const std::vector<int> bounds =
      options.bound == options.bottom_level
          ? bl_widths
          : AllocationWidths(g, options.bound, options.q, options.cpa, control);
  if (control.Stop()) return stopped;
  const std::vector<int> order =
      ByDecreasingBottomLevel(g, BottomLevels(g, TimesFor(g, bl_widths)));

  Timeline work = timeline.Copy();
  DagPlan plan;
  plan.tasks.resize(g.size());
  for (int v : order) {
    if (control.Stop()) return stopped;
    Time ready = release;
    for (const Arc& p : g.preds[v]) ready = std::max(ready, plan.tasks[p.task].end + p.transfer);
    const std::optional<TaskReservation> r =
        EarliestCompletionUpTo(g.widths[v], bounds[v], work, ready);
    if (!r) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "task '%s': no allowed width up to %d processors ever fits", g.names[v], bounds[v]));
    }
    if (absl::StatusOr<ReservationId> id = work.Add(r->start, r->end, r->k); !id.ok()) {
      return id.status();
    }
    plan.tasks[v] = *r;
  }
  Summarize(plan);
  return plan;
}

}  // namespace resched
