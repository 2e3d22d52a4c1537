#include "core/model/dag.h"

#include <queue>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace resched {
namespace {

// Walks back from a task left over by Kahn's algorithm until a task repeats: that is a cycle.
std::vector<int> FindCycle(const Dag& dag, const std::vector<int>& indegree) {
  std::vector<std::vector<int>> preds(dag.tasks.size());
  for (const auto& e : dag.edges) preds[e.to].push_back(e.from);
  int start = 0;
  while (indegree[start] == 0) ++start;
  std::vector<int> position(dag.tasks.size(), -1);
  std::vector<int> walk;
  int cur = start;
  while (position[cur] < 0) {
    position[cur] = static_cast<int>(walk.size());
    walk.push_back(cur);
    for (int p : preds[cur]) {
      if (indegree[p] > 0) {
        cur = p;
        break;
      }
    }
  }
  std::vector<int> cycle(walk.begin() + position[cur], walk.end());
  std::reverse(cycle.begin(), cycle.end());
  return cycle;
}

}  // namespace

absl::StatusOr<std::vector<int>> TopologicalOrder(const Dag& dag) {
  const int n = static_cast<int>(dag.tasks.size());
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<int>> succs(n);
  for (const auto& e : dag.edges) {
    succs[e.from].push_back(e.to);
    ++indegree[e.to];
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push(i);
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int t = ready.top();
    ready.pop();
    order.push_back(t);
    for (int s : succs[t]) {
      if (--indegree[s] == 0) ready.push(s);
    }
  }
  if (static_cast<int>(order.size()) == n) return order;
  std::vector<std::string> names;
  for (int t : FindCycle(dag, indegree)) names.push_back(dag.tasks[t].name);
  return absl::InvalidArgumentError(
      absl::StrCat("dag.edges form a cycle: ", absl::StrJoin(names, " -> "), " -> ", names[0]));
}

absl::Status ValidateDag(const Dag& dag, int capacity) {
  const int n = static_cast<int>(dag.tasks.size());
  if (n == 0) return absl::InvalidArgumentError("dag.tasks is empty");
  absl::flat_hash_set<std::string> names;
  for (int i = 0; i < n; ++i) {
    const auto& task = dag.tasks[i];
    if (task.name.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat("dag.tasks[%d].name is empty", i));
    }
    if (!names.insert(task.name).second) {
      return absl::InvalidArgumentError(
          absl::StrFormat("dag.tasks[%d].name '%s' is used twice", i, task.name));
    }
    if (auto status = task.model.Validate(); !status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("dag.tasks[%d].model.%s", i, status.message()));
    }
    if (task.model.Widths(capacity).empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "dag.tasks[%d].model: no allowed width fits the cluster's %d processors", i, capacity));
    }
  }
  absl::flat_hash_set<std::pair<int, int>> seen;
  for (size_t i = 0; i < dag.edges.size(); ++i) {
    const auto& e = dag.edges[i];
    if (e.from < 0 || e.from >= n || e.to < 0 || e.to >= n) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "dag.edges[%d] must join tasks in [0, %d), got %d -> %d", i, n, e.from, e.to));
    }
    if (e.from == e.to) {
      return absl::InvalidArgumentError(
          absl::StrFormat("dag.edges[%d] is a self-loop on '%s'", i, dag.tasks[e.from].name));
    }
    if (e.transfer < 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "dag.edges[%d].transfer must be >= 0 microseconds, got %d", i, e.transfer));
    }
    if (!seen.insert({e.from, e.to}).second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "dag.edges[%d] repeats %s -> %s", i, dag.tasks[e.from].name, dag.tasks[e.to].name));
    }
  }
  return TopologicalOrder(dag).status();
}

}  // namespace resched
