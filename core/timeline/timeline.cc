// The reservation timeline (see timeline.h for the representation).
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
#include "core/timeline/timeline.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <climits>
#include <cstring>
#include <limits>
#include <type_traits>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace resched {
namespace {

// Sums of a time and a duration can leave int64 for extreme (but legal) inputs.
using Wide = __int128;

// ForceAdd may push free capacity below zero. Stored numbers stay within +-(kMaxCapacity -
// kFreeFloor) = +-2^29 (see above), so these bounds keep arithmetic inside int.
constexpr std::int64_t kFreeFloor = -(std::int64_t{1} << 28);
constexpr int kMaxCapacity = 1 << 28;

// Upper bound of the root's key span: above every key (keys are <= kTimeMax).
constexpr Time kNoKey = std::numeric_limits<Time>::max();
// "No such segment" in a run summary (Timeline::RunSummary).
constexpr Time kNoRun = kNoKey;

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

}  // namespace

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
// Construction, records.

// A capacity outside [0, kMaxCapacity] (268M processors) is clamped: the constructor cannot fail.
Timeline::Timeline(int capacity) : capacity_(std::clamp(capacity, 0, kMaxCapacity)) {
  root_ = NewLeaf();
  Leaf& l = leaves_[root_];
  l.key[0] = kTimeMin;
  l.free[0] = capacity_;
  l.refs[0] = 1;  // the extra reference pins the sentinel
  l.count = 1;
  breakpoints_ = 1;
  // A wide request on a busy profile waits for free capacity close to the max: thresholds
  // 3.1 %, 8 % and 20 % of the capacity below it tell those runs apart (measured,
  // docs/timeline.md).
  constexpr int kRunOffsetPerMille[kRunLevels] = {31, 80, 200};
  for (int g = 0; g < kRunLevels; ++g) {
    run_offsets_[g] = static_cast<int>(std::int64_t{capacity_} * kRunOffsetPerMille[g] / 1000);
  }
}

const Timeline::Record* Timeline::FindRecord(ReservationId id) const {
  const std::int64_t slot = (id & 0xffffffff) - 1;
  if (id <= 0 || slot < 0 || slot >= static_cast<std::int64_t>(records_.size())) return nullptr;
  const Record& r = records_[slot];
  if (!r.live || r.generation != static_cast<std::uint64_t>(id) >> 32) return nullptr;
  return &r;
}

std::optional<Allocation> Timeline::Get(ReservationId id) const {
  const Record* r = FindRecord(id);
  if (r == nullptr) return std::nullopt;
  return r->reservation;
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
  // Checked before anything changes, so a rejection needs no undo.
  const int min_free = MinFree(start, end);
  if (check_capacity && min_free < k) {
    return absl::ResourceExhaustedError(
        absl::StrCat("k must be <= the free capacity over [", start, ", ", end, "), which is ",
                     min_free, "; got ", k));  // StrCat: rejections are frequent, keep them cheap
  }
  if (std::int64_t{min_free} - k < kFreeFloor) {
    return absl::OutOfRangeError(
        absl::StrFormat("k must keep free capacity >= %d over [%d, %d) (now %d), got %d",
                        kFreeFloor, start, end, min_free, k));
  }
  Pin(start);
  Pin(end);
  AddRange(root_, height_, start, end, kNoKey, -k);
  std::uint32_t slot;
  if (free_records_.empty()) {
    slot = static_cast<std::uint32_t>(records_.size());
    records_.emplace_back();
  } else {
    slot = free_records_.back();
    free_records_.pop_back();
  }
  Record& r = records_[slot];
  r.reservation = Allocation{k, start, end};
  r.live = true;
  if (++r.generation == 0) r.generation = 1;  // ids stay > 0
  ++live_reservations_;
  const auto id = static_cast<ReservationId>((std::uint64_t{r.generation} << 32) | (slot + 1u));
  changes_.Append({id, r.reservation, /*added=*/true}, live_reservations_);
  if (ops_.on) ops_.ops.push_back({id, r.reservation, /*added=*/true});
  return id;
}

void Timeline::ReleaseHeld(ReservationId id, Time searches_from) {
  const Record* record = FindRecord(id);
  const bool ended = record != nullptr && record->reservation.end <= searches_from;
  const std::uint64_t version = version_.value;
  [[maybe_unused]] const absl::Status removed = Remove(id);
  assert(removed.ok());
  if (ended) version_.value = version;
  if (changes_.stream != 0 && !changes_.entries.empty()) {
    changes_.entries.back().searches_from = searches_from;  // Remove recorded it just now
  }
  if (ops_.on && removed.ok()) ops_.ops.back().searches_from = searches_from;  // logged too
}

void Timeline::LogOps(bool on) {
  ops_.on = on;
  if (!on) std::vector<TimelineChange>().swap(ops_.ops);
}

std::vector<TimelineChange> Timeline::TakeOps() {
  std::vector<TimelineChange> out;
  out.swap(ops_.ops);
  return out;
}

absl::Status Timeline::ApplyOp(const TimelineChange& op) {
  if (!op.added) {
    if (FindRecord(op.id) == nullptr) {
      return absl::DataLossError(
          absl::StrCat("the logged release of reservation ", op.id, " finds no such reservation"));
    }
    ReleaseHeld(op.id, op.searches_from);
    return absl::OkStatus();
  }
  const Allocation& a = op.reservation;
  absl::StatusOr<ReservationId> id = Insert(a.start, a.end, a.k, /*check_capacity=*/false);
  if (!id.ok()) {
    return absl::DataLossError(absl::StrCat("the logged add of reservation ", op.id,
                                            " does not apply: ", id.status().message()));
  }
  if (*id != op.id) {
    ReleaseHeld(*id);
    return absl::DataLossError(absl::StrCat("the logged add of reservation ", op.id, " gets id ",
                                            *id, " here: the timelines differ"));
  }
  return absl::OkStatus();
}

std::uint64_t Timeline::RecordChanges() {
  changes_.entries.clear();
  changes_.stream = Version::Next();
  return changes_.stream;
}

void Timeline::DropChanges(std::size_t count) {
  auto& entries = changes_.entries;
  entries.erase(entries.begin(),
                entries.begin() + static_cast<std::ptrdiff_t>(std::min(count, entries.size())));
  // A burst of changes leaves no large buffer behind on a cluster that is quiet again.
  if (entries.empty() && entries.capacity() > kMinChangeBound / 16) entries.shrink_to_fit();
}

void Timeline::ChangeRecord::Append(const TimelineChange& change, std::size_t live_reservations) {
  if (stream == 0) return;
  // Room for a policy that re-books every queued job at once (n releases, then n adds).
  if (entries.size() >= std::max<std::size_t>(kMinChangeBound, 4 * live_reservations)) {
    stream = 0;  // the reader rebuilds instead; the memory goes
    std::vector<TimelineChange>().swap(entries);
    return;
  }
  entries.push_back(change);
}

std::uint64_t Timeline::Version::Next() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

absl::Status Timeline::Remove(ReservationId id) {
  const Record* record = FindRecord(id);
  if (record == nullptr) {
    return absl::NotFoundError(absl::StrCat("reservation ", id, " not found"));
  }
  version_.Renew();
  const Allocation r = record->reservation;
  const auto slot = static_cast<std::uint32_t>(record - records_.data());
  records_[slot].live = false;
  free_records_.push_back(slot);
  // Release first: an unused key then has its predecessor's value and can simply go.
  AddRange(root_, height_, r.start, r.end, kNoKey, r.k);
  Unpin(r.start);
  Unpin(r.end);
  --live_reservations_;
  changes_.Append({id, r, /*added=*/false}, live_reservations_);
  if (ops_.on) ops_.ops.push_back({id, r, /*added=*/false});
  return absl::OkStatus();
}

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

// Recomputes the run summary of child i of n (height h); returns the thresholds it changed at.
int Timeline::RefreshRuns(Inner& n, int i, int h) {
  const RunSummary runs = SummarizeRuns(n.child[i], h - 1, n.max[i] - n.lazy[i]);
  RunSummary& stored = RunsOf(n).run[i];
  const int changed = ChangedRuns(runs, stored);
  if (changed != 0) stored = runs;
  return changed;
}

int Timeline::ChangedRuns(const RunSummary& a, const RunSummary& b) {
  int changed = 0;
  for (int g = 0; g < kRunLevels; ++g) {
    if (a.first_blocked[g] != b.first_blocked[g] || a.free_from[g] != b.free_from[g] ||
        a.longest[g] != b.longest[g]) {
      changed |= kRunsChanged << g;
    }
  }
  return changed;
}

bool Timeline::Matters(const Inner& n, int i, int entry, int old_max, int top) const {
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

int Timeline::RunLevelAbove(int offset) const {
  int g = 0;
  for (int o : run_offsets_) g += o < offset;  // branch-free: offsets increase
  return g;
}

namespace {

// Starts loading a block of run summaries.
template <typename Block>
void Prefetch(const Block& block) {
  const char* from = reinterpret_cast<const char*>(&block);
  for (std::size_t at = 0; at < sizeof block; at += 64) __builtin_prefetch(from + at);
}

// Free runs at one threshold, fed a node's entries in time order.
struct RunScan {
  Time first_blocked = kNoRun;
  Time run_start;  // start of the open run; kNoRun when the last entry ends blocked
  Duration longest = 0;

  explicit RunScan(Time node_start) : run_start(node_start) {}
  // An entry [.., next_start) whose first segment below the threshold starts at first, whose
  // last one ends at last_end (kNoRun: at next_start), and whose inner runs last <= inner.
  void Blocked(Time first, Time last_end, Duration inner, Time next_start) {
    if (first_blocked == kNoRun) {
      first_blocked = first;
    } else {
      longest = std::max(longest, first - run_start);
    }
    longest = std::max(longest, inner);
    run_start = last_end == kNoRun ? next_start : last_end;
  }
};

// The bits [0, count) set, count <= 32.
std::uint32_t LowBits(int count) {
  return count == 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << count) - 1;
}

// Bit j of mask[g] set where value[j] >= level[g], for j < count (<= 32). Four lanes at a
// time, every level in one pass: this runs for most nodes an update passes through.
template <std::size_t N, std::size_t G>
void AtLeast(const int (&value)[N], int count, const int (&level)[G], std::uint32_t (&mask)[G]) {
  static_assert(N <= 32 && N % 4 == 0);
  for (std::uint32_t& m : mask) m = 0;
#ifdef __SSE2__
  __m128i below[G];
  for (std::size_t g = 0; g < G; ++g) below[g] = _mm_set1_epi32(level[g] - 1);
  for (int j = 0; j < static_cast<int>(N); j += 4) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(value + j));
    for (std::size_t g = 0; g < G; ++g) {
      const int lanes = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(v, below[g])));
      mask[g] |= static_cast<std::uint32_t>(lanes) << j;
    }
  }
#else
  for (int j = 0; j < static_cast<int>(N); ++j) {
    for (std::size_t g = 0; g < G; ++g) mask[g] |= std::uint32_t{value[j] >= level[g]} << j;
  }
#endif
  for (std::uint32_t& m : mask) m &= LowBits(count);
}

}  // namespace

// The run summary of node (height h, max free capacity max in its own frame). Leaves read their
// runs from bit masks of the segments at or above each threshold; inner nodes compose their
// children's summaries.
Timeline::RunSummary Timeline::SummarizeRuns(Index node, int h, int max) const {
  return h == 0 ? SummarizeLeafRuns(leaves_[node], max) : SummarizeInnerRuns(inners_[node], max);
}

Timeline::RunSummary Timeline::SummarizeLeafRuns(const Leaf& l, int max) const {
  RunSummary out;
  int levels[kRunLevels];
  for (int g = 0; g < kRunLevels; ++g) levels[g] = max - run_offsets_[g];
  std::uint32_t free_masks[kRunLevels];
  AtLeast(l.free, l.count, levels, free_masks);
  for (int g = 0; g < kRunLevels; ++g) {
    const std::uint32_t free = free_masks[g];
    const std::uint32_t blocked = ~free & LowBits(l.count);
    if (blocked == 0) {
      out.first_blocked[g] = kNoRun;
      out.free_from[g] = l.key[0];
      out.longest[g] = 0;
      continue;
    }
    const int first = std::countr_zero(blocked);
    const int last = 31 - std::countl_zero(blocked);
    out.first_blocked[g] = l.key[first];
    out.free_from[g] = last + 1 < l.count ? l.key[last + 1] : kNoRun;
    // The free segments strictly between the first and last blocked ones, run by run.
    std::uint32_t inner =
        free & ((std::uint32_t{1} << last) - 1) & ~((std::uint32_t{2} << first) - 1);
    Duration longest = 0;
    while (inner != 0) {
      const int from = std::countr_zero(inner);
      const int to = from + std::countr_one(inner >> from);  // <= last: a blocked segment
      longest = std::max(longest, l.key[to] - l.key[from]);
      inner &= ~std::uint32_t{0} << to;
    }
    out.longest[g] = longest;
  }
  return out;
}

Timeline::RunSummary Timeline::SummarizeInnerRuns(const Inner& n, int max) const {
  RunSummary out;
  for (int g = 0; g < kRunLevels; ++g) {
    const int level = max - run_offsets_[g];
    RunScan scan(n.min_key[0]);
    // A child wholly free at this level has no blocked segment at its own threshold at or
    // below it, so its min is not needed: summaries depend only on keys, maxima and runs.
    for (int j = 0; j < n.count; ++j) {
      const Time next = j + 1 < n.count ? n.min_key[j + 1] : kNoRun;
      if (n.max[j] < level) {
        scan.Blocked(n.min_key[j], kNoRun, 0, next);
        continue;
      }
      // The child's threshold at or below this one: its summary bounds the runs here. Without
      // one (or without a claim there), the child counts as free, which bounds its runs too.
      const RunSummary& r = RunsOf(n).run[j];
      const int c = RunLevelAbove(n.max[j] - level);
      if (c == kRunLevels || r.first_blocked[c] == kNoRun) continue;
      scan.Blocked(r.first_blocked[c], r.free_from[c], r.longest[c], next);
    }
    out.first_blocked[g] = scan.first_blocked;
    out.free_from[g] = scan.first_blocked == kNoRun ? n.min_key[0] : scan.run_start;
    out.longest[g] = scan.longest;
  }
  return out;
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

void Timeline::SetRunIndexHeightForTest(int height) {
  run_index_height_ = height;
  runs_kept_ = false;
  FollowHeight();
}

void Timeline::FollowHeight() {
  if (!runs_kept_ && height_ >= run_index_height_) {
    runs_kept_ = true;
    SummarizeAllRuns(root_, height_);
  } else if (runs_kept_ && height_ < run_index_height_ - 1) {
    runs_kept_ = false;  // what is stored goes stale, and is recomputed when kept again
  }
}

// Recomputes every run summary below node (height h), children first.
void Timeline::SummarizeAllRuns(Index node, int h) {
  if (h == 0) return;
  Inner& n = inners_[node];
  for (int i = 0; i < n.count; ++i) {
    SummarizeAllRuns(n.child[i], h - 1);
    RefreshRuns(n, i, h);
  }
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

// ---------------------------------------------------------------------------------------------
// Self-check.

// A breakpoint with its exact free value, in key order.
struct Timeline::Exact {
  Time key;
  int free;
  std::int32_t refs;
};

absl::Status Timeline::CheckInvariants() const {
  std::size_t live = 0;
  for (const Record& record : records_) live += record.live;
  if (live_reservations_ != live || live + free_records_.size() != records_.size()) {
    return absl::InternalError("live_reservations_ or the free slots do not match the records");
  }
  // Expected breakpoints from the records: reference count and change of free capacity.
  absl::flat_hash_map<Time, std::pair<std::int32_t, std::int64_t>> expected;
  expected[kTimeMin].first = 1;  // the sentinel's pin
  for (const Record& record : records_) {
    if (!record.live) continue;
    const Allocation& r = record.reservation;
    ++expected[r.start].first;
    expected[r.start].second -= r.k;
    ++expected[r.end].first;
    expected[r.end].second += r.k;
  }
  std::vector<Exact> in_order;
  int min = 0, max = 0;
  std::size_t nodes = 0;
  if (absl::Status s = CheckNode(root_, height_, 0, true, kNoKey, in_order, min, max, nodes);
      !s.ok()) {
    return s;
  }
  if (nodes + free_leaves_.size() + free_inners_.size() != leaves_.size() + inners_.size()) {
    return absl::InternalError("node pool leaks or shares nodes");
  }
  if (in_order.size() != expected.size() || in_order.size() != breakpoint_count()) {
    return absl::InternalError(
        absl::StrFormat("%d breakpoints, expected %d", in_order.size(), expected.size()));
  }
  std::int64_t free = capacity_;
  for (std::size_t i = 0; i < in_order.size(); ++i) {
    const Exact& e = in_order[i];
    if (i > 0 && in_order[i - 1].key >= e.key) return absl::InternalError("key order violated");
    auto it = expected.find(e.key);
    if (it == expected.end() || it->second.first != e.refs) {
      return absl::InternalError(absl::StrFormat("wrong reference count at %d", e.key));
    }
    free += it->second.second;
    if (free != e.free) {
      return absl::InternalError(
          absl::StrFormat("free at %d is %d, expected %d", e.key, e.free, free));
    }
  }
  return absl::OkStatus();
}

// Checks node sizes and the cached summaries of the children; appends the entries in key
// order with exact free values and returns the subtree's exact min/max free.
absl::Status Timeline::CheckNode(Index node, int h, int acc, bool root, Time node_hi,
                                 std::vector<Exact>& out, int& min, int& max,
                                 std::size_t& nodes) const {
  ++nodes;
  min = INT_MAX;
  max = INT_MIN;
  if (h == 0) {
    const Leaf& l = leaves_[node];
    if (l.count < (root ? 1 : kLeafMin) || l.count > kLeafCap) {
      return absl::InternalError(absl::StrFormat("leaf of %d entries", l.count));
    }
    for (int j = 0; j < l.count; ++j) {
      out.push_back(Exact{l.key[j], l.free[j] + acc, l.refs[j]});
      min = std::min(min, l.free[j] + acc);
      max = std::max(max, l.free[j] + acc);
    }
    return absl::OkStatus();
  }
  const Inner& n = inners_[node];
  if (n.count < (root ? 2 : kInnerMin) || n.count > kFanout) {
    return absl::InternalError(absl::StrFormat("inner node of %d children", n.count));
  }
  for (int i = 0; i < n.count; ++i) {
    const std::size_t first = out.size();
    int child_min, child_max;
    const Time child_hi = ChildEnd(n, i, node_hi);
    if (absl::Status s = CheckNode(n.child[i], h - 1, acc + n.lazy[i], false, child_hi, out,
                                   child_min, child_max, nodes);
        !s.ok()) {
      return s;
    }
    if (out[first].key != n.min_key[i] || child_min != n.min[i] + acc ||
        child_max != n.max[i] + acc) {
      return absl::InternalError(absl::StrFormat("stale summary above %d", n.min_key[i]));
    }
    if (runs_kept_) {
      const RunSummary runs = SummarizeRuns(n.child[i], h - 1, n.max[i] - n.lazy[i]);
      if (ChangedRuns(runs, RunsOf(n).run[i]) != 0) {
        return absl::InternalError(absl::StrFormat("stale run summary above %d", n.min_key[i]));
      }
      if (absl::Status s = CheckRuns(RunsOf(n).run[i], n.max[i] + acc, out.data() + first,
                                     out.data() + out.size(), child_hi);
          !s.ok()) {
        return s;
      }
    }
    min = std::min(min, child_min);
    max = std::max(max, child_max);
  }
  return absl::OkStatus();
}

// Checks a child's run summary against its exact steps [from, to), the last one ending at end;
// max: the child's exact max free capacity.
absl::Status Timeline::CheckRuns(const RunSummary& runs, int max, const Exact* from,
                                 const Exact* to, Time end) const {
  // The step containing t (from->key <= t < end).
  auto step_at = [&](Time t) {
    return std::upper_bound(from, to, t, [](Time x, const Exact& e) { return x < e.key; }) - 1;
  };
  for (int g = 0; g < kRunLevels; ++g) {
    const Time first_blocked = runs.first_blocked[g];
    const Time free_from = runs.free_from[g];
    if (first_blocked == kNoRun) continue;
    const std::int64_t level = std::int64_t{max} - run_offsets_[g];
    auto fail = [&](const char* what, Time at) {
      return absl::InternalError(absl::StrFormat(
          "run summary of the child at %d, threshold %d: %s at %d", from->key, level, what, at));
    };
    if (first_blocked < from->key || first_blocked >= end ||
        step_at(first_blocked)->free >= level) {
      return fail("first_blocked is not below the threshold", first_blocked);
    }
    if (free_from == kNoRun
            ? (to - 1)->free >= level
            : free_from <= from->key || free_from > end || step_at(free_from - 1)->free >= level) {
      return fail("free_from does not end a step below the threshold", free_from);
    }
    for (const Exact* e = from; e != to;) {
      if (e->free < level) {
        ++e;
        continue;
      }
      const Time run_start = e->key;
      while (e != to && e->free >= level) ++e;
      const Time run_end = e == to ? end : e->key;
      const bool covered = run_end <= first_blocked ||
                           (free_from != kNoRun && run_start >= free_from) ||
                           Wide{run_end} - run_start <= runs.longest[g];
      if (!covered) return fail("a run is longer than the summary says", run_start);
    }
  }
  return absl::OkStatus();
}

}  // namespace resched
