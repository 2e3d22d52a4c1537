// The timeline's queries: FreeAt, MinFree, EarliestStart, LatestStart, ForEachStep.
#include <algorithm>
#include <climits>
#include <limits>

#include "core/timeline/timeline.h"
#include "core/timeline/timeline_internal.h"

namespace resched {

using namespace timeline_internal;  // NOLINT: the timeline's own helpers

// ---------------------------------------------------------------------------------------------
// Search states.

struct Timeline::EarliestWalk {
  Time t0;
  Wide d;
  int k;
  Time start_limit;          // a run starting later is no answer: the walk stops there
  std::optional<Time> cand;  // start of the current free run, if the run is free
  bool done = false;

  // Opens a free run at `start`, or ends the walk without an answer when it starts too late
  // (every later run starts later still).
  void Open(Time start) {
    if (start > start_limit) {
      cand.reset();
      done = true;
    } else {
      cand = start;
    }
  }

  // True when the free run that starts at cand already covers [cand, cand + d) by `key`.
  bool Reaches(Time key) const { return cand && Wide{key} >= Wide{*cand} + d; }
  // Consumes the segments [from, count) of a leaf whose pending adds above sum to acc (every
  // key > t0). Two tight loops, one for the next free segment and one for the end of the open
  // run: a search on a busy profile spends most of its time here.
  void Segments(const Time* key, const int* free, int from, int count, int acc) {
    const int need = k - acc;  // free + acc >= k
    int j = from;
    while (j < count) {
      if (!cand) {
        while (j < count && free[j] < need) ++j;
        if (j == count) return;
        Open(key[j++]);
        if (done) return;
      }
      // Keys are <= kTimeMax, so a reach saturated at the int64 maximum is never met.
      const Time reach =
          static_cast<Time>(std::min(Wide{*cand} + d, Wide{std::numeric_limits<Time>::max()}));
      while (j < count && free[j] >= need && key[j] < reach) ++j;
      if (j == count) return;
      if (key[j] >= reach) {
        done = true;
        return;
      }
      cand.reset();
      ++j;
    }
  }
};

struct Timeline::LatestWalk {
  Time t0;
  Time deadline;
  Wide d;
  int k;
  std::optional<Time> cand_end;  // end of the current free run (clipped to the deadline)
  Time right_end;                // start of what has been consumed: end of the next segment
  bool done = false;
  std::optional<Time> answer = std::nullopt;

  // The free run ending at cand_end reaches back to `start`: done if that is d long.
  bool Fits(Time start) {
    if (Wide{start} > Wide{*cand_end} - d) return false;
    done = true;
    answer = static_cast<Time>(Wide{*cand_end} - d);  // >= t0, checked by Prune
    return true;
  }
  // Every later answer is at most (cand_end or right_end) - d: stop once that is before t0.
  void Prune() {
    const Time bound = cand_end ? *cand_end : right_end;
    if (Wide{bound} - d < Wide{t0}) done = true;
  }
  // Consumes a stretch [start, right_end) that is uniformly free or uniformly blocked.
  void Stretch(Time start, bool free) {
    if (!free) {
      cand_end.reset();
    } else {
      if (!cand_end) cand_end = right_end;
      if (Fits(start)) return;
    }
    right_end = start;
    Prune();
  }
  // Consumes the segments top, top - 1, ..., 0 of a leaf whose pending adds above sum to acc,
  // a maximal group of segments on the same side of k at a time (one stretch: a fit found in
  // a group is found at its leftmost segment, with the same answer).
  void Segments(const Time* key, const int* free, int top, int acc) {
    const int need = k - acc;  // free + acc >= k
    for (int j = top; j >= 0 && !done; --j) {
      const bool is_free = free[j] >= need;
      while (j > 0 && (free[j - 1] >= need) == is_free) --j;
      Stretch(key[j], is_free);
    }
  }
};

struct Timeline::StepWalk {
  Time from;
  Time to;
  const std::function<void(const TimelineStep&)>* fn;
  Time start;  // the pending step, emitted when the value changes
  int free;

  void Breakpoint(Time key, int value) {
    if (value == free) return;  // steps are maximal
    (*fn)(TimelineStep{start, key, free});
    start = key;
    free = value;
  }
};

// ---------------------------------------------------------------------------------------------
// Point and range queries.

int Timeline::FreeAt(Time t) const {
  if (t < kTimeMin) return capacity_;  // before the sentinel nothing can be booked
  int acc = 0;
  Index node = root_;
  for (int h = height_; h > 0; --h) {
    const Inner& n = inners_[node];
    const int i = CountAtMost(n.min_key, n.count, t) - 1;
    acc += n.lazy[i];
    node = n.child[i];
  }
  const Leaf& l = leaves_[node];
  return l.free[CountAtMost(l.key, l.count, t) - 1] + acc;
}

int Timeline::MinFree(Time start, Time end) const {
  if (start >= end) return capacity_;
  int best = start < kTimeMin ? capacity_ : INT_MAX;
  if (end > kTimeMin) SegmentMin(root_, height_, 0, start, end, kNoKey, best);
  return best;
}

// Lowers best to the minimum free over the segments below node (height h, keys below
// node_hi) that intersect [lo, hi). Children inside the window count through their summaries.
void Timeline::SegmentMin(Index node, int h, int acc, Time lo, Time hi, Time node_hi,
                          int& best) const {
  if (h == 0) {
    const Leaf& l = leaves_[node];
    // From the segment containing lo (if it is in this leaf) to the last one starting < hi.
    for (int j = std::max(0, CountAtMost(l.key, l.count, lo) - 1); j < l.count && l.key[j] < hi;
         ++j) {
      best = std::min(best, l.free[j] + acc);
    }
    return;
  }
  const Inner& n = inners_[node];
  for (int i = std::max(0, CountAtMost(n.min_key, n.count, lo) - 1);
       i < n.count && n.min_key[i] < hi; ++i) {
    const Time child_hi = ChildEnd(n, i, node_hi);
    if (lo <= n.min_key[i] && child_hi <= hi) {
      best = std::min(best, n.min[i] + acc);
    } else {
      SegmentMin(n.child[i], h - 1, acc + n.lazy[i], lo, hi, child_hi, best);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// EarliestStart: one left-to-right walk from the segment containing t0.

std::optional<Time> Timeline::EarliestStart(Time t0, Duration d, int k) const {
  return EarliestStart(t0, d, k, kTimeMax);
}

std::optional<Time> Timeline::EarliestStart(Time t0, Duration d, int k, Time start_limit) const {
  if (k < 0 || d < 0 || t0 > start_limit) return std::nullopt;
  if (d == 0 || k == 0) return t0;
  if (k > capacity_) return std::nullopt;
  EarliestWalk w{t0, Wide{d}, k, start_limit, std::nullopt};
  EarliestFrom(root_, height_, 0, kNoKey, w);
  // Not done: the run that reaches the last segment (free = capacity) never ends.
  return w.cand;
}

// Consumes, in time order, the segments below node (height h, keys below node_hi) from the one
// containing t0.
void Timeline::EarliestFrom(Index node, int h, int acc, Time node_hi, EarliestWalk& w) const {
  if (h == 0) {
    const Leaf& l = leaves_[node];
    const int p = CountAtMost(l.key, l.count, w.t0);  // entries [0, p) start at or before t0
    // The segment containing t0 (p == 0 only before the sentinel, where all is free).
    if ((p > 0 ? l.free[p - 1] + acc : capacity_) >= w.k) w.cand = w.t0;
    w.Segments(l.key, l.free, p, l.count, acc);
    return;
  }
  const Inner& n = inners_[node];
  const int i = std::max(0, CountAtMost(n.min_key, n.count, w.t0) - 1);
  EarliestFrom(n.child[i], h - 1, acc + n.lazy[i], ChildEnd(n, i, node_hi), w);
  for (int j = i + 1; j < n.count && !w.done; ++j) {
    EarliestChild(n, j, h, acc, ChildEnd(n, j, node_hi), w);
  }
}

// Consumes all of child i of n (height h; every key > t0; its span ends at hi): as a whole, from
// its summary alone, when it is uniformly free or uniformly blocked; from its two boundary paths
// when it is shorter than d; otherwise descends.
void Timeline::EarliestChild(const Inner& n, int i, int h, int acc, Time hi,
                             EarliestWalk& w) const {
  const Time first = n.min_key[i];
  if (w.Reaches(first)) {
    w.done = true;
    return;
  }
  if (!w.cand && first > w.start_limit) {
    w.done = true;  // any run from here on starts too late
    return;
  }
  if (n.max[i] + acc < w.k) {
    w.cand.reset();
    return;
  }
  if (n.min[i] + acc >= w.k) {
    if (!w.cand) w.cand = first;
    return;
  }
  const RunSummary& runs = RunsOf(n).run[i];
  const int level = RunLevelAbove(n.max[i] + acc - w.k);
  acc += n.lazy[i];
  Time first_blocked = kNoRun;  // bounds at a threshold <= k, when the summary has one
  Time free_from = kNoRun;
  bool short_runs = Wide{hi} - first < w.d;
  if (runs_kept_ && level < kRunLevels && runs.first_blocked[level] != kNoRun) {
    first_blocked = runs.first_blocked[level];
    free_from = runs.free_from[level];
    const Wide suffix = free_from == kNoRun ? 0 : Wide{hi} - free_from;
    short_runs = short_runs ||
                 (runs.longest[level] < w.d && Wide{first_blocked} - first < w.d && suffix < w.d);
  }
  if (short_runs) {
    // A run of d cannot lie inside the child, so its gaps do not matter: either the open run
    // lasts to the child's first blocked segment, or the next candidate is its free suffix.
    if (w.cand && w.Reaches(first_blocked) &&
        w.Reaches(FirstBlocked(n.child[i], h - 1, acc, w.k))) {
      w.done = true;
      return;
    }
    if (first_blocked != kNoRun && free_from == kNoRun) {
      w.cand.reset();  // blocked at a lower threshold, so at k too
      return;
    }
    const Time suffix = LastBlockedEnd(n.child[i], h - 1, acc, w.k, hi);
    if (suffix < hi) {
      w.Open(suffix);
    } else {
      w.cand.reset();
    }
    return;
  }
  if (h == 1) {
    const Leaf& l = leaves_[n.child[i]];
    w.Segments(l.key, l.free, 0, l.count, acc);
    return;
  }
  const Inner& c = inners_[n.child[i]];
  for (int j = 0; j < c.count && !w.done; ++j)
    EarliestChild(c, j, h - 1, acc, ChildEnd(c, j, hi), w);
}

// Start of the first segment below node (height h) with free < k; the node must hold one.
Time Timeline::FirstBlocked(Index node, int h, int acc, int k) const {
  for (; h > 0; --h) {
    const Inner& n = inners_[node];
    int j = 0;
    while (n.min[j] + acc >= k) ++j;
    acc += n.lazy[j];
    node = n.child[j];
  }
  const Leaf& l = leaves_[node];
  int j = 0;
  while (l.free[j] + acc >= k) ++j;
  return l.key[j];
}

// End of the last segment below node (height h, keys below node_hi) with free < k; the node
// must hold one.
Time Timeline::LastBlockedEnd(Index node, int h, int acc, int k, Time node_hi) const {
  for (; h > 0; --h) {
    const Inner& n = inners_[node];
    int j = n.count - 1;
    while (n.min[j] + acc >= k) --j;
    node_hi = ChildEnd(n, j, node_hi);
    acc += n.lazy[j];
    node = n.child[j];
  }
  const Leaf& l = leaves_[node];
  int j = l.count - 1;
  while (l.free[j] + acc >= k) --j;
  return j + 1 < l.count ? l.key[j + 1] : node_hi;
}

// ---------------------------------------------------------------------------------------------
// LatestStart: the mirror walk, right to left from the segment containing deadline - 1.

std::optional<Time> Timeline::LatestStart(Time t0, Time deadline, Duration d, int k) const {
  if (k < 0 || d < 0) return std::nullopt;
  const Wide latest = Wide{deadline} - d;
  if (latest < Wide{t0}) return std::nullopt;
  if (d == 0 || k == 0) return static_cast<Time>(latest);
  if (k > capacity_) return std::nullopt;
  LatestWalk w{t0, deadline, Wide{d}, k, std::nullopt, deadline};
  LatestBefore(root_, height_, 0, w);
  if (w.done) return w.answer;
  // Every breakpoint before the deadline was consumed; what lies before right_end (kTimeMin,
  // or the deadline itself) cannot be booked, so it is free and the run extends to -infinity.
  if (!w.cand_end) w.cand_end = w.right_end;
  const Wide answer = Wide{*w.cand_end} - d;
  if (answer < Wide{t0}) return std::nullopt;
  return static_cast<Time>(answer);
}

// Consumes, right to left, the segments below node (height h) that start before the deadline
// (the first one consumed contains deadline - 1, so right_end starts at the deadline).
void Timeline::LatestBefore(Index node, int h, int acc, LatestWalk& w) const {
  if (h == 0) {
    const Leaf& l = leaves_[node];
    w.Segments(l.key, l.free, CountBelow(l.key, l.count, w.deadline) - 1, acc);
    return;
  }
  const Inner& n = inners_[node];
  const int i = CountBelow(n.min_key, n.count, w.deadline) - 1;
  if (i < 0) return;  // the deadline is at or before the sentinel
  LatestBefore(n.child[i], h - 1, acc + n.lazy[i], w);
  for (int j = i - 1; j >= 0 && !w.done; --j) LatestChild(n, j, h, acc, w);
}

// Consumes all of child i of n (height h), whose span ends at w.right_end, right to left; the
// mirror of EarliestChild.
void Timeline::LatestChild(const Inner& n, int i, int h, int acc, LatestWalk& w) const {
  const Time first = n.min_key[i];
  if (n.max[i] + acc < w.k) return w.Stretch(first, false);
  if (n.min[i] + acc >= w.k) return w.Stretch(first, true);
  acc += n.lazy[i];
  if (Wide{w.right_end} - first < w.d) {
    // No run of d lies inside the child: only its free suffix (which may finish the open run)
    // and its free prefix (which the next child may extend) matter; what is between them
    // counts as blocked.
    const Time suffix = LastBlockedEnd(n.child[i], h - 1, acc, w.k, w.right_end);
    if (suffix < w.right_end) {
      w.Stretch(suffix, true);
      if (w.done) return;
    }
    const Time prefix_end = FirstBlocked(n.child[i], h - 1, acc, w.k);
    w.Stretch(prefix_end, false);
    if (w.done || prefix_end == first) return;
    return w.Stretch(first, true);
  }
  if (h == 1) {
    const Leaf& l = leaves_[n.child[i]];
    w.Segments(l.key, l.free, l.count - 1, acc);
    return;
  }
  const Inner& c = inners_[n.child[i]];
  for (int j = c.count - 1; j >= 0 && !w.done; --j) LatestChild(c, j, h - 1, acc, w);
}

// ---------------------------------------------------------------------------------------------
// ForEachStep.

void Timeline::ForEachStep(Time from, Time to,
                           const std::function<void(const TimelineStep&)>& fn) const {
  if (from >= to) return;
  StepWalk w{from, to, &fn, from, FreeAt(from)};
  StepRange(root_, height_, 0, w);
  fn(TimelineStep{w.start, to, w.free});
}

// Visits, in order, the breakpoints below node (height h) with key in (from, to).
void Timeline::StepRange(Index node, int h, int acc, StepWalk& w) const {
  if (h == 0) {
    const Leaf& l = leaves_[node];
    for (int j = CountAtMost(l.key, l.count, w.from); j < l.count && l.key[j] < w.to; ++j) {
      w.Breakpoint(l.key[j], l.free[j] + acc);
    }
    return;
  }
  const Inner& n = inners_[node];
  for (int i = std::max(0, CountAtMost(n.min_key, n.count, w.from) - 1);
       i < n.count && n.min_key[i] < w.to; ++i) {
    StepRange(n.child[i], h - 1, acc + n.lazy[i], w);
  }
}

}  // namespace resched
