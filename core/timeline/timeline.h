// The reservation timeline: the step function free(t) = P - sum of reservations active at t.
//
// Representation: a treap keyed by breakpoint time. Each node is the segment
// [key, next key) with its free capacity; nodes carry a lazy range-add and are augmented with
// the subtree's minimum and maximum free capacity and its leftmost key (kept per child, in the
// parent, so that a cache miss is paid only for nodes actually entered). Adding or removing a
// reservation is a range-add over the segments it covers (O(log n) expected). Searches walk
// the tree in time order and skip every subtree that is uniformly free (min >= k) or
// uniformly blocked (max < k) as a whole, so they never scan segment by segment.
//
// Nodes live in one vector (indices, not pointers), so Snapshot() is a single contiguous copy
// and deterministic: priorities are a fixed-seed hash of the node's slot.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/model/time.h"

namespace resched {

using ReservationId = std::int64_t;

struct TimelineReservation {
  Time start = 0;
  Time end = 0;  // exclusive
  int k = 0;
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

  // Free processors at instant t.
  int FreeAt(Time t) const;

  // Smallest s >= t0 such that free(u) >= k for all u in [s, s + d). d == 0 or k == 0 gives t0.
  // nullopt when no such s exists (k > capacity, or a hold that never ends).
  std::optional<Time> EarliestStart(Time t0, Duration d, int k) const;

  // Largest s with s >= t0 and s + d <= deadline such that free(u) >= k on [s, s + d).
  std::optional<Time> LatestStart(Time t0, Time deadline, Duration d, int k) const;

  // Minimum free capacity over [start, end); capacity for an empty window.
  int MinFree(Time start, Time end) const;

  // Holds k processors over [start, end). Fails with INVALID_ARGUMENT (start >= end, k < 1) or
  // RESOURCE_EXHAUSTED (fewer than k free somewhere in the window) and then changes nothing.
  absl::StatusOr<ReservationId> Add(Time start, Time end, int k);
  // Same, without the capacity check: free(t) may go negative (a node loss below what is
  // already booked). Callers must repair; searches treat negative capacity as blocked.
  absl::StatusOr<ReservationId> ForceAdd(Time start, Time end, int k);
  // Releases a reservation; NOT_FOUND for an unknown or already removed id.
  absl::Status Remove(ReservationId id);
  // Shortens or moves nothing: only the reservation's record.
  std::optional<TimelineReservation> Get(ReservationId id) const;

  // Calls fn for each maximal step intersecting [from, to), clipped to the window, in order.
  void ForEachStep(Time from, Time to, const std::function<void(const TimelineStep&)>& fn) const;

  // An independent copy for what-if queries; O(n) memcpy of the node pool, no rebalancing.
  Timeline Snapshot() const { return *this; }

  // Number of breakpoints, the sentinel at kTimeMin included (1 for an empty timeline).
  std::size_t breakpoint_count() const { return nodes_.size() - free_slots_.size(); }
  // O(n) self-check for tests: treap order and heap property, augmentation, reference counts
  // and free values against the reservation records.
  absl::Status CheckInvariants() const;

 private:
  using Index = std::int32_t;
  static constexpr Index kNil = -1;

  // One cache line. Searches decide about a child subtree from the summary cached here, and
  // splits push only along their path, so neither touches the children they do not enter.
  // Values are exact once the pending adds on the path from the root are added; the priority
  // is a fixed-seed hash of the pool slot, so it needs no storage.
  struct alignas(64) Node {
    Time key;
    Time left_min_key;   // leftmost key of the left subtree (if any)
    Time right_min_key;  // leftmost key of the right subtree: the successor of key
    int free;            // free capacity on [key, successor key)
    int left_lazy;       // pending add for the whole left subtree
    int right_lazy;
    int left_min;  // min/max free over the left subtree, its pending add included
    int left_max;
    int right_min;
    int right_max;
    std::int32_t refs;  // reservations starting or ending at key; the sentinel is pinned
    Index left;
    Index right;
  };
  // Minimum and maximum free capacity of a subtree and its leftmost key.
  struct Summary {
    int min;
    int max;
    Time min_key;
  };
  struct EarliestWalk;  // search states, defined in timeline.cc
  struct LatestWalk;
  struct StepWalk;

  absl::StatusOr<ReservationId> Insert(Time start, Time end, int k, bool check_capacity);
  int MinFreeOf(Index before, Index inside, Time start) const;
  void Unbook(Time start, Time end, int k);
  Index Pin(Index left, Index right, Time key);
  Index Unpin(Index t);

  // Treap primitives (timeline.cc).
  static std::uint64_t Priority(Index t);
  Index NewNode(Time key, int free, std::int32_t refs);
  void Apply(Index t, int delta);
  void PushLeft(Node& n);
  void PushRight(Node& n);
  void SetLeft(Node& n, Index child);
  void SetRight(Node& n, Index child);
  Summary Own(Index t) const;
  std::pair<Index, Index> Split(Index t, Time key);
  Index Merge(Index a, Index b);
  Index PopLeftmost(Index t);
  void WarmPaths(Time a, Time b) const;
  Index Leftmost(Index t) const;
  int RightmostFree(Index t) const;

  // Const queries carry the pending adds of the ancestors in `acc` instead of pushing them.
  int RangeMin(Time lo, Time hi) const;
  void EarliestAfter(Index t, int acc, const Summary& s, EarliestWalk& w) const;
  void EarliestSubtree(Index t, int acc, const Summary& s, EarliestWalk& w) const;
  void LatestBefore(Index t, int acc, LatestWalk& w) const;
  void LatestSubtree(Index t, int acc, const Summary& s, LatestWalk& w) const;
  void StepRange(Index t, int acc, StepWalk& w) const;
  absl::Status CheckSubtree(Index t, int acc, std::vector<Node>& out, Summary& exact) const;

  int capacity_;
  std::size_t live_reservations_ = 0;
  std::vector<Node> nodes_;
  std::vector<Index> free_slots_;
  Index root_ = kNil;
  ReservationId next_id_ = 1;
  absl::flat_hash_map<ReservationId, TimelineReservation> reservations_;
};

}  // namespace resched
