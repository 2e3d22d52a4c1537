// The order in which processor groups of different speeds are tried wherever a tie between
// them is settled (jobs, DAGs, holds of any group): the slower group first, so that fast
// processors stay free for the work that gains from them; equal speeds in listed order.
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/model/cluster.h"

namespace resched {

// Group indices by speed, ascending; ties in listed order.
inline std::vector<int> GroupsSlowestFirst(const std::vector<ProcessorGroup>& groups) {
  std::vector<int> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return groups[a].speed < groups[b].speed; });
  return order;
}

}  // namespace resched
