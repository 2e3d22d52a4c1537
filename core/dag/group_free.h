// What each processor group of a cluster of several speeds has free for a DAG's tasks.
//
// On groups of different speeds (Barbosa & Monteiro §3's related machines) a booking either
// belongs to one group (a job placed in it, a hold or a DAG task naming it) or to none (a hold
// of any group): the cluster's timeline holds them all, and each group's own timeline holds its
// own. At every instant the bookings of no group take processors from some groups; which ones
// is ours to choose, since they are only counted. They are taken from the slowest groups first,
// so a DAG planned on the result finds the fast processors wherever they are free.
#pragma once

#include <vector>

#include "core/model/cluster.h"
#include "core/model/time.h"
#include "core/timeline/timeline.h"

namespace resched {

// `own[g]` has group g's capacity and its own bookings; `shared` has the cluster's capacity
// (the groups' sum) and every booking. Returns, per group, a timeline whose free processors
// from `from` on are the group's own free ones less its share of the bookings of no group;
// at every instant t >= from the groups' free processors sum to shared.FreeAt(t) (when that is
// >= 0) and none exceeds its own. The returned timelines are for searches only: their bookings
// are the shares, not reservations anyone holds.
std::vector<Timeline> SplitFreeAmongGroups(const Timeline& shared, std::vector<Timeline> own,
                                           const std::vector<ProcessorGroup>& groups, Time from);

}  // namespace resched
