// A brute-force reservation timeline used as the oracle of the differential test: a list of
// reservations and a step profile rebuilt from scratch (sorted deltas) after every change.
// Searches try every candidate start and check each window directly; nothing is clever.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

#include "core/model/time.h"
#include "core/timeline/timeline.h"

namespace resched {

// For comparing and printing steps in assertions (found by argument-dependent lookup).
inline bool operator==(const TimelineStep& a, const TimelineStep& b) {
  return a.start == b.start && a.end == b.end && a.free == b.free;
}
inline void PrintTo(const TimelineStep& s, std::ostream* os) {
  *os << "[" << s.start << ", " << s.end << "): " << s.free;
}

namespace reference {

class ReferenceTimeline {
 public:
  explicit ReferenceTimeline(int capacity) : capacity_(capacity) {}

  int capacity() const { return capacity_; }
  std::size_t size() const { return reservations_.size(); }
  const std::map<ReservationId, Allocation>& reservations() const { return reservations_; }

  void Add(ReservationId id, Time start, Time end, int k) {
    reservations_[id] = Allocation{k, start, end};
    dirty_ = true;
  }
  bool Remove(ReservationId id) {
    dirty_ = true;
    return reservations_.erase(id) > 0;
  }

  // free(t) by summing every reservation active at t.
  int FreeBySum(Time t) const {
    int free = capacity_;
    for (const auto& [id, r] : reservations_) {
      if (r.start <= t && t < r.end) free -= r.k;
    }
    return free;
  }

  // free(t) from the profile (same value as FreeBySum, faster).
  int FreeAt(Time t) const {
    const auto& p = Profile();
    auto it =
        std::upper_bound(p.begin(), p.end(), std::make_pair(t, std::numeric_limits<int>::max()));
    return it == p.begin() ? capacity_ : std::prev(it)->second;
  }

  // Minimum of free at start and at every breakpoint inside (start, end).
  int MinFree(Time start, Time end) const {
    if (start >= end) return capacity_;
    int best = FreeAt(start);
    const auto& p = Profile();
    auto it = std::upper_bound(p.begin(), p.end(),
                               std::make_pair(start, std::numeric_limits<int>::max()));
    for (; it != p.end() && it->first < end; ++it) best = std::min(best, it->second);
    return best;
  }

  std::optional<Time> EarliestStart(Time t0, Duration d, int k) const {
    if (k < 0 || d < 0) return std::nullopt;
    if (d == 0 || k == 0) return t0;
    if (k > capacity_) return std::nullopt;
    // A feasible window starts at t0 or where free rises: at a reservation's end.
    std::vector<Time> candidates = {t0};
    for (const auto& [id, r] : reservations_) {
      if (r.end >= t0) candidates.push_back(r.end);
    }
    std::sort(candidates.begin(), candidates.end());
    for (Time s : candidates) {
      if (MinFree(s, SatAdd(s, d)) >= k) return s;
    }
    return std::nullopt;
  }

  std::optional<Time> LatestStart(Time t0, Time deadline, Duration d, int k) const {
    if (k < 0 || d < 0) return std::nullopt;
    const Time latest = deadline - d;
    if (latest < t0) return std::nullopt;
    if (d == 0 || k == 0) return latest;
    if (k > capacity_) return std::nullopt;
    // A latest window ends at the deadline or where free drops: at a reservation's start.
    std::vector<Time> candidates = {latest};
    for (const auto& [id, r] : reservations_) {
      candidates.push_back(std::clamp(r.start - d, t0, latest));
    }
    std::sort(candidates.rbegin(), candidates.rend());
    for (Time s : candidates) {
      if (MinFree(s, s + d) >= k) return s;
    }
    return std::nullopt;
  }

  // Maximal steps over [from, to), clipped.
  std::vector<TimelineStep> Steps(Time from, Time to) const {
    std::vector<TimelineStep> steps;
    if (from >= to) return steps;
    steps.push_back(TimelineStep{from, to, FreeAt(from)});
    for (const auto& [t, free] : Profile()) {
      if (t <= from || t >= to) continue;
      if (free == steps.back().free) continue;
      steps.back().end = t;
      steps.push_back(TimelineStep{t, to, free});
    }
    return steps;
  }

 private:
  static Time SatAdd(Time a, Duration d) {
    return a > std::numeric_limits<Time>::max() - d ? std::numeric_limits<Time>::max() : a + d;
  }

  // (breakpoint, free from there on), sorted by time, rebuilt after every change.
  const std::vector<std::pair<Time, int>>& Profile() const {
    if (!dirty_) return profile_;
    std::map<Time, int> delta;
    for (const auto& [id, r] : reservations_) {
      delta[r.start] -= r.k;
      delta[r.end] += r.k;
    }
    profile_.clear();
    int free = capacity_;
    for (const auto& [t, change] : delta) {
      free += change;
      profile_.emplace_back(t, free);
    }
    dirty_ = false;
    return profile_;
  }

  int capacity_;
  std::map<ReservationId, Allocation> reservations_;
  mutable std::vector<std::pair<Time, int>> profile_;
  mutable bool dirty_ = false;
};

}  // namespace reference
}  // namespace resched
