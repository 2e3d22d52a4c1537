// A DAG of moldable tasks (a mixed-parallel application).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/model/runtime_model.h"

namespace resched {

struct Task {
  std::string name;
  RuntimeModel model;
};

struct Edge {
  int from = 0;  // index into Dag::tasks
  int to = 0;
  Duration transfer = 0;  // communication delay when on different processors (Barbosa, HEFT)
};

struct Dag {
  std::vector<Task> tasks;
  std::vector<Edge> edges;
};

// Checks indices, duplicate names, models, and acyclicity; the error names the offending field
// (a cycle is reported with the task names along it).
absl::Status ValidateDag(const Dag& dag, int capacity);

// Tasks in a topological order (Kahn's algorithm, smallest index first: deterministic), or
// INVALID_ARGUMENT naming a cycle.
absl::StatusOr<std::vector<int>> TopologicalOrder(const Dag& dag);

}  // namespace resched
