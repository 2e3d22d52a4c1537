// Where a mapping planner (HEFT, Barbosa) may put a task: processor ids follow the groups, and
// inside group g, processor first(g) + i is free over [s, e) only if i < MinFree(s, e) of the
// group's timeline. With one group that is heft.h's convention for a count-based timeline: at
// any instant the plan then uses at most free(t) processors of each group, so its bookings fit.
// On a cluster of several speeds the groups are its processor groups, with what each has free
// (group_free.h).
#pragma once

#include <optional>
#include <vector>

#include "core/model/time.h"
#include "core/timeline/timeline.h"

namespace resched {

class ProcessorFree {
 public:
  // One group of `processors`, free where `timeline` says (null: always free, a dedicated
  // cluster). A non-null timeline must have `processors` as its capacity.
  ProcessorFree(int processors, const Timeline* timeline);
  // One group per timeline, in order; none may be null.
  explicit ProcessorFree(std::vector<const Timeline*> groups);

  int processors() const { return first_.back(); }
  int groups() const { return static_cast<int>(timelines_.size()); }
  int first(int group) const { return first_[group]; }
  int count(int group) const { return first_[group + 1] - first_[group]; }
  int group_of(int processor) const { return group_of_[processor]; }
  const Timeline* timeline(int group) const { return timelines_[group]; }

  // The earliest s >= from such that processor j is free over [s, s + length); nullopt if the
  // group's bookings never leave it free that long.
  std::optional<Time> EarliestFree(int j, Time from, Duration length) const;
  bool FreeOver(int j, Time start, Time end) const;

 private:
  std::vector<const Timeline*> timelines_;  // per group; null: always free
  std::vector<int> first_;                  // per group, and the total last
  std::vector<int> group_of_;               // per processor
};

}  // namespace resched
