// Processor ids for display. The plan is count-based: allocations never exceed the capacity (nor
// a group's, on groups of different speeds), so ids are given afterwards and are never part of
// the plan. ProcessorRows keeps them per cluster so that a job stays on its rows while nothing
// about it changes, the CLI and the web view draw it on the same rows, and a wide job sits on
// consecutive rows wherever they are free.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/model/job.h"
#include "server/app/row_occupancy.h"

namespace resched::server {

// One allocation or hold to give processor ids to.
struct IdInterval {
  Time start;
  Time end;
  int k;
  int slot;        // where its ids go in the answer; -1: takes ids but reports none
  int group = -1;  // the processor group whose ids it takes; -1: any
  // The ids it had: taken again wherever they are all free at its start.
  std::vector<int> preferred = {};
};
// The ids of each slot (of `slot_count`), assigned in start order. Group i owns the ids from the
// sum of the counts before it (one group: the whole cluster). The intervals must never exceed a
// group's count nor the total at any instant (intervals of no length occupy no instant); those
// of a group then always get ids: those of their preferred ones that are free, else the shortest
// run of consecutive free ids that holds them, else free ids next to those taken, else the
// lowest free ones. One of any group on several groups takes ids
// in the groups that have room for it over its whole window (by count, the lowest index first),
// so it never takes ids a group's own intervals need; where its processors are free only in
// different groups at different instants of its window, it reports fewer.
std::vector<std::vector<int>> AssignProcessorIds(std::vector<IdInterval> intervals,
                                                 const std::vector<int>& group_counts,
                                                 size_t slot_count);

// The ids of every item drawn (a job, a DAG task, a hold), kept across changes: an item whose
// span is unchanged keeps its ids; a changed one keeps those of its ids still free over its new
// span and takes the others where they are free, consecutive where they can be. When too few ids
// are free over its whole span (the free processors change over it), rows trade: a row free at
// its start, where it is taken again, trades what it holds with a row free from then on, up to
// the first instant no span of either lies across, until it is free to the end (TradeRowsFor); only
// the items in the traded stretches move. Only an item of any group on several groups that finds
// no rows so has the items holding rows from its start on assigned again in start order, each
// keeping its ids where it can; those that started earlier keep theirs.
class ProcessorRows {
 public:
  struct Span {
    Time start = 0;
    Time end = 0;
    int k = 0;
    int group = -1;  // -1: any
    bool operator==(const Span&) const = default;
  };
  using Change = std::pair<std::string, std::optional<Span>>;  // nullopt: no longer drawn

  explicit ProcessorRows(std::vector<int> group_counts);

  // Applies the changes of one step. Returns the keys not among them whose ids changed too
  // (rows traded, or an assignment of all items again), in no particular order.
  std::vector<std::string> Update(const std::vector<Change>& changes);
  // Drops every key not in `keep` (items that left the plan without a change of their own).
  template <class Pred>
  void RetainIf(const Pred& keep);
  // The ids of `key`, ascending; empty for a key it does not hold.
  const std::vector<int>& Ids(const std::string& key) const;
  size_t size() const { return items_.size(); }

 private:
  struct Entry {
    Span span;
    std::vector<int> ids;
  };
  // The id range [first, end) an item of `group` takes ids from.
  std::pair<int, int> RangeOf(int group) const;
  void Occupy(const Entry& entry);
  void Vacate(const Entry& entry);
  // Gives `entry` k ids free over its span, its own first, trading rows where too few are
  // (TradeRowsFor, whose arguments these are); false where that fails, its ids unchanged.
  bool Place(Entry& entry, const absl::flat_hash_set<std::string>& unplaced,
             absl::flat_hash_set<std::string>& moved);
  // The items that hold rows at or after `from` assigned again in start order (`unplaced`: those
  // holding none now); the keys whose ids changed.
  std::vector<std::string> AssignFrom(Time from, const absl::flat_hash_set<std::string>& unplaced);
  // When `id` is next taken at or after `at`: `at` where it is taken at `at`.
  Time FreeUntil(int id, Time at) const;
  // The first instant at or after `from` that no span of ids `a` or `b` lies across.
  Time NoSpanAcross(int a, int b, Time from) const;
  // Ids `a` and `b` trade the spans that start in [from, to), where no span lies across either
  // end; the items whose ids changed go into `moved`. `unplaced`: items that hold no rows now.
  void SwapRows(int a, int b, Time from, Time to, const absl::flat_hash_set<std::string>& unplaced,
                absl::flat_hash_set<std::string>& moved);
  // Adds to `chosen` (ids free over `span`) until it holds k, by trading rows: a row free at
  // the span's start, where it is taken again, trades what it holds from there with a row free
  // then, until it is free to the end. False (others' rows perhaps traded, and in `moved`) for a
  // span of any group on several groups, or where more than a group's count would be busy.
  bool TradeRowsFor(const Span& span, std::vector<int>& chosen,
                    const absl::flat_hash_set<std::string>& unplaced,
                    absl::flat_hash_set<std::string>& moved);
  void Index(const std::string& key, const Span& span) { by_start_.emplace(span.start, key); }
  void Unindex(const std::string& key, const Span& span) { by_start_.erase({span.start, key}); }

  std::vector<int> group_counts_;
  std::vector<int> first_id_;  // of each group
  int capacity_ = 0;
  absl::flat_hash_map<std::string, Entry> items_;
  // Per id, the spans holding it: start -> end, never overlapping.
  std::vector<absl::btree_map<Time, Time>> busy_;
  RowOccupancy occupancy_{0};  // the same spans, by block of rows: which are free over a span
  // Every item by start: who holds a row's span (SwapRows).
  absl::btree_set<std::pair<Time, std::string>> by_start_;
};

template <class Pred>
void ProcessorRows::RetainIf(const Pred& keep) {
  for (auto it = items_.begin(); it != items_.end();) {
    if (keep(it->first)) {
      ++it;
      continue;
    }
    Vacate(it->second);
    Unindex(it->first, it->second.span);
    items_.erase(it++);
  }
}

}  // namespace resched::server
