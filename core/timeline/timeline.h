// The reservation timeline: the step function free(t) = P - sum of reservations active at t.
//
// Representation: a B+-tree keyed by breakpoint time. Leaves hold up to kLeafCap breakpoints
// (key, free capacity of the segment [key, next key), reference count); an inner node holds up
// to kFanout children and, per child, its leftmost key, a pending add for the whole child and
// the child's min/max free capacity (pending add included), as parallel arrays so that a scan
// over the children touches few cache lines. All leaves are at the same depth: 4-5 levels for
// millions of breakpoints, so a root-to-leaf path costs a handful of cache misses.
// Adding or removing a reservation is a range-add: the pending adds of the fully covered
// children along the two boundary paths, O(kFanout log n). Searches walk the tree in time
// order and skip every child that is uniformly free (min >= k) or uniformly blocked (max < k)
// as a whole, and read a mixed child shorter than the request only along its two boundary
// paths (no run long enough fits inside it), so they never scan segment by segment. On deep
// trees each child's entry also summarizes where its free runs lie at a few thresholds near
// its max (RunSummary), which lets a wide request skip a busy subtree as it skips a short one.
//
// Nodes live in two vectors (indices, not pointers), so Copy() is a contiguous copy.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/model/allocation.h"
#include "core/model/reservation_id.h"
#include "core/model/time.h"
#include "core/timeline/huge_page_allocator.h"

namespace resched {

// A timeline's reservations with the bookkeeping that decides its next ids (which slot is
// reused next, each slot's generation): what a restart needs to answer as this timeline would
// (snapshots, docs/durability.md). The tree itself is rebuilt from the live reservations.
struct TimelineImage {
  struct Slot {
    Allocation reservation;
    std::uint32_t generation = 0;
    bool live = false;
  };
  int capacity = 0;
  std::vector<Slot> slots;
  std::vector<std::uint32_t> free_slots;  // the slots of removed reservations, reused last first
};

// One add or release on a timeline that records its changes (Timeline::RecordChanges).
struct TimelineChange {
  ReservationId id = 0;
  Allocation reservation;
  bool added = false;
  Time searches_from = kTimeMin;  // a release's, as ReleaseHeld was given it
};

struct TimelineStep {
  Time start = 0;
  Time end = 0;  // exclusive; kTimeMax for the last step
  int free = 0;
};

class Timeline {
 public:
  explicit Timeline(int capacity);

  int capacity() const { return capacity_; }
  std::size_t reservation_count() const { return live_reservations_; }

  // Free processors at instant `at`.
  int FreeAt(Time at) const;

  // The smallest s >= not_before such that at least `processors` are free over all of
  // [s, s + length). A zero length or zero processors gives not_before. nullopt when no such s
  // exists (more processors than the capacity, or a hold that never ends).
  std::optional<Time> EarliestStart(Time not_before, Duration length, int processors) const;
  // The same s if s <= start_limit, else nullopt; the walk stops at start_limit, so a bound
  // (a start that would not beat an answer in hand) saves crossing the rest of the profile.
  std::optional<Time> EarliestStart(Time not_before, Duration length, int processors,
                                    Time start_limit) const;

  // The largest s >= not_before with s + length <= deadline such that at least `processors`
  // are free over all of [s, s + length).
  std::optional<Time> LatestStart(Time not_before, Time deadline, Duration length,
                                  int processors) const;

  // Minimum free capacity over [start, end); capacity for an empty window.
  int MinFree(Time start, Time end) const;

  // Holds `processors` over [start, end). Fails with INVALID_ARGUMENT (start >= end,
  // processors < 1) or RESOURCE_EXHAUSTED (fewer free somewhere in the window) and then changes
  // nothing.
  absl::StatusOr<ReservationId> Add(Time start, Time end, int processors);
  // Same, without the capacity check: free(t) may go negative (a node loss below what is
  // already booked). Callers must repair; searches treat negative capacity as blocked.
  absl::StatusOr<ReservationId> ForceAdd(Time start, Time end, int processors);
  // Releases a reservation; NOT_FOUND for an unknown or already removed id.
  absl::Status Remove(ReservationId id);
  // Releases a reservation the caller booked and still holds: Remove's only error, an unknown
  // id, would be a bookkeeping bug there, which debug builds assert on. `searches_from`: no
  // search on this timeline begins before it from now on (a clock); a reservation that ended
  // by then frees nothing such a search could use, so capacity_version() stays.
  void ReleaseHeld(ReservationId id, Time searches_from = kTimeMin);
  // Shortens or moves nothing: only the reservation's record.
  std::optional<Allocation> Get(ReservationId id) const;

  // Calls fn for each maximal step intersecting [from, to), clipped to the window, in order.
  void ForEachStep(Time from, Time to, const std::function<void(const TimelineStep&)>& fn) const;

  TimelineImage Image() const;
  // The timeline an image describes; DATA_LOSS naming the slot when the image is inconsistent
  // (a free slot listed twice or live, a live slot not freed and not listed, a bad window).
  static absl::StatusOr<Timeline> FromImage(const TimelineImage& image);

  // An independent copy for what-if queries; O(n) memcpy of the node pools.
  Timeline Copy() const { return *this; }

  // Changes whenever free capacity may have grown (a removal) and differs between any two
  // timeline objects, copies included: facts learned from searches ("nothing fits before s"),
  // which only adds leave true, hold while it stays the same (core/online/start_bounds.h).
  std::uint64_t capacity_version() const { return version_.value; }

  // The change record, for structures that mirror some of the bookings (core/online/part_views.h)
  // and catch up with what others changed instead of rescanning every booking. RecordChanges()
  // starts a fresh record under a new stream number (never 0); every add and release is then
  // appended in order until the reader drops what it has read. A copy or an assignment does not
  // record (stream 0), and a record that outgrows max(65536, 4 x live reservations) is dropped
  // (stream 0): a reader that finds another stream than its own must rebuild from the bookings.
  std::uint64_t RecordChanges();
  std::uint64_t change_stream() const { return changes_.stream; }
  const std::vector<TimelineChange>& changes() const { return changes_.entries; }
  // Drops the first `count` recorded changes (those the reader has applied).
  void DropChanges(std::size_t count);

  // The op log, for a timeline elsewhere that must follow this one id for id (a journal's
  // replay): from LogOps(true) on, every add and release is kept, in order, until TakeOps. A
  // copy or an assignment does not log. Ids depend on the slots' history, so the follower applies
  // every op, those of calls that failed and undid their changes included.
  void LogOps(bool on);
  bool logs_ops() const { return ops_.on; }
  std::size_t logged_ops() const { return ops_.ops.size(); }
  std::vector<TimelineChange> TakeOps();
  // Applies an op another timeline logged, on a timeline in the state that one was in: an add
  // must get the logged id, a release must find it. DATA_LOSS naming the id otherwise, having
  // changed nothing. Adds skip the capacity check, as the logged one may have (ForceAdd).
  absl::Status ApplyOp(const TimelineChange& op);

  // Number of breakpoints, the sentinel at kTimeMin included (1 for an empty timeline).
  std::size_t breakpoint_count() const { return breakpoints_; }
  // Bytes held by the node pools (the reservation records not included).
  std::size_t node_pool_bytes() const {
    return leaves_.capacity() * sizeof(Leaf) + inners_.capacity() * sizeof(Inner) +
           run_blocks_.capacity() * sizeof(RunBlock);
  }
  // O(n) self-check for tests: key order, node sizes and depths, augmentation, reference
  // counts and free values against the reservation records.
  absl::Status CheckInvariants() const;

  // The free-run summaries that let a wide search skip whole subtrees cost an update up to
  // about half more (docs/timeline.md), and pay only on deep trees: they are kept once the tree is
  // `height` levels tall (kRunIndexHeight by default: from about 50k breakpoints, 25k reservations)
  // and dropped below height - 1. Searches answer the same either way. Tests lower it to cover
  // small timelines.
  static constexpr int kRunIndexHeight = 4;
  void SetRunIndexHeightForTest(int height);
  bool keeps_run_summaries() const { return runs_kept_; }

 private:
  using Index = std::int32_t;
  static constexpr Index kNil = -1;
  static constexpr int kLeafCap = 32;
  static constexpr int kFanout = 16;
  // Below these a node borrows from or merges with a sibling. A quarter (not half) leaves
  // room between the merge and split sizes, so alternating inserts and erasures at one place
  // do not split and merge the same node over and over.
  static constexpr int kLeafMin = kLeafCap / 4;
  static constexpr int kInnerMin = kFanout / 4;
  // Free-run summaries per child, at kRunLevels thresholds below the child's max free capacity
  // (run_offsets_): what lets a search skip a mixed child that holds no run long enough.
  static constexpr int kRunLevels = 3;

  // Values are exact once the pending adds on the path from the root are added.
  struct alignas(64) Leaf {
    Time key[kLeafCap];
    int free[kLeafCap];           // free capacity on [key, next key)
    std::int32_t refs[kLeafCap];  // reservations starting or ending at key; sentinel pinned
    int count;
  };
  // Where a child's free runs can be, at the thresholds max - run_offsets_[g] (max: the child's
  // max free capacity; relative, so pending adds leave them valid). At each threshold, every
  // maximal run of the child lies before first_blocked, or from free_from on, or lasts at most
  // longest. These are bounds: a summary is composed from the children's at their nearest
  // threshold at or below.
  struct RunSummary {
    Time first_blocked[kRunLevels];  // kNoRun: no claim at this threshold
    Time free_from[kRunLevels];      // kNoRun: the child's last segment is below the threshold
    Duration longest[kRunLevels];
  };
  // kKeep: nothing a run summary depends on (the keys, maxima and summaries of the child's
  // entries) changed, so the child's still holds.
  enum class RunUpkeep { kRecompute, kKeep };
  // What an update changed. For an entry: its min (the parent's min/max must follow), its key
  // or max (kShapeChanged), its run summary at threshold g (kRunsChanged << g). For a node:
  // kMinChanged, and kShapeChanged when its own run summary may change. kErased: Unpin erased
  // a key.
  static constexpr int kMinChanged = 1;
  static constexpr int kShapeChanged = 2;
  static constexpr int kErased = 4;
  static constexpr int kRunsChanged = 8;
  static constexpr int kReshaped = kShapeChanged | (((1 << kRunLevels) - 1) * kRunsChanged);
  struct alignas(64) Inner {
    Time min_key[kFanout];  // leftmost key of the child
    int lazy[kFanout];      // pending add for the whole child
    int min[kFanout];       // min/max free over the child, its pending add included
    int max[kFanout];
    Index child[kFanout];  // leaf indices at height 1, inner ones above
    int count;
  };
  // The run summaries of an inner node's children, in a pool parallel to the inner nodes (same
  // index): apart from the arrays every descent reads, which stay dense in cache.
  struct alignas(64) RunBlock {
    RunSummary run[kFanout];
  };
  RunBlock& RunsOf(const Inner& n) {
    return run_blocks_[static_cast<std::size_t>(&n - inners_.data())];
  }
  const RunBlock& RunsOf(const Inner& n) const {
    return run_blocks_[static_cast<std::size_t>(&n - inners_.data())];
  }
  // Moves entries [from, from + len) of src to [to, to + len) of dst (dst may be src), with
  // their run summaries when they are inner nodes' entries.
  template <typename N>
  void MoveEntries(N& dst, int to, const N& src, int from, int len);
  struct EarliestWalk;  // search states (timeline_search.cc)
  struct LatestWalk;
  struct StepWalk;
  struct Exact;  // a breakpoint with its exact value (timeline_check.cc)

  absl::StatusOr<ReservationId> Insert(Time start, Time end, int k, bool check_capacity);

  // The tree (timeline_tree.cc). `h` is a node's height: 0 for leaves.
  Index NewLeaf();
  Index NewInner();
  int Count(Index node, int h) const;
  void Push(Inner& n, int i, int h);
  int Refresh(Inner& n, int i, int h, RunUpkeep upkeep);
  void Pin(Time key);
  Index PinIn(Index node, int h, Time key);
  Index InsertChild(Index node, int pos, Index child, int h);
  void Unpin(Time key);
  int UnpinIn(Index node, int h, Time key);
  void Rebalance(Index node, int i, int h);
  // Returns kMinChanged if an entry's min changed, kShapeChanged if node's own run summary may
  // have.
  int AddRange(Index node, int h, Time lo, Time hi, Time node_hi, int delta);
  static std::pair<int, int> AddToLeaf(Leaf& l, Time lo, Time hi, int delta);
  int AddToLeafChild(Inner& n, int i, Time lo, Time hi, int delta);

  // The run summaries (timeline_runs.cc).
  int RefreshRuns(Inner& n, int i, int h);
  static int ChangedRuns(const RunSummary& a, const RunSummary& b);  // kRunsChanged << g bits
  // Whether n's own run summary reads entry i differently after a change described by entry
  // (its flags) that left n's max at top and moved the entry's max from old_max.
  bool Matters(const Inner& n, int i, int entry, int old_max, int top) const;
  RunSummary SummarizeRuns(Index node, int h, int max) const;
  void FollowHeight();  // starts or stops keeping run summaries as the height changed
  void SummarizeAllRuns(Index node, int h);
  RunSummary SummarizeLeafRuns(const Leaf& l, int max) const;
  RunSummary SummarizeInnerRuns(const Inner& n, int max) const;
  int RunLevelAbove(int offset) const;

  // The queries (timeline_search.cc) carry the pending adds of the ancestors in `acc` instead of
  // pushing them.
  void SegmentMin(Index node, int h, int acc, Time lo, Time hi, Time node_hi, int& best) const;
  void EarliestFrom(Index node, int h, int acc, Time node_hi, EarliestWalk& w) const;
  void EarliestChild(const Inner& n, int i, int h, int acc, Time hi, EarliestWalk& w) const;
  Time FirstBlocked(Index node, int h, int acc, int k) const;
  Time LastBlockedEnd(Index node, int h, int acc, int k, Time node_hi) const;
  // End of the span of child i of n, whose own span ends at node_hi.
  static Time ChildEnd(const Inner& n, int i, Time node_hi) {
    return i + 1 < n.count ? n.min_key[i + 1] : node_hi;
  }
  void LatestBefore(Index node, int h, int acc, LatestWalk& w) const;
  void LatestChild(const Inner& n, int i, int h, int acc, LatestWalk& w) const;
  void StepRange(Index node, int h, int acc, StepWalk& w) const;

  // The self-check (timeline_check.cc).
  absl::Status CheckNode(Index node, int h, int acc, bool root, Time node_hi,
                         std::vector<Exact>& out, int& min, int& max, std::size_t& nodes) const;
  absl::Status CheckRuns(const RunSummary& runs, int max, const Exact* from, const Exact* to,
                         Time end) const;

  // A fresh value from a process-wide counter at construction, on every copy or assignment
  // and on Renew(), so that no two timelines and no two removal epochs share one.
  struct Version {
    std::uint64_t value = Next();
    Version() = default;
    Version(const Version& /*other*/) : value(Next()) {}
    Version& operator=(const Version& /*other*/) {
      value = Next();
      return *this;
    }
    void Renew() { value = Next(); }
    static std::uint64_t Next();
  };

  // Not copied: a copy is another timeline, whose changes no reader of this one follows.
  struct ChangeRecord {
    std::uint64_t stream = 0;
    std::vector<TimelineChange> entries;
    ChangeRecord() = default;
    ChangeRecord(const ChangeRecord& /*other*/) {}
    ChangeRecord(ChangeRecord&&) = default;
    ChangeRecord& operator=(const ChangeRecord& /*other*/) {
      stream = 0;
      entries.clear();
      return *this;
    }
    ChangeRecord& operator=(ChangeRecord&&) = default;
    ~ChangeRecord() = default;
    void Append(const TimelineChange& change, std::size_t live_reservations);
  };
  static constexpr std::size_t kMinChangeBound = 65536;

  // Not copied, as ChangeRecord.
  struct OpLog {
    bool on = false;
    std::vector<TimelineChange> ops;
    OpLog() = default;
    OpLog(const OpLog& /*other*/) {}
    OpLog(OpLog&&) = default;
    OpLog& operator=(const OpLog& /*other*/) {
      on = false;
      ops.clear();
      return *this;
    }
    OpLog& operator=(OpLog&&) = default;
    ~OpLog() = default;
  };

  int capacity_;
  int run_offsets_[kRunLevels];  // increasing
  int run_index_height_ = kRunIndexHeight;
  bool runs_kept_ = false;
  Version version_;
  ChangeRecord changes_;
  OpLog ops_;
  std::size_t live_reservations_ = 0;
  std::size_t breakpoints_ = 0;
  std::vector<Leaf, HugePageAllocator<Leaf>> leaves_;
  std::vector<Inner, HugePageAllocator<Inner>> inners_;
  std::vector<RunBlock, HugePageAllocator<RunBlock>> run_blocks_;  // one per inner node
  std::vector<Index> free_leaves_;
  std::vector<Index> free_inners_;
  Index root_ = kNil;
  int height_ = 0;
  // Reservation records by slot. An id is (generation << 32) | (slot + 1): a removed id stays
  // unknown after its slot is reused (until one slot has been reused 2^32 times), and finding
  // a record is one direct index (one cache miss on a large timeline, where a hash lookup
  // costs two: control bytes, then the slot).
  struct Record {
    Allocation reservation;
    std::uint32_t generation = 0;
    bool live = false;
  };
  const Record* FindRecord(ReservationId id) const;
  std::vector<Record, HugePageAllocator<Record>> records_;
  std::vector<std::uint32_t> free_records_;  // slots of removed records, reused last-in first
};

}  // namespace resched
