// The run summaries the timeline keeps in its inner nodes once the tree is tall enough, for
// wide searches.
#include <algorithm>
#include <bit>
#include <cassert>
#include <climits>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/timeline/timeline.h"
#include "core/timeline/timeline_internal.h"

namespace resched {

using namespace timeline_internal;  // NOLINT: the timeline's own helpers

namespace {

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

}  // namespace resched
