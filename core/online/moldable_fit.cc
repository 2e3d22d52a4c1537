#include "core/online/moldable_fit.h"

#include <algorithm>

namespace resched {

std::optional<Allocation> EarliestCompletion(const Timeline& timeline, const RuntimeModel& model,
                                             Time not_before, Time start_limit,
                                             StartBounds* bounds) {
  std::optional<Allocation> best;
  for (int k : model.Widths(timeline.capacity())) {
    const Duration d = model.TimeOn(k);
    const Time from =
        bounds != nullptr ? bounds->SearchFrom(timeline, k, d, not_before) : not_before;
    // A width whose run, from its first possible start, ends after the best completion cannot
    // win.
    if (best && from + d >= best->end) continue;
    // Widths come in increasing order, so this one must end strictly earlier than the best:
    // its search stops at the last start that would (a wide request otherwise walks the whole
    // backlog to a start far behind the answer in hand).
    const Time limit = best ? std::min(start_limit, best->end - d - 1) : start_limit;
    const auto start = timeline.EarliestStart(from, d, k, limit);
    if (bounds != nullptr && from <= limit) {
      bounds->Learn(timeline, k, d, from, start ? *start : limit + 1);
    }
    if (start) best = Allocation{k, *start, *start + d};
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
