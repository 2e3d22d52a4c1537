// What the files of the reservation timeline share: the representation's invariants and costs,
// and the helpers over its nodes. Timeline's own files alone include it:
//   timeline.cc         construction, reservation records, the change record and the op log
//   timeline_tree.cc    the B+ tree: node pools, pinning keys, rebalancing, range adds
//   timeline_runs.cc    the run summaries kept in inner nodes for wide searches
//   timeline_search.cc  FreeAt, MinFree, EarliestStart, LatestStart, ForEachStep
//   timeline_check.cc   CheckInvariants
//   timeline_image.cc   Image and FromImage
//
// Invariants:
// - The leaves, left to right, hold one entry per breakpoint in increasing key order; entry x
//   is the segment [x.key, next key) and the last one runs to +infinity. A sentinel at
//   kTimeMin (pinned by one extra reference) guarantees that every instant >= kTimeMin has a
//   containing segment; instants before kTimeMin cannot be booked: their free is `capacity`.
// - All leaves are at depth height_. A node other than the root holds at least kLeafMin
//   entries (kInnerMin children); an inner root holds at least 2 children.
// - Child i of an inner node holds exactly its keys in [min_key[i], min_key[i + 1]) (the last
//   child: up to the node's own upper bound), so its segments cover exactly that time span.
//   The node caches per child a pending add and the child's min/max free with it included.
//   Values stored in a node are exact once the pending adds on its path from the root are
//   added (queries carry that sum as `acc`).
// - Mutations push the pending add of every child they enter or rebalance (Push), top-down, so
//   nothing is pending above a node while it changes. Hence a node's stored values are the
//   exact values as of the last mutation that entered it, a pending add only holds changes made
//   since then, and a pending add (or `acc`, a sum of them along a path) is the difference of
//   two exact values. Exact free values lie in [kFreeFloor, capacity] (Insert refuses to go
//   lower, Remove only undoes an Insert), so stored values stay in [kFreeFloor, kMaxCapacity]
//   and pending adds within +-(kMaxCapacity - kFreeFloor) = +-2^29: no int overflow, whatever
//   the sequence of splits and merges.
// - refs counts the reservations starting or ending at a key. Free capacity only changes at
//   such keys, so when refs drops to 0 the entry is erased and its predecessor's segment grows
//   over it with the same value. Underfull nodes borrow from or merge with a sibling at once
//   (no lazy rebuild): the height stays O(log n) for the current n.
// - Run summaries, kept once the tree is run_index_height_ tall: child i's entry also holds a
//   RunSummary at the thresholds n.max[i] - run_offsets_[g], computed from the child's own
//   entries (a leaf's segments; an inner node's children's summaries, each read at its nearest
//   threshold at or below, so a bound on the runs and never an underestimate). A summary
//   depends only on the child's keys, maxima and summaries, not on pending adds or minima, so
//   updates recompute summaries only up the path where those changed in a way the node above
//   reads (kShapeChanged, Matters), and a leaf's only when its max moved or a changed segment
//   crossed a threshold.
//
// Costs (n = number of breakpoints, h = height = O(log n / log kFanout), B = node size; every
// node visit is a linear scan of at most B keys in a few cache lines):
// - FreeAt: one root-to-leaf path, O(h B). MinFree: the two boundary paths of the window,
//   children in between count through their cached summaries: O(h B).
// - Add, ForceAdd: the MinFree check, two pins (insert the key or bump its count; splits run
//   up the path), one range-add (pending adds of the fully covered children along the two
//   boundary paths): O(h B). Remove: the range-add and two unpins (borrow/merge up the path):
//   O(h B). After the first path the others find their nodes in cache.
// - EarliestStart walks the segments from the one containing t0 in time order, but a child
//   that is uniformly free (min >= k) or uniformly blocked (max < k) is consumed as a whole
//   from the summary cached in its parent, and the walk stops as soon as the current free run
//   is d long. A mixed child whose span is shorter than d cannot hold a run of d, so only the
//   end of the open run (its first blocked segment) and its free suffix matter: two paths,
//   O(h B), however many gaps it holds. Only mixed children of span >= d are descended into.
//   So the walk costs O(h B) per maximal blocked stretch it crosses, and no more than O(h B)
//   per maximal mixed subtree shorter than d. Subtrees of one level are disjoint, so a walk over
//   a time span L meets at most L/d + 2 subtrees of span >= d per level: with g free runs too
//   short for the request on the way, the cost is O(min(g, h B (L/d + 2)) h B). When the
//   walk is long compared with d (a request that waits far behind a busy stretch), it is still
//   linear in L/d: the min/max summaries cannot tell, for a given k, how long a child's free
//   runs are. The run summaries can, for k near a child's max (wide requests): a mixed child
//   whose summary shows no run of d at a threshold at or below k is read like a short one,
//   and one whose last segment is below that threshold needs no suffix path. Such a request
//   crosses busy subtrees near the root in O(h B) each instead of descending into them.
// - Add and Remove with run summaries: the summaries of the changed entries up the paths, each
//   O(B kRunLevels), stopping where nothing they depend on changed.
// - LatestStart is the mirror walk, leftwards from the segment containing deadline - 1, with
//   the same cost (a mixed child shorter than d: its free suffix and free prefix), and it
//   gives up as soon as no run ending at or before the current point can start at or after t0.
// - ForEachStep: O(h B + steps).
#pragma once

#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/timeline/timeline.h"

namespace resched::timeline_internal {

// Sums of a time and a duration can leave int64 for extreme (but legal) inputs.
using Wide = __int128;

// ForceAdd may push free capacity below zero. Stored numbers stay within +-(kMaxCapacity -
// kFreeFloor) = +-2^29 (see above), so these bounds keep arithmetic inside int.
inline constexpr std::int64_t kFreeFloor = -(std::int64_t{1} << 28);
inline constexpr int kMaxCapacity = 1 << 28;

// Upper bound of the root's key span: above every key (keys are <= kTimeMax).
inline constexpr Time kNoKey = std::numeric_limits<Time>::max();
// "No such segment" in a run summary (Timeline::RunSummary).
inline constexpr Time kNoRun = kNoKey;

// Number of keys[0, count) that are <= key (resp. < key); keys are sorted. Branch-free: the
// arrays are short, and the comparisons are unpredictable.
template <std::size_t N>
int CountAtMost(const Time (&keys)[N], int count, Time key) {
  int c = 0;
  for (int j = 0; j < count; ++j) c += keys[j] <= key;
  return c;
}
template <std::size_t N>
int CountBelow(const Time (&keys)[N], int count, Time key) {
  int c = 0;
  for (int j = 0; j < count; ++j) c += keys[j] < key;
  return c;
}

// The largest of values[0, count).
template <std::size_t N>
int MaxOf(const int (&values)[N], int count) {
  int top = INT_MIN;
  for (int j = 0; j < count; ++j) top = std::max(top, values[j]);
  return top;
}

// Calls f(a.x, b.x) for every per-entry array x of two nodes of the same kind (leaves or
// inner nodes), so that moving entries is written once.
template <typename N, typename F>
void ForArrays(N& a, const N& b, F&& f) {
  if constexpr (requires { a.refs; }) {
    f(a.key, b.key);
    f(a.free, b.free);
    f(a.refs, b.refs);
  } else {
    f(a.min_key, b.min_key);
    f(a.lazy, b.lazy);
    f(a.min, b.min);
    f(a.max, b.max);
    f(a.child, b.child);
  }
}
// Copies src's entries [from, from + len) to dst's [to, to + len); dst may be src.
template <typename N>
void MoveArrays(N& dst, int to, const N& src, int from, int len) {
  ForArrays(dst, src, [&](auto& d, const auto& s) {
    std::memmove(d + to, s + from, static_cast<std::size_t>(len) * sizeof(d[0]));
  });
}

// Starts loading a block of run summaries.
template <typename Block>
void Prefetch(const Block& block) {
  const char* from = reinterpret_cast<const char*>(&block);
  for (std::size_t at = 0; at < sizeof block; at += 64) __builtin_prefetch(from + at);
}

}  // namespace resched::timeline_internal

namespace resched {

// The run summaries' small steps, which the tree's updates (Refresh, AddRange) and the searches
// run at every level: inline here. As calls into timeline_runs.cc they cost LatestStartWide and
// Remove at 1M 12-13 % (timeline_bench --benchmark_filter='BM_(LatestStartWide|Remove)/',
// alternating runs of the two builds).
// Recomputes the run summary of child i of n (height h); returns the thresholds it changed at.
inline int Timeline::RefreshRuns(Inner& n, int i, int h) {
  const RunSummary runs = SummarizeRuns(n.child[i], h - 1, n.max[i] - n.lazy[i]);
  RunSummary& stored = RunsOf(n).run[i];
  const int changed = ChangedRuns(runs, stored);
  if (changed != 0) stored = runs;
  return changed;
}

inline int Timeline::ChangedRuns(const RunSummary& a, const RunSummary& b) {
  int changed = 0;
  for (int g = 0; g < kRunLevels; ++g) {
    if (a.first_blocked[g] != b.first_blocked[g] || a.free_from[g] != b.free_from[g] ||
        a.longest[g] != b.longest[g]) {
      changed |= kRunsChanged << g;
    }
  }
  return changed;
}

inline bool Timeline::Matters(const Inner& n, int i, int entry, int old_max, int top) const {
  if ((entry & kShapeChanged) != 0) {
    // Below every threshold of n, before and after, it is read as one blocked stretch.
    return std::max(old_max, n.max[i]) >= top - run_offsets_[kRunLevels - 1];
  }
  for (const int offset : run_offsets_) {
    const int level = top - offset;
    if (n.max[i] < level) continue;
    const int read = RunLevelAbove(n.max[i] - level);  // as SummarizeInnerRuns reads it
    if (read < kRunLevels && (entry & (kRunsChanged << read)) != 0) return true;
  }
  return false;
}

inline int Timeline::RunLevelAbove(int offset) const {
  int g = 0;
  for (int o : run_offsets_) g += o < offset;  // branch-free: offsets increase
  return g;
}

}  // namespace resched
