#include "core/dag/group_free.h"

#include <algorithm>

#include "core/model/group_order.h"

namespace resched {

std::vector<Timeline> SplitFreeAmongGroups(const Timeline& shared, std::vector<Timeline> own,
                                           const std::vector<ProcessorGroup>& groups, Time from) {
  const std::vector<int> slowest_first = GroupsSlowestFirst(groups);
  // Every instant where some free count changes; between two of them nothing does.
  std::vector<Time> cuts;
  auto collect = [&](const Timeline& t) {
    t.ForEachStep(from, kTimeMax, [&](const TimelineStep& step) { cuts.push_back(step.start); });
  };
  collect(shared);
  for (const Timeline& t : own) collect(t);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<int> free(own.size());
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    const Time start = cuts[i];
    const Time end = i + 1 < cuts.size() ? cuts[i + 1] : kTimeMax;
    int unowned = -std::max(0, shared.FreeAt(start));
    for (std::size_t g = 0; g < own.size(); ++g) {
      free[g] = std::max(0, own[g].FreeAt(start));
      unowned += free[g];
    }
    for (int g : slowest_first) {
      if (unowned <= 0) break;
      const int take = std::min(unowned, free[g]);
      if (take > 0) (void)own[g].ForceAdd(start, end, take);  // take <= free: never over
      unowned -= take;
    }
  }
  return own;
}

}  // namespace resched
