// Timeline::CheckInvariants: the representation against the invariants of
// core/timeline/timeline_internal.h.
#include <algorithm>
#include <climits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "core/timeline/timeline.h"
#include "core/timeline/timeline_internal.h"

namespace resched {

using namespace timeline_internal;  // NOLINT: the timeline's own helpers

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
