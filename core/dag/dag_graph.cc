#include "core/dag/dag_graph.h"

#include <algorithm>

namespace resched {

int WidthTable::IndexAtMost(int k) const {
  const auto it = std::upper_bound(widths.begin(), widths.end(), k);
  if (it == widths.begin()) return 0;
  return static_cast<int>(it - widths.begin()) - 1;
}

absl::StatusOr<DagGraph> BuildDagGraph(const Dag& dag, int capacity, int max_width) {
  if (max_width <= 0 || max_width > capacity) max_width = capacity;
  if (absl::Status s = ValidateDag(dag, capacity); !s.ok()) return s;
  absl::StatusOr<std::vector<int>> topo = TopologicalOrder(dag);
  if (!topo.ok()) return topo.status();
  DagGraph g;
  const int n = static_cast<int>(dag.tasks.size());
  g.capacity = capacity;
  g.preds.resize(n);
  g.succs.resize(n);
  g.topo = *std::move(topo);
  for (const Edge& e : dag.edges) {
    g.succs[e.from].push_back({e.to, e.transfer});
    g.preds[e.to].push_back({e.from, e.transfer});
  }
  g.widths.resize(n);
  for (int i = 0; i < n; ++i) {
    WidthTable& w = g.widths[i];
    w.widths = dag.tasks[i].model.Widths(capacity);
    const auto beyond = std::upper_bound(w.widths.begin() + 1, w.widths.end(), max_width);
    w.widths.erase(beyond, w.widths.end());
    w.times.reserve(w.widths.size());
    for (int k : w.widths) {
      w.times.push_back(dag.tasks[i].model.TimeOn(k));
      w.fastest.push_back(w.fastest.empty() ? w.times.back()
                                            : std::min(w.fastest.back(), w.times.back()));
    }
    g.names.push_back(dag.tasks[i].name);
  }
  return g;
}

DagGraph InducedSubgraph(const DagGraph& g, const std::vector<int>& keep) {
  std::vector<int> index(g.size(), -1);
  for (int i = 0; i < static_cast<int>(keep.size()); ++i) index[keep[i]] = i;
  DagGraph sub;
  sub.capacity = g.capacity;
  sub.preds.resize(keep.size());
  sub.succs.resize(keep.size());
  for (int i = 0; i < static_cast<int>(keep.size()); ++i) {
    const int v = keep[i];
    sub.names.push_back(g.names[v]);
    sub.widths.push_back(g.widths[v]);
    for (const Arc& p : g.preds[v]) {
      if (index[p.task] >= 0) sub.preds[i].push_back({index[p.task], p.transfer});
    }
    for (const Arc& s : g.succs[v]) {
      if (index[s.task] >= 0) sub.succs[i].push_back({index[s.task], s.transfer});
    }
  }
  for (int v : g.topo) {
    if (index[v] >= 0) sub.topo.push_back(index[v]);
  }
  return sub;
}

std::vector<Duration> BottomLevels(const DagGraph& g, const std::vector<Duration>& time) {
  std::vector<Duration> bl(g.size(), 0);
  for (auto it = g.topo.rbegin(); it != g.topo.rend(); ++it) {
    Duration tail = 0;
    for (const Arc& s : g.succs[*it]) tail = std::max(tail, s.transfer + bl[s.task]);
    bl[*it] = time[*it] + tail;
  }
  return bl;
}

std::vector<Duration> TopLevels(const DagGraph& g, const std::vector<Duration>& time) {
  std::vector<Duration> tl(g.size(), 0);
  for (int v : g.topo) {
    for (const Arc& p : g.preds[v]) tl[v] = std::max(tl[v], tl[p.task] + time[p.task] + p.transfer);
  }
  return tl;
}

std::vector<Duration> TimesFor(const DagGraph& g, const std::vector<int>& widths) {
  std::vector<Duration> t(g.size());
  for (int i = 0; i < g.size(); ++i) t[i] = g.widths[i].TimeAtMost(widths[i]);
  return t;
}

std::vector<int> ByDecreasingBottomLevel(const DagGraph& g, const std::vector<Duration>& bl) {
  std::vector<int> position(g.size());
  for (int i = 0; i < g.size(); ++i) position[g.topo[i]] = i;
  std::vector<int> order = g.topo;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (bl[a] != bl[b]) return bl[a] > bl[b];
    return position[a] < position[b];
  });
  return order;
}

}  // namespace resched
