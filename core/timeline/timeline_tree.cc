// The timeline's B+ tree: node pools, pinning and unpinning keys, rebalancing, range adds.
#include <algorithm>
#include <climits>
#include <cstring>
#include <type_traits>

#include "core/timeline/timeline.h"
#include "core/timeline/timeline_internal.h"

namespace resched {

using namespace timeline_internal;  // NOLINT: the timeline's own helpers

// ---------------------------------------------------------------------------------------------
// Tree primitives.

Timeline::Index Timeline::NewLeaf() {
  if (!free_leaves_.empty()) {
    const Index slot = free_leaves_.back();
    free_leaves_.pop_back();
    leaves_[slot].count = 0;
    return slot;
  }
  leaves_.emplace_back();
  return static_cast<Index>(leaves_.size() - 1);
}

Timeline::Index Timeline::NewInner() {
  if (!free_inners_.empty()) {
    const Index slot = free_inners_.back();
    free_inners_.pop_back();
    inners_[slot].count = 0;
    return slot;
  }
  inners_.emplace_back();
  run_blocks_.emplace_back();
  return static_cast<Index>(inners_.size() - 1);
}

int Timeline::Count(Index node, int h) const {
  return h == 0 ? leaves_[node].count : inners_[node].count;
}

template <typename N>
void Timeline::MoveEntries(N& dst, int to, const N& src, int from, int len) {
  MoveArrays(dst, to, src, from, len);
  if constexpr (std::is_same_v<N, Inner>) {
    std::memmove(RunsOf(dst).run + to, RunsOf(src).run + from,
                 static_cast<std::size_t>(len) * sizeof(RunSummary));
  }
}

// Applies the pending add of child i of n (height h) to the child's own values. The child's
// summary in n already includes it, so n is otherwise unchanged.
void Timeline::Push(Inner& n, int i, int h) {
  const int delta = n.lazy[i];
  if (delta == 0) return;
  n.lazy[i] = 0;
  if (h == 1) {
    Leaf& l = leaves_[n.child[i]];
    for (int j = 0; j < l.count; ++j) l.free[j] += delta;
    return;
  }
  Inner& c = inners_[n.child[i]];
  for (int j = 0; j < c.count; ++j) {
    c.lazy[j] += delta;
    c.min[j] += delta;
    c.max[j] += delta;
  }
}

// Recomputes the cached leftmost key and min/max of child i of n (height h), and its run
// summary unless upkeep says it still holds. Returns what changed: kMinChanged, kShapeChanged
// (its key or max), kRunsChanged bits.
int Timeline::Refresh(Inner& n, int i, int h, RunUpkeep upkeep) {
  const Time old_key = n.min_key[i];
  const int old_min = n.min[i];
  const int old_max = n.max[i];
  int lo = INT_MAX, hi = INT_MIN;
  if (h == 1) {
    const Leaf& l = leaves_[n.child[i]];
    for (int j = 0; j < l.count; ++j) {
      lo = std::min(lo, l.free[j]);
      hi = std::max(hi, l.free[j]);
    }
    n.min_key[i] = l.key[0];
  } else {
    const Inner& c = inners_[n.child[i]];
    for (int j = 0; j < c.count; ++j) {
      lo = std::min(lo, c.min[j]);
      hi = std::max(hi, c.max[j]);
    }
    n.min_key[i] = c.min_key[0];
  }
  n.min[i] = lo + n.lazy[i];
  n.max[i] = hi + n.lazy[i];
  int changed = (n.min[i] != old_min ? kMinChanged : 0) |
                (n.min_key[i] != old_key || n.max[i] != old_max ? kShapeChanged : 0);
  if (upkeep == RunUpkeep::kRecompute && runs_kept_) changed |= RefreshRuns(n, i, h);
  return changed;
}

// Makes `key` a breakpoint (copying the value of the segment that contained it) or takes one
// more reference on it.
void Timeline::Pin(Time key) {
  const Index sibling = PinIn(root_, height_, key);
  if (sibling == kNil) return;
  const Index root = NewInner();
  Inner& r = inners_[root];
  r.count = 2;
  r.child[0] = root_;
  r.child[1] = sibling;
  r.lazy[0] = r.lazy[1] = 0;
  ++height_;
  Refresh(r, 0, height_, RunUpkeep::kRecompute);
  Refresh(r, 1, height_, RunUpkeep::kRecompute);
  root_ = root;
  FollowHeight();
}

// Pins key below node (height h); returns the new right sibling if node split, else kNil.
// The pools may grow on the way: references into them are re-fetched after a call.
Timeline::Index Timeline::PinIn(Index node, int h, Time key) {
  if (h > 0) {
    Inner& n = inners_[node];
    // >= 1 keys <= key at every node of the path: the sentinel is the smallest key.
    const int i = CountAtMost(n.min_key, n.count, key) - 1;
    Push(n, i, h);
    const Index sibling = PinIn(n.child[i], h - 1, key);
    if (sibling == kNil) return kNil;  // a copied value changes no summary
    Refresh(inners_[node], i, h, RunUpkeep::kRecompute);
    return InsertChild(node, i + 1, sibling, h);
  }
  Leaf* l = &leaves_[node];
  int p = CountAtMost(l->key, l->count, key) - 1;  // the segment containing key
  if (l->key[p] == key) {
    ++l->refs[p];
    return kNil;
  }
  ++breakpoints_;
  Index sibling = kNil;
  if (l->count == kLeafCap) {
    sibling = NewLeaf();
    l = &leaves_[node];
    Leaf& r = leaves_[sibling];
    constexpr int kHalf = kLeafCap / 2;
    MoveEntries(r, 0, *l, kHalf, kLeafCap - kHalf);
    r.count = kLeafCap - kHalf;
    l->count = kHalf;
    // Insert next to the predecessor, whose value the new entry copies.
    if (p >= kHalf) {
      l = &r;
      p -= kHalf;
    }
  }
  MoveEntries(*l, p + 2, *l, p + 1, l->count - p - 1);
  l->key[p + 1] = key;
  l->free[p + 1] = l->free[p];
  l->refs[p + 1] = 1;
  ++l->count;
  return sibling;
}

// Inserts child (height h - 1, no pending add) at pos of node (height h); returns node's new
// right sibling if node was full and split, else kNil.
Timeline::Index Timeline::InsertChild(Index node, int pos, Index child, int h) {
  Index sibling = kNil;
  Inner* n = &inners_[node];
  if (n->count == kFanout) {
    sibling = NewInner();
    n = &inners_[node];
    Inner& r = inners_[sibling];
    constexpr int kHalf = kFanout / 2;
    MoveEntries(r, 0, *n, kHalf, kFanout - kHalf);
    r.count = kFanout - kHalf;
    n->count = kHalf;
    if (pos > kHalf) {
      n = &r;
      pos -= kHalf;
    }
  }
  MoveEntries(*n, pos + 1, *n, pos, n->count - pos);
  n->child[pos] = child;
  n->lazy[pos] = 0;
  ++n->count;
  Refresh(*n, pos, h, RunUpkeep::kRecompute);
  return sibling;
}

// Drops a reference on the breakpoint at key, erasing it when unused.
void Timeline::Unpin(Time key) {
  UnpinIn(root_, height_, key);
  while (height_ > 0 && inners_[root_].count == 1) {  // merges emptied the root: shrink
    Inner& r = inners_[root_];
    Push(r, 0, height_);
    free_inners_.push_back(root_);
    root_ = r.child[0];
    --height_;
  }
  FollowHeight();
}

// Returns kErased when an entry was erased below node (height h), with what changed in node's
// entries (kMinChanged, kShapeChanged); 0 when nothing was. An erased key had its
// predecessor's value, so the steps stay the same: only a moved start (the leaf's first key)
// or a rebalancing changes a run summary.
int Timeline::UnpinIn(Index node, int h, Time key) {
  if (h == 0) {
    Leaf& l = leaves_[node];
    const int p = CountAtMost(l.key, l.count, key) - 1;  // key is a breakpoint: l.key[p]
    if (--l.refs[p] > 0) return 0;
    MoveEntries(l, p, l, p + 1, l.count - p - 1);
    --l.count;
    --breakpoints_;
    return kErased | kMinChanged | (p == 0 ? kShapeChanged : 0);
  }
  Inner& n = inners_[node];
  const int i = CountAtMost(n.min_key, n.count, key) - 1;
  Push(n, i, h);
  const int below = UnpinIn(n.child[i], h - 1, key);
  if (below == 0) return 0;
  const int entry =
      Refresh(n, i, h, (below & kShapeChanged) != 0 ? RunUpkeep::kRecompute : RunUpkeep::kKeep);
  int changed = (entry & kMinChanged) | ((entry & kReshaped) != 0 ? kShapeChanged : 0);
  if (Count(n.child[i], h - 1) < (h == 1 ? kLeafMin : kInnerMin)) {
    Rebalance(node, i, h);
    changed |= kMinChanged | kShapeChanged;
  }
  return kErased | changed;
}

// Child i of node (height h) is underfull: merge it with a neighbour if both fit in one node,
// else even out their sizes.
void Timeline::Rebalance(Index node, int i, int h) {
  Inner& n = inners_[node];
  if (n.count < 2) return;  // the root's only child: Unpin shrinks the tree instead
  const int a = i > 0 ? i - 1 : i;
  const int b = a + 1;
  Push(n, a, h);  // both children at n's level, so entries can move between them as they are
  Push(n, b, h);
  auto balance = [&](auto& left, auto& right, int cap) {
    const int total = left.count + right.count;
    if (total <= cap) {
      MoveEntries(left, left.count, right, 0, right.count);
      left.count = total;
      return true;
    }
    const int keep = total / 2;
    if (left.count > keep) {
      const int moved = left.count - keep;
      MoveEntries(right, moved, right, 0, right.count);
      MoveEntries(right, 0, left, keep, moved);
    } else {
      const int moved = keep - left.count;
      MoveEntries(left, left.count, right, 0, moved);
      MoveEntries(right, 0, right, moved, right.count - moved);
    }
    left.count = keep;
    right.count = total - keep;
    return false;
  };
  const bool merged = h == 1 ? balance(leaves_[n.child[a]], leaves_[n.child[b]], kLeafCap)
                             : balance(inners_[n.child[a]], inners_[n.child[b]], kFanout);
  if (merged) {
    (h == 1 ? free_leaves_ : free_inners_).push_back(n.child[b]);
    MoveEntries(n, b, n, b + 1, n.count - b - 1);
    --n.count;
  } else {
    Refresh(n, b, h, RunUpkeep::kRecompute);
  }
  Refresh(n, a, h, RunUpkeep::kRecompute);
}

// Adds delta to the breakpoints with key in [lo, hi) below node (height h), whose keys are
// below node_hi. lo and hi are breakpoints, so a child lies inside the window exactly when
// its time span does: it then takes the add as a pending add, and only the children holding
// lo or hi are entered.
int Timeline::AddRange(Index node, int h, Time lo, Time hi, Time node_hi, int delta) {
  if (h == 0) {  // the root is a leaf, and has no summary above it
    AddToLeaf(leaves_[node], lo, hi, delta);
    return kMinChanged | kShapeChanged;
  }
  Inner& n = inners_[node];
  const int old_top = runs_kept_ ? MaxOf(n.max, n.count) : 0;
  int changed = 0;
  // The entries changed, with what changed and their max before.
  int entries[kFanout];
  int old_maxima[kFanout];
  int first = n.count;
  int last = -1;
  for (int i = std::max(0, CountAtMost(n.min_key, n.count, lo) - 1);
       i < n.count && n.min_key[i] < hi; ++i) {
    const Time child_hi = ChildEnd(n, i, node_hi);
    const int old_max = n.max[i];
    int entry = 0;
    if (lo <= n.min_key[i] && child_hi <= hi) {
      n.lazy[i] += delta;
      n.min[i] += delta;
      n.max[i] += delta;
      entry = kMinChanged | kShapeChanged;
    } else if (h == 1) {
      entry = AddToLeafChild(n, i, lo, hi, delta);
    } else {
      Push(n, i, h);
      if (runs_kept_) Prefetch(run_blocks_[n.child[i]]);  // Refresh may read them on return
      if (const int below = AddRange(n.child[i], h - 1, lo, hi, child_hi, delta); below != 0) {
        entry = Refresh(n, i, h,
                        (below & kShapeChanged) != 0 ? RunUpkeep::kRecompute : RunUpkeep::kKeep);
      }
    }
    changed |= entry & kMinChanged;
    entries[i] = entry;
    old_maxima[i] = old_max;
    first = std::min(first, i);
    last = i;
  }
  // Without summaries, n's entry above is refreshed whenever an entry changed, as it always was.
  if (!runs_kept_) return changed | (last >= first ? kShapeChanged : 0);
  // n's own summary changes only if its max moved or it reads a changed entry differently.
  const int top = MaxOf(n.max, n.count);
  bool reshaped = top != old_top;
  for (int i = first; i <= last && !reshaped; ++i) {
    reshaped = (entries[i] & kReshaped) != 0 && Matters(n, i, entries[i], old_maxima[i], top);
  }
  if (reshaped) changed |= kShapeChanged;
  return changed;
}

// Adds delta to the segments of l with key in [lo, hi), which are [from, to).
std::pair<int, int> Timeline::AddToLeaf(Leaf& l, Time lo, Time hi, int delta) {
  int from = l.count;
  int to = 0;
  for (int j = 0; j < l.count; ++j) {
    if (l.key[j] >= lo && l.key[j] < hi) {
      l.free[j] += delta;
      from = std::min(from, j);
      to = j + 1;
    }
  }
  return {from, to};
}

// AddRange on child i of n, a leaf; returns what changed in n's entry. The run summary is
// recomputed only when the leaf's max moved (and with it every threshold) or a changed segment
// crossed a threshold: most changes happen far below the thresholds, which lie near the max.
int Timeline::AddToLeafChild(Inner& n, int i, Time lo, Time hi, int delta) {
  Push(n, i, 1);
  const int old_max = n.max[i];
  Leaf& l = leaves_[n.child[i]];
  const auto [from, to] = AddToLeaf(l, lo, hi, delta);
  int changed = Refresh(n, i, 1, RunUpkeep::kKeep);
  if (!runs_kept_) return changed;
  const int max = n.max[i];
  bool crossed = max != old_max;
  for (int j = from; j < to && !crossed; ++j) {
    const int low = std::min(l.free[j], l.free[j] - delta);
    const int high = std::max(l.free[j], l.free[j] - delta);
    for (const int offset : run_offsets_) crossed |= low < max - offset && max - offset <= high;
  }
  if (crossed) changed |= RefreshRuns(n, i, 1);
  return changed;
}

}  // namespace resched
