// The reservation timeline (see timeline.h for the representation).
//
// Invariants:
// - The treap holds one node per breakpoint; node x describes the segment [x.key, successor
//   key) and the last node's segment runs to +infinity. A sentinel at kTimeMin (pinned by one
//   extra reference) guarantees that every instant >= kTimeMin has a containing segment;
//   instants before kTimeMin cannot be booked, so their free capacity is `capacity`.
// - Each node keeps a pending add per child (left_lazy, right_lazy) and, for each child, the
//   min/max free capacity and leftmost key of that child's subtree, pending add included.
//   A node's values are exact once the pending adds on its path from the root are added
//   (queries carry that sum as `acc`). Mutations push along the split path only, one side at
//   a time, so nodes off the path are never read or written, and searches skip a subtree
//   without loading it: on a tree much larger than the cache, cost is cache misses, and this
//   pays them only for the nodes actually entered.
// - A pending add is the change of its subtree since the last push, and stored values are
//   exact values minus such changes, so nothing drifts: every number stays within twice the
//   span [kFreeFloor, kMaxCapacity], far from int overflow.
// - refs counts the reservations starting or ending at x.key. Free capacity only changes at
//   such keys, so when refs drops to 0 the node is erased and its predecessor's segment grows
//   over it with the same value.
//
// Costs (n = number of breakpoints, treap depth O(log n) expected):
// - FreeAt, MinFree: O(log n). Add, ForceAdd, Remove: two splits, up to two inserts or
//   erasures, two merges: O(log n). The paths to start and end are first loaded in lockstep
//   (WarmPaths) so that their cache misses overlap.
// - EarliestStart walks the segments from the one containing t0 in time order, but a subtree
//   that is uniformly free (min_free >= k) or uniformly blocked (max_free < k) is consumed as
//   a whole from its augmentation, and the walk stops as soon as the current free run is d
//   long. It descends only into mixed subtrees, so it costs O(log n) per maximal blocked
//   stretch it has to cross. An adversarial profile with g free gaps that are each too short
//   (or too narrow) for the request costs O(g log n): every gap is a separate stretch.
// - LatestStart is the mirror walk, leftwards from the segment containing deadline - 1, with
//   the same cost, and it gives up as soon as no run ending at or before the current point
//   can start at or after t0.
// - ForEachStep: O(log n + steps).
#include "core/timeline/timeline.h"

#include <algorithm>
#include <climits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace resched {
namespace {

// Sums of a time and a duration can leave int64 for extreme (but legal) inputs.
using Wide = __int128;

std::uint64_t SplitMix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// ForceAdd may push free capacity below zero. Every stored number is within twice the span
// [kFreeFloor, kMaxCapacity] (see above), so these bounds keep all arithmetic inside int.
constexpr std::int64_t kFreeFloor = -(std::int64_t{1} << 28);
constexpr int kMaxCapacity = 1 << 28;

}  // namespace

// ---------------------------------------------------------------------------------------------
// Search states.

struct Timeline::EarliestWalk {
  Time t0;
  Wide d;
  int k;
  std::optional<Time> cand;  // start of the current free run, if the run is free
  bool done = false;

  // True when the free run that starts at cand already covers [cand, cand + d) by `key`.
  bool Reaches(Time key) const { return cand && Wide{key} >= Wide{*cand} + d; }
  // Consumes the single segment starting at `key`.
  void Segment(Time key, int free) {
    if (Reaches(key)) {
      done = true;
    } else if (free < k) {
      cand.reset();
    } else if (!cand) {
      cand = std::max(key, t0);
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
// Construction, records.

// A capacity outside [0, kMaxCapacity] (268M processors) is clamped: the constructor cannot fail.
Timeline::Timeline(int capacity) : capacity_(std::clamp(capacity, 0, kMaxCapacity)) {
  root_ = NewNode(kTimeMin, capacity_, /*refs=*/1);  // the extra reference pins the sentinel
}

std::optional<TimelineReservation> Timeline::Get(ReservationId id) const {
  auto it = reservations_.find(id);
  if (it == reservations_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<ReservationId> Timeline::Add(Time start, Time end, int k) {
  return Insert(start, end, k, /*check_capacity=*/true);
}

absl::StatusOr<ReservationId> Timeline::ForceAdd(Time start, Time end, int k) {
  return Insert(start, end, k, /*check_capacity=*/false);
}

absl::StatusOr<ReservationId> Timeline::Insert(Time start, Time end, int k, bool check_capacity) {
  if (start < kTimeMin) {
    return absl::InvalidArgumentError(
        absl::StrFormat("start must be >= kTimeMin (%d), got %d", kTimeMin, start));
  }
  if (end > kTimeMax) {
    return absl::InvalidArgumentError(
        absl::StrFormat("end must be <= kTimeMax (%d), got %d", kTimeMax, end));
  }
  if (start >= end) {
    return absl::InvalidArgumentError(
        absl::StrFormat("end must be > start (%d), got %d", start, end));
  }
  if (k < 1) return absl::InvalidArgumentError(absl::StrFormat("k must be >= 1, got %d", k));
  // Split first and check on the pieces: the capacity check then costs no extra descent.
  WarmPaths(start, end);
  auto [before, rest] = Split(root_, start);
  auto [inside, after] = Split(rest, end);
  const int min_free = MinFreeOf(before, inside, start);
  absl::Status error;
  if (check_capacity && min_free < k) {
    error = absl::ResourceExhaustedError(
        absl::StrCat("k must be <= the free capacity over [", start, ", ", end, "), which is ",
                     min_free, "; got ", k));  // StrCat: rejections are frequent, keep them cheap
  } else if (std::int64_t{min_free} - k < kFreeFloor) {
    error = absl::OutOfRangeError(
        absl::StrFormat("k must keep free capacity >= %d over [%d, %d) (now %d), got %d",
                        kFreeFloor, start, end, min_free, k));
  }
  if (!error.ok()) {
    // Keys and priorities are unchanged, so this rebuilds exactly the same tree.
    root_ = Merge(Merge(before, inside), after);
    return error;
  }
  inside = Pin(before, inside, start);
  after = Pin(inside, after, end);
  Apply(inside, -k);
  root_ = Merge(Merge(before, inside), after);
  const ReservationId id = next_id_++;
  reservations_.emplace(id, TimelineReservation{start, end, k});
  ++live_reservations_;
  return id;
}

absl::Status Timeline::Remove(ReservationId id) {
  auto it = reservations_.find(id);
  if (it == reservations_.end()) {
    return absl::NotFoundError(absl::StrCat("reservation ", id, " not found"));
  }
  const TimelineReservation r = it->second;
  reservations_.erase(it);
  Unbook(r.start, r.end, r.k);
  --live_reservations_;
  return absl::OkStatus();
}

// Minimum free capacity over [start, end) given the pieces of a split at start and end: the
// breakpoints inside, and the segment containing start (the last one before it, unless a
// breakpoint sits exactly at start; `before` always holds the sentinel otherwise).
int Timeline::MinFreeOf(Index before, Index inside, Time start) const {
  int min_free = inside != kNil ? Own(inside).min : INT_MAX;
  if (inside == kNil || nodes_[Leftmost(inside)].key != start) {
    min_free = std::min(min_free, RightmostFree(before));
  }
  return min_free;
}

void Timeline::Unbook(Time start, Time end, int k) {
  WarmPaths(start, end);
  auto [before, rest] = Split(root_, start);
  auto [inside, after] = Split(rest, end);
  Apply(inside, k);
  inside = Unpin(inside);
  after = Unpin(after);
  root_ = Merge(Merge(before, inside), after);
}

// Makes `key` the leftmost breakpoint of `right` and takes a reference on it. A new breakpoint
// copies the value of the segment that contained key: the rightmost one of `left`, which is
// never empty because the sentinel (or the start breakpoint) precedes key.
Timeline::Index Timeline::Pin(Index left, Index right, Time key) {
  if (right != kNil) {
    const Index first = Leftmost(right);
    if (nodes_[first].key == key) {
      ++nodes_[first].refs;
      return right;
    }
  }
  const Index node = NewNode(key, RightmostFree(left), /*refs=*/1);
  return Merge(node, right);
}

// Drops a reference on the leftmost breakpoint of t, erasing it when unused: free capacity is
// continuous there, so the predecessor's segment simply extends over it.
Timeline::Index Timeline::Unpin(Index t) {
  const Index first = Leftmost(t);
  if (--nodes_[first].refs > 0) return t;
  return PopLeftmost(t);
}

// ---------------------------------------------------------------------------------------------
// Treap primitives.

// Fixed-seed hash of the slot: deterministic, independent of the keys, and free to recompute.
std::uint64_t Timeline::Priority(Index t) {
  return SplitMix64(static_cast<std::uint64_t>(t) + 0x9e3779b97f4a7c15ULL);
}

Timeline::Index Timeline::NewNode(Time key, int free, std::int32_t refs) {
  const Node node{key, key, key, free, 0, 0, 0, 0, 0, 0, refs, kNil, kNil};
  if (!free_slots_.empty()) {
    const Index slot = free_slots_.back();
    free_slots_.pop_back();
    nodes_[slot] = node;
    return slot;
  }
  nodes_.push_back(node);
  return static_cast<Index>(nodes_.size() - 1);
}

// Adds delta to every segment of subtree t. Only t is written; its parent (if any) must
// refresh its summary of t afterwards.
void Timeline::Apply(Index t, int delta) {
  if (t == kNil) return;
  Node& n = nodes_[t];
  n.free += delta;
  if (n.left != kNil) {
    n.left_lazy += delta;
    n.left_min += delta;
    n.left_max += delta;
  }
  if (n.right != kNil) {
    n.right_lazy += delta;
    n.right_min += delta;
    n.right_max += delta;
  }
}

void Timeline::PushLeft(Node& n) {
  if (n.left_lazy == 0) return;
  Apply(n.left, n.left_lazy);
  n.left_lazy = 0;
}

void Timeline::PushRight(Node& n) {
  if (n.right_lazy == 0) return;
  Apply(n.right, n.right_lazy);
  n.right_lazy = 0;
}

// Attaches child (exact at n's level: n's pending add for that side was pushed) and caches its
// summary.
void Timeline::SetLeft(Node& n, Index child) {
  n.left = child;
  n.left_lazy = 0;
  if (child == kNil) return;
  const Summary s = Own(child);
  n.left_min = s.min;
  n.left_max = s.max;
  n.left_min_key = s.min_key;
}

void Timeline::SetRight(Node& n, Index child) {
  n.right = child;
  n.right_lazy = 0;
  if (child == kNil) return;
  const Summary s = Own(child);
  n.right_min = s.min;
  n.right_max = s.max;
  n.right_min_key = s.min_key;
}

// Summary of subtree t at the level of t's own values.
Timeline::Summary Timeline::Own(Index t) const {
  const Node& n = nodes_[t];
  Summary s{n.free, n.free, n.key};
  if (n.left != kNil) {
    s.min = std::min(s.min, n.left_min);
    s.max = std::max(s.max, n.left_max);
    s.min_key = n.left_min_key;
  }
  if (n.right != kNil) {
    s.min = std::min(s.min, n.right_min);
    s.max = std::max(s.max, n.right_max);
  }
  return s;
}

// (keys < key, keys >= key), both exact at t's level.
std::pair<Timeline::Index, Timeline::Index> Timeline::Split(Index t, Time key) {
  if (t == kNil) return {kNil, kNil};
  Node& n = nodes_[t];  // Split and Merge never grow the pool: references stay valid
  if (n.key < key) {
    PushRight(n);
    const auto [l, r] = Split(n.right, key);
    SetRight(n, l);
    return {t, r};
  }
  PushLeft(n);
  const auto [l, r] = Split(n.left, key);
  SetLeft(n, r);
  return {l, t};
}

// Every key of a precedes every key of b; both exact at the same level.
Timeline::Index Timeline::Merge(Index a, Index b) {
  if (a == kNil) return b;
  if (b == kNil) return a;
  if (Priority(a) >= Priority(b)) {
    Node& n = nodes_[a];
    PushRight(n);
    SetRight(n, Merge(n.right, b));
    return a;
  }
  Node& n = nodes_[b];
  PushLeft(n);
  SetLeft(n, Merge(a, n.left));
  return b;
}

Timeline::Index Timeline::PopLeftmost(Index t) {
  Node& n = nodes_[t];
  PushLeft(n);
  if (n.left == kNil) {
    PushRight(n);
    free_slots_.push_back(t);
    return n.right;
  }
  SetLeft(n, PopLeftmost(n.left));
  return t;
}

// Walks the root-to-leaf paths of a and b in lockstep. The two chains of loads are
// independent, so their cache misses overlap; the splits that follow then find the nodes in
// cache. On a tree much larger than the cache this saves the misses of the second path.
void Timeline::WarmPaths(Time a, Time b) const {
  Index i = root_, j = root_;
  while (i != kNil || j != kNil) {
    if (i != kNil) i = nodes_[i].key < a ? nodes_[i].right : nodes_[i].left;
    if (j != kNil) j = nodes_[j].key < b ? nodes_[j].right : nodes_[j].left;
    // The loop computes nothing that is used: keep the compiler from deleting the loads.
    __asm__ volatile("" : : "r"(i), "r"(j));
  }
}

Timeline::Index Timeline::Leftmost(Index t) const {
  while (nodes_[t].left != kNil) t = nodes_[t].left;
  return t;
}

int Timeline::RightmostFree(Index t) const {
  int acc = 0;
  while (nodes_[t].right != kNil) {
    acc += nodes_[t].right_lazy;
    t = nodes_[t].right;
  }
  return nodes_[t].free + acc;
}

// ---------------------------------------------------------------------------------------------
// Point and range queries.

int Timeline::FreeAt(Time t) const {
  int value = capacity_;  // before the sentinel nothing can be booked
  int acc = 0;
  for (Index i = root_; i != kNil;) {
    const Node& n = nodes_[i];
    if (n.key <= t) {
      value = n.free + acc;
      acc += n.right_lazy;
      i = n.right;
    } else {
      acc += n.left_lazy;
      i = n.left;
    }
  }
  return value;
}

int Timeline::MinFree(Time start, Time end) const {
  if (start >= end) return capacity_;
  return std::min(FreeAt(start), RangeMin(start, end));
}

// Minimum free value over the breakpoints with key in [lo, hi); INT_MAX if there is none.
// Walks the two paths to lo and hi; the subtrees between them count through their summaries.
int Timeline::RangeMin(Time lo, Time hi) const {
  Index i = root_;
  int acc = 0;
  while (i != kNil && (nodes_[i].key < lo || nodes_[i].key >= hi)) {
    const Node& n = nodes_[i];
    acc += n.key < lo ? n.right_lazy : n.left_lazy;
    i = n.key < lo ? n.right : n.left;
  }
  if (i == kNil) return INT_MAX;
  const Node& fork = nodes_[i];
  int best = fork.free + acc;
  // Left of the fork every key is < hi: keep the nodes >= lo and their right subtrees.
  for (Index j = fork.left, a = acc + fork.left_lazy; j != kNil;) {
    const Node& n = nodes_[j];
    if (n.key >= lo) {
      best = std::min(best, n.free + a);
      if (n.right != kNil) best = std::min(best, n.right_min + a);
      a += n.left_lazy;
      j = n.left;
    } else {
      a += n.right_lazy;
      j = n.right;
    }
  }
  // Right of the fork every key is >= lo: keep the nodes < hi and their left subtrees.
  for (Index j = fork.right, a = acc + fork.right_lazy; j != kNil;) {
    const Node& n = nodes_[j];
    if (n.key < hi) {
      best = std::min(best, n.free + a);
      if (n.left != kNil) best = std::min(best, n.left_min + a);
      a += n.right_lazy;
      j = n.right;
    } else {
      a += n.left_lazy;
      j = n.left;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// EarliestStart: one left-to-right walk from the segment containing t0.

std::optional<Time> Timeline::EarliestStart(Time t0, Duration d, int k) const {
  if (k < 0 || d < 0) return std::nullopt;
  if (d == 0 || k == 0) return t0;
  if (k > capacity_) return std::nullopt;
  EarliestWalk w{t0, Wide{d}, k, std::nullopt};
  if (FreeAt(t0) >= k) w.cand = t0;  // the segment containing t0
  EarliestAfter(root_, 0, Own(root_), w);
  // Not done: the run that reaches the last segment (free = capacity) never ends.
  return w.cand;
}

namespace {
// Summaries of a node's children as seen by the node's parent-level sum `acc`.
template <typename N, typename S>
S LeftOf(const N& n, int acc) {
  return S{n.left_min + acc, n.left_max + acc, n.left_min_key};
}
template <typename N, typename S>
S RightOf(const N& n, int acc) {
  return S{n.right_min + acc, n.right_max + acc, n.right_min_key};
}
}  // namespace

// Consumes, in time order, the breakpoints of subtree t with key > t0. `s` is t's summary
// (exact), `acc` the pending adds above t.
void Timeline::EarliestAfter(Index t, int acc, const Summary& s, EarliestWalk& w) const {
  if (t == kNil || w.done) return;
  if (s.min_key > w.t0) return EarliestSubtree(t, acc, s, w);
  const Node& n = nodes_[t];
  if (n.key <= w.t0) {
    return EarliestAfter(n.right, acc + n.right_lazy, RightOf<Node, Summary>(n, acc), w);
  }
  EarliestAfter(n.left, acc + n.left_lazy, LeftOf<Node, Summary>(n, acc), w);
  if (w.done) return;
  w.Segment(n.key, n.free + acc);
  if (w.done) return;
  EarliestSubtree(n.right, acc + n.right_lazy, RightOf<Node, Summary>(n, acc), w);
}

// Consumes all of subtree t (every key > t0): as a whole, from its summary alone, when it is
// uniformly free or uniformly blocked; otherwise descends.
void Timeline::EarliestSubtree(Index t, int acc, const Summary& s, EarliestWalk& w) const {
  if (t == kNil || w.done) return;
  if (w.Reaches(s.min_key)) {
    w.done = true;
    return;
  }
  if (s.max < w.k) {
    w.cand.reset();
    return;
  }
  if (s.min >= w.k) {
    if (!w.cand) w.cand = s.min_key;  // min_key > t0 here
    return;
  }
  const Node& n = nodes_[t];
  EarliestSubtree(n.left, acc + n.left_lazy, LeftOf<Node, Summary>(n, acc), w);
  if (w.done) return;
  w.Segment(n.key, n.free + acc);
  if (w.done) return;
  EarliestSubtree(n.right, acc + n.right_lazy, RightOf<Node, Summary>(n, acc), w);
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
  LatestBefore(root_, 0, w);
  if (w.done) return w.answer;
  // Every breakpoint before the deadline was consumed; what lies before right_end (kTimeMin,
  // or the deadline itself) cannot be booked, so it is free and the run extends to -infinity.
  if (!w.cand_end) w.cand_end = w.right_end;
  const Wide answer = Wide{*w.cand_end} - d;
  if (answer < Wide{t0}) return std::nullopt;
  return static_cast<Time>(answer);
}

// Consumes, right to left, the breakpoints of subtree t with key < deadline (the first one
// consumed contains deadline - 1, so right_end starts at the deadline).
void Timeline::LatestBefore(Index t, int acc, LatestWalk& w) const {
  if (t == kNil || w.done) return;
  const Node& n = nodes_[t];
  if (n.key >= w.deadline) return LatestBefore(n.left, acc + n.left_lazy, w);
  LatestBefore(n.right, acc + n.right_lazy, w);
  if (w.done) return;
  w.Stretch(n.key, n.free + acc >= w.k);
  if (w.done) return;
  LatestSubtree(n.left, acc + n.left_lazy, LeftOf<Node, Summary>(n, acc), w);
}

void Timeline::LatestSubtree(Index t, int acc, const Summary& s, LatestWalk& w) const {
  if (t == kNil || w.done) return;
  if (s.max < w.k) return w.Stretch(s.min_key, false);
  if (s.min >= w.k) return w.Stretch(s.min_key, true);
  const Node& n = nodes_[t];
  LatestSubtree(n.right, acc + n.right_lazy, RightOf<Node, Summary>(n, acc), w);
  if (w.done) return;
  w.Stretch(n.key, n.free + acc >= w.k);
  if (w.done) return;
  LatestSubtree(n.left, acc + n.left_lazy, LeftOf<Node, Summary>(n, acc), w);
}

// ---------------------------------------------------------------------------------------------
// ForEachStep.

void Timeline::ForEachStep(Time from, Time to,
                           const std::function<void(const TimelineStep&)>& fn) const {
  if (from >= to) return;
  StepWalk w{from, to, &fn, from, FreeAt(from)};
  StepRange(root_, 0, w);
  fn(TimelineStep{w.start, to, w.free});
}

// Visits, in order, the breakpoints of subtree t with key in (from, to).
void Timeline::StepRange(Index t, int acc, StepWalk& w) const {
  if (t == kNil) return;
  const Node& n = nodes_[t];
  if (n.key <= w.from) return StepRange(n.right, acc + n.right_lazy, w);
  if (n.key >= w.to) return StepRange(n.left, acc + n.left_lazy, w);
  StepRange(n.left, acc + n.left_lazy, w);
  w.Breakpoint(n.key, n.free + acc);
  StepRange(n.right, acc + n.right_lazy, w);
}

// ---------------------------------------------------------------------------------------------
// Self-check.

absl::Status Timeline::CheckInvariants() const {
  if (live_reservations_ != reservations_.size()) {
    return absl::InternalError("live_reservations_ does not match the records");
  }
  // Expected breakpoints from the records: reference count and change of free capacity.
  absl::flat_hash_map<Time, std::pair<std::int32_t, std::int64_t>> expected;
  expected[kTimeMin].first = 1;  // the sentinel's pin
  for (const auto& [id, r] : reservations_) {
    if (id <= 0 || id >= next_id_) return absl::InternalError("id out of range");
    ++expected[r.start].first;
    expected[r.start].second -= r.k;
    ++expected[r.end].first;
    expected[r.end].second += r.k;
  }
  std::vector<Node> in_order;
  Summary exact;
  if (absl::Status s = CheckSubtree(root_, 0, in_order, exact); !s.ok()) return s;
  if (in_order.size() != expected.size() || in_order.size() != breakpoint_count()) {
    return absl::InternalError(
        absl::StrFormat("%d breakpoints, expected %d", in_order.size(), expected.size()));
  }
  std::int64_t free = capacity_;
  for (std::size_t i = 0; i < in_order.size(); ++i) {
    const Node& n = in_order[i];
    if (i > 0 && in_order[i - 1].key >= n.key) return absl::InternalError("treap order violated");
    auto it = expected.find(n.key);
    if (it == expected.end() || it->second.first != n.refs) {
      return absl::InternalError(absl::StrFormat("wrong reference count at %d", n.key));
    }
    free += it->second.second;
    if (free != n.free) {
      return absl::InternalError(
          absl::StrFormat("free at %d is %d, expected %d", n.key, n.free, free));
    }
  }
  return absl::OkStatus();
}

// Checks heap order, the cached summaries of the children and that nothing is pending towards
// a missing child; appends the nodes in key order with exact free values and returns the
// subtree's exact summary.
absl::Status Timeline::CheckSubtree(Index t, int acc, std::vector<Node>& out,
                                    Summary& exact) const {
  const Node& n = nodes_[t];
  exact = Summary{n.free + acc, n.free + acc, n.key};
  for (const bool left : {true, false}) {
    const Index c = left ? n.left : n.right;
    const int lazy = left ? n.left_lazy : n.right_lazy;
    if (c == kNil) {
      if (lazy != 0) return absl::InternalError("pending add towards a missing child");
      if (left) {
        out.push_back(n);
        out.back().free += acc;
      }
      continue;
    }
    if (Priority(c) > Priority(t)) return absl::InternalError("heap order violated");
    Summary child;
    if (absl::Status s = CheckSubtree(c, acc + lazy, out, child); !s.ok()) return s;
    const Summary cached = left ? LeftOf<Node, Summary>(n, acc) : RightOf<Node, Summary>(n, acc);
    if (cached.min != child.min || cached.max != child.max || cached.min_key != child.min_key) {
      return absl::InternalError(absl::StrFormat("stale summary below %d", n.key));
    }
    exact.min = std::min(exact.min, child.min);
    exact.max = std::max(exact.max, child.max);
    if (left) {
      exact.min_key = child.min_key;
      out.push_back(n);
      out.back().free += acc;
    }
  }
  return absl::OkStatus();
}

}  // namespace resched
