#include "core/online/moldable_fit.h"

namespace resched {

std::optional<Allocation> EarliestCompletion(const Timeline& timeline, const RuntimeModel& model,
                                             Time not_before, Time start_limit) {
  std::optional<Allocation> best;
  for (int k : model.Widths(timeline.capacity())) {
    const Duration d = model.TimeOn(k);
    // A width whose run alone ends after the best completion cannot win.
    if (best && not_before + d >= best->end) continue;
    const auto start = timeline.EarliestStart(not_before, d, k);
    if (!start || *start > start_limit) continue;
    if (!best || *start + d < best->end) best = Allocation{k, *start, *start + d};
  }
  return best;
}

std::optional<Allocation> StartingAt(const Timeline& timeline, const RuntimeModel& model, Time t) {
  std::optional<Allocation> best;
  for (int k : model.Widths(timeline.capacity())) {
    const Duration d = model.TimeOn(k);
    if (best && t + d >= best->end) continue;
    if (timeline.MinFree(t, t + d) >= k) best = Allocation{k, t, t + d};
  }
  return best;
}

}  // namespace resched
