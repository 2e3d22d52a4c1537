#include "server/app/processor_rows.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "core/timeline/timeline.h"

namespace resched::server {
namespace {

// Every interval of any group (group -1) becomes pieces in groups: the groups' own intervals
// stay where they are, and each other one, in start order, goes to the groups with room for it
// over its whole window (counted), the lowest index first. Sorted as the input.
std::vector<IdInterval> GiveAnyToGroups(const std::vector<IdInterval>& intervals,
                                        const std::vector<int>& group_counts) {
  std::vector<Timeline> used;
  used.reserve(group_counts.size());
  for (int count : group_counts) used.emplace_back(count);
  const int groups = static_cast<int>(group_counts.size());
  for (const IdInterval& interval : intervals) {
    if (interval.group >= 0 && interval.group < groups && interval.start < interval.end) {
      (void)used[interval.group].ForceAdd(interval.start, interval.end, interval.k);
    }
  }
  std::vector<IdInterval> out;
  out.reserve(intervals.size());
  for (const IdInterval& interval : intervals) {
    if ((interval.group >= 0 && interval.group < groups) || interval.start == interval.end) {
      out.push_back(interval);
      continue;
    }
    int left = interval.k;
    for (int g = 0; g < groups && left > 0; ++g) {
      const int room = std::min(left, used[g].MinFree(interval.start, interval.end));
      if (room <= 0) continue;
      (void)used[g].ForceAdd(interval.start, interval.end, room);
      out.push_back({interval.start, interval.end, room, interval.slot, g, interval.preferred});
      left -= room;
    }
  }
  return out;
}

// Up to `k` ids of [first, end) for which `free` holds: those of `preferred` that are free;
// when none is, the shortest run of consecutive free ids that holds `k` (the lowest of equal
// ones, so that long runs stay for wide items); then free ids next to those taken, then the
// lowest free ones.
template <class Free>
std::vector<int> ChooseIds(int first, int end, int k, const std::vector<int>& preferred,
                           const Free& free) {
  std::vector<int> chosen;
  for (int id : preferred) {
    if (static_cast<int>(chosen.size()) == k) break;
    if (id >= first && id < end && free(id)) chosen.push_back(id);
  }
  if (static_cast<int>(chosen.size()) == k) return chosen;
  std::vector<char> is_free(end - first);
  for (int id = first; id < end; ++id) is_free[id - first] = free(id) ? 1 : 0;
  for (int id : chosen) is_free[id - first] = 0;
  if (chosen.empty()) {
    int best = -1;
    int best_length = end - first + 1;
    for (int id = first, run = first; id <= end; ++id) {
      if (id < end && is_free[id - first]) continue;
      const int length = id - run;
      if (length >= k && length < best_length) {
        best = run;
        best_length = length;
      }
      run = id + 1;
    }
    if (best >= 0) {
      chosen.resize(k);
      std::iota(chosen.begin(), chosen.end(), best);
      return chosen;
    }
  }
  auto take = [&](int id) {
    if (static_cast<int>(chosen.size()) == k || id < first || id >= end || !is_free[id - first]) {
      return false;
    }
    is_free[id - first] = 0;
    chosen.push_back(id);
    return true;
  };
  if (!chosen.empty()) {
    // Grow the rows kept at both ends before going elsewhere.
    const auto [low, high] = std::minmax_element(chosen.begin(), chosen.end());
    const int below = *low;
    const int above = *high;
    for (int id = above + 1; take(id); ++id) {
    }
    for (int id = below - 1; take(id); --id) {
    }
  }
  for (int id = first; id < end && static_cast<int>(chosen.size()) < k; ++id) (void)take(id);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace

// Interval colouring with counts, one range of ids per group: at most a group's count of its
// processors is busy at any instant, so taking free ids of the group in start order (ends
// released first) always succeeds for intervals of positive length, whichever free ids each
// takes. On several groups an interval of any group (a hold naming none) is first given to
// groups by count, the lowest index with room over its whole window first, so that it never
// takes ids a group's own intervals need later; pieces of it that fit no group go unreported.
std::vector<std::vector<int>> AssignProcessorIds(std::vector<IdInterval> intervals,
                                                 const std::vector<int>& group_counts,
                                                 size_t slot_count) {
  // At equal starts, those taking their ids back first (they stay put), then the wider: it finds
  // a long run of free ids before narrower ones cut it.
  std::sort(intervals.begin(), intervals.end(), [](const IdInterval& a, const IdInterval& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.preferred.empty() != b.preferred.empty()) return !a.preferred.empty();
    return a.k != b.k ? a.k > b.k : a.slot < b.slot;
  });
  if (group_counts.size() > 1) intervals = GiveAnyToGroups(intervals, group_counts);
  std::vector<int> first_id;  // of each group
  int capacity = 0;
  for (int count : group_counts) {
    first_id.push_back(capacity);
    capacity += count;
  }
  std::vector<char> free(capacity, 1);
  using Busy = std::pair<Time, std::vector<int>>;
  auto later = [](const Busy& a, const Busy& b) { return a.first > b.first; };
  std::priority_queue<Busy, std::vector<Busy>, decltype(later)> busy(later);
  std::vector<std::vector<int>> ids(slot_count);
  for (const auto& interval : intervals) {
    const int group = interval.group >= 0 && interval.group < static_cast<int>(first_id.size())
                          ? interval.group
                          : 0;
    const int base = first_id.empty() ? 0 : first_id[group];
    const int end = first_id.empty() ? 0 : base + group_counts[group];
    if (interval.start == interval.end) {
      // No length (a job that ended at its start): it occupies no instant, so any ids of its
      // group do, and the ones in use at its start may be all there are.
      if (interval.slot >= 0) {
        for (int id = 0; id < interval.k; ++id) ids[interval.slot].push_back(base + id);
      }
      continue;
    }
    while (!busy.empty() && busy.top().first <= interval.start) {
      for (int id : busy.top().second) free[id] = 1;
      busy.pop();
    }
    std::vector<int> taken =
        ChooseIds(base, end, interval.k, interval.preferred, [&](int id) { return free[id]; });
    for (int id : taken) free[id] = 0;
    if (interval.slot >= 0) {
      // A hold given to several groups comes in pieces, one per group.
      std::vector<int>& mine = ids[interval.slot];
      mine.insert(mine.end(), taken.begin(), taken.end());
      std::sort(mine.begin(), mine.end());
    }
    busy.push({interval.end, std::move(taken)});
  }
  return ids;
}

ProcessorRows::ProcessorRows(std::vector<int> group_counts)
    : group_counts_(std::move(group_counts)) {
  for (int count : group_counts_) {
    first_id_.push_back(capacity_);
    capacity_ += count;
  }
  busy_.resize(capacity_);
  occupancy_ = RowOccupancy(capacity_);
}

std::pair<int, int> ProcessorRows::RangeOf(int group) const {
  if (group < 0 || group >= static_cast<int>(group_counts_.size())) return {0, capacity_};
  return {first_id_[group], first_id_[group] + group_counts_[group]};
}

void ProcessorRows::Occupy(const Entry& entry) {
  if (entry.span.start >= entry.span.end) return;
  // Hinted at the end: a new span usually comes after a row's others (one search fewer).
  for (int id : entry.ids) {
    busy_[id].emplace_hint(busy_[id].end(), entry.span.start, entry.span.end);
  }
  occupancy_.Add(entry.ids, entry.span.start, entry.span.end);
}

void ProcessorRows::Vacate(const Entry& entry) {
  if (entry.span.start >= entry.span.end) return;
  std::vector<int> held;  // the ids whose span it holds
  held.reserve(entry.ids.size());
  for (int id : entry.ids) {
    auto it = busy_[id].find(entry.span.start);
    if (it == busy_[id].end() || it->second != entry.span.end) continue;
    busy_[id].erase(it);
    held.push_back(id);
  }
  occupancy_.Remove(held, entry.span.start, entry.span.end);
}

bool ProcessorRows::Place(Entry& entry, const absl::flat_hash_set<std::string>& unplaced,
                          absl::flat_hash_set<std::string>& moved) {
  const Span& span = entry.span;
  const std::pair<int, int> range = RangeOf(span.group);
  const int first = range.first;
  const int end = range.second;
  if (span.start >= span.end) {  // occupies no instant (AssignProcessorIds)
    entry.ids.resize(std::min(span.k, end - first));
    std::iota(entry.ids.begin(), entry.ids.end(), first);
    return true;
  }
  const std::vector<std::uint64_t> busy = occupancy_.BusyOver(first, end, span.start, span.end);
  std::vector<int> chosen = ChooseIds(first, end, span.k, entry.ids,
                                      [&](int id) { return !RowOccupancy::Has(busy, first, id); });
  if (static_cast<int>(chosen.size()) < span.k && !TradeRowsFor(span, chosen, unplaced, moved)) {
    return false;
  }
  std::sort(chosen.begin(), chosen.end());
  entry.ids = std::move(chosen);
  Occupy(entry);
  return true;
}

std::vector<std::string> ProcessorRows::Update(const std::vector<Change>& changes) {
  // Every changed item leaves its rows first, so that items trading places find them free.
  std::vector<std::pair<Span, std::string>> pending;
  for (const auto& [key, span] : changes) {
    auto it = items_.find(key);
    if (!span) {
      if (it == items_.end()) continue;
      Vacate(it->second);
      Unindex(key, it->second.span);
      items_.erase(it);
      continue;
    }
    if (it != items_.end()) {
      if (it->second.span == *span) continue;
      Vacate(it->second);
      Unindex(key, it->second.span);
      it->second.span = *span;
    } else {
      items_.emplace(key, Entry{*span, {}});
    }
    Index(key, *span);
    pending.emplace_back(*span, key);
  }
  std::sort(pending.begin(), pending.end(), [](const auto& a, const auto& b) {
    if (a.first.start != b.first.start) return a.first.start < b.first.start;
    return a.first.k != b.first.k ? a.first.k > b.first.k : a.second < b.second;
  });
  // Many new items at once (the first use, a restored cluster): one pass over all costs less
  // than a search of every processor's spans per item.
  constexpr size_t kPlacedOneByOne = 64;
  size_t placed = 0;
  absl::flat_hash_set<std::string> swapped;
  absl::flat_hash_set<std::string> unplaced;  // their ids are the ones they had, or none
  for (const auto& [span, key] : pending) unplaced.insert(key);
  if (pending.size() <= kPlacedOneByOne) {
    while (placed < pending.size()) {
      const std::string& key = pending[placed].second;
      Entry& entry = items_[key];
      if (!Place(entry, unplaced, swapped)) break;
      unplaced.erase(key);
      ++placed;
    }
  }
  absl::flat_hash_set<std::string> changed_here;
  for (const auto& [key, span] : changes) changed_here.insert(key);
  std::vector<std::string> moved;
  for (const std::string& key : swapped) {
    if (!changed_here.contains(key)) moved.push_back(key);
  }
  if (placed == pending.size()) return moved;
  for (std::string& key : AssignFrom(pending[placed].first.start, unplaced)) {
    if (!changed_here.contains(key) && !swapped.contains(key)) moved.push_back(std::move(key));
  }
  return moved;
}

// A sweep in start order from `from`: the items that started before it and still hold rows
// there take their own rows first (they never collide among themselves), and every item that
// starts at or after it finds free ones, since at no instant are more processors busy than
// there are. Items over before `from` are left alone.
std::vector<std::string> ProcessorRows::AssignFrom(
    Time from, const absl::flat_hash_set<std::string>& unplaced) {
  std::vector<std::string> keys;
  std::vector<IdInterval> intervals;
  for (auto& [key, entry] : items_) {
    if (entry.span.end <= from && entry.span.start < from) continue;
    if (!unplaced.contains(key)) Vacate(entry);
    intervals.push_back({entry.span.start, entry.span.end, entry.span.k,
                         static_cast<int>(keys.size()), entry.span.group, entry.ids});
    keys.push_back(key);
  }
  std::vector<std::vector<int>> ids =
      AssignProcessorIds(std::move(intervals), group_counts_, keys.size());
  std::vector<std::string> moved;
  for (size_t i = 0; i < keys.size(); ++i) {
    Entry& entry = items_[keys[i]];
    if (entry.ids != ids[i]) moved.push_back(keys[i]);
    entry.ids = std::move(ids[i]);
    Occupy(entry);
  }
  return moved;
}

Time ProcessorRows::FreeUntil(int id, Time at) const {
  const absl::btree_map<Time, Time>& spans = busy_[id];
  auto after = spans.upper_bound(at);
  if (after != spans.begin() && std::prev(after)->second > at) return at;  // busy at `at`
  return after == spans.end() ? std::numeric_limits<Time>::max() : after->first;
}

Time ProcessorRows::NoSpanAcross(int a, int b, Time from) const {
  for (bool moved = true; moved;) {
    moved = false;
    for (int id : {a, b}) {
      auto after = busy_[id].upper_bound(from);
      if (after == busy_[id].begin()) continue;
      const auto& [start, end] = *std::prev(after);
      if (start < from && end > from) {
        from = end;
        moved = true;
      }
    }
  }
  return from;
}

void ProcessorRows::SwapRows(int a, int b, Time from, Time to,
                             const absl::flat_hash_set<std::string>& unplaced,
                             absl::flat_hash_set<std::string>& moved) {
  // The items holding `id` over spans that start in [from, to), found by their start.
  auto holders = [&](int id) {
    std::vector<std::pair<Time, Time>> spans;
    std::vector<std::pair<const std::string*, Entry*>> entries;
    for (auto it = busy_[id].lower_bound(from); it != busy_[id].end() && it->first < to; ++it) {
      spans.emplace_back(it->first, it->second);
      for (auto key = by_start_.lower_bound({it->first, std::string()});
           key != by_start_.end() && key->first == it->first; ++key) {
        Entry& entry = items_.find(key->second)->second;
        if (entry.span.end == it->second && !unplaced.contains(key->second) &&
            std::find(entry.ids.begin(), entry.ids.end(), id) != entry.ids.end()) {
          entries.emplace_back(&key->second, &entry);
          break;
        }
      }
    }
    return std::make_pair(spans, entries);
  };
  auto [spans_a, holders_a] = holders(a);
  auto [spans_b, holders_b] = holders(b);
  busy_[a].erase(busy_[a].lower_bound(from), busy_[a].lower_bound(to));
  busy_[b].erase(busy_[b].lower_bound(from), busy_[b].lower_bound(to));
  for (const auto& [start, end] : spans_a) occupancy_.Remove(a, start, end);
  for (const auto& [start, end] : spans_b) occupancy_.Remove(b, start, end);
  busy_[b].insert(spans_a.begin(), spans_a.end());
  busy_[a].insert(spans_b.begin(), spans_b.end());
  for (const auto& [start, end] : spans_a) occupancy_.Add(b, start, end);
  for (const auto& [start, end] : spans_b) occupancy_.Add(a, start, end);
  // An item on both rows holds the same ids after the swap.
  for (auto [holders, from_id, to_id] :
       {std::tuple(&holders_a, a, b), std::tuple(&holders_b, b, a)}) {
    for (const auto& [key, entry] : *holders) {
      std::vector<int>& ids = entry->ids;
      if (std::find(ids.begin(), ids.end(), to_id) != ids.end()) continue;
      *std::find(ids.begin(), ids.end(), from_id) = to_id;
      std::sort(ids.begin(), ids.end());
      moved.insert(*key);
    }
  }
}

bool ProcessorRows::TradeRowsFor(const Span& span, std::vector<int>& chosen,
                                 const absl::flat_hash_set<std::string>& unplaced,
                                 absl::flat_hash_set<std::string>& moved) {
  if (group_counts_.size() > 1 && span.group < 0) return false;  // rows of any group: the sweep
  const std::pair<int, int> range = RangeOf(span.group);
  const int first = range.first;
  const int end = range.second;
  auto taken = [&](int id) { return std::find(chosen.begin(), chosen.end(), id) != chosen.end(); };
  // The row not taken, free at `at`, that stays free the longest; -1 when none is free.
  auto free_longest = [&](Time at, int except) {
    const std::vector<std::uint64_t> busy = occupancy_.BusyAt(first, end, at);
    int best = -1;
    Time best_until = at;
    for (int id = first; id < end; ++id) {
      if (id == except || RowOccupancy::Has(busy, first, id) || taken(id)) continue;
      const Time until = FreeUntil(id, at);
      if (until > best_until) {
        best = id;
        best_until = until;
      }
    }
    return std::make_pair(best, best_until);
  };
  while (static_cast<int>(chosen.size()) < span.k) {
    auto [row, free_until] = free_longest(span.start, -1);
    while (row >= 0 && free_until < span.end) {
      // Another row is free where this one is taken again (at most a group's count is busy at
      // any instant): the two trade what they hold from there until neither has a span across.
      const auto [other, other_free_until] = free_longest(free_until, row);
      if (other < 0) return false;
      SwapRows(row, other, free_until, NoSpanAcross(row, other, other_free_until), unplaced, moved);
      free_until = other_free_until;
    }
    if (row < 0) return false;
    chosen.push_back(row);
  }
  return true;
}

const std::vector<int>& ProcessorRows::Ids(const std::string& key) const {
  static const std::vector<int> kNone;
  auto it = items_.find(key);
  return it == items_.end() ? kNone : it->second.ids;
}

}  // namespace resched::server
