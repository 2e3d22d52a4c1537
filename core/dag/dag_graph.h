// The shape of a DAG as the planners walk it: adjacency lists, a topological order, and each
// task's allowed widths with their run times on a cluster of a given size (computed once, since
// every planner asks for them many times).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/dag.h"
#include "core/model/time.h"

namespace resched {

struct Arc {
  int task = 0;           // the other end
  Duration transfer = 0;  // the edge's delay
};

// Run times of one task by width: widths ascending, times[i] the run time on widths[i].
struct WidthTable {
  std::vector<int> widths;
  std::vector<Duration> times;
  // fastest[i]: the least run time over widths[0..i], to stop scans over narrower widths early
  // even for models that are not monotone.
  std::vector<Duration> fastest;

  // The index of the largest width <= k (the smallest width when none is <= k).
  int IndexAtMost(int k) const;
  // Run time on the largest allowed width <= k.
  Duration TimeAtMost(int k) const { return times[IndexAtMost(k)]; }
  int WidthAtMost(int k) const { return widths[IndexAtMost(k)]; }
};

struct DagGraph {
  int capacity = 0;
  std::vector<std::string> names;
  std::vector<std::vector<Arc>> preds;
  std::vector<std::vector<Arc>> succs;
  std::vector<int> topo;  // a topological order
  std::vector<WidthTable> widths;

  int size() const { return static_cast<int>(preds.size()); }
};

// Validates the DAG against `capacity` (ValidateDag) and builds its graph. Width tables stop at
// `max_width` (at least each task's smallest width): a planner that never looks past q
// processors does not pay for run times on all P.
absl::StatusOr<DagGraph> BuildDagGraph(const Dag& dag, int capacity, int max_width = 0);

// The subgraph of the tasks in `keep` (in `keep`'s order, which becomes their new index) with
// the arcs between them; the capacity, names and width tables come along.
DagGraph InducedSubgraph(const DagGraph& g, const std::vector<int>& keep);

// Bottom levels (Aida & Casanova §4.2: the longest path from a task to the exit, as a sum of
// task times, here with the edges' transfer delays added) for the given per-task run times.
std::vector<Duration> BottomLevels(const DagGraph& g, const std::vector<Duration>& time);
// Top levels: the longest path from an entry to the task, excluding the task.
std::vector<Duration> TopLevels(const DagGraph& g, const std::vector<Duration>& time);

// Per-task run times on the given widths (each clamped to the largest allowed width <= it).
std::vector<Duration> TimesFor(const DagGraph& g, const std::vector<int>& widths);

// Tasks by decreasing bottom level; ties by topological position, so every predecessor comes
// before its successors even when a delay or time is zero.
std::vector<int> ByDecreasingBottomLevel(const DagGraph& g, const std::vector<Duration>& bl);

}  // namespace resched
