// Random mixed-parallel applications as in Aida & Casanova 2008, §3.1: the DAG shape comes from
// Suter's daggen (parameters n, width ("fat"), regularity, density, jump; its rules are in
// docs/algorithms.md, "Workloads"), each task follows Amdahl's law with t1 ~ U[1 min, 10 h] and
// alpha ~ U[0, alpha_max]. Defaults are the paper's Table 1 defaults.
//
// Deviations from daggen: it emits zero-cost ROOT and END nodes to get the single entry and exit
// task the paper assumes (§3.1); our runtime models require t1 > 0, so the entry and exit tasks
// are sequential (k_max = 1) tasks of 1 microsecond, the smallest legal length. No data sizes or
// transfer costs are generated (the paper does not model communication, §3.1): transfers are 0.
// Random draws come from WorkloadRng (portable), not from rand().
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/dag.h"
#include "core/model/time.h"

namespace resched {

inline constexpr int kMaxGeneratedDagTasks = 1'000'000;

struct DagGeneratorOptions {
  int n = 50;               // computational tasks (entry and exit not counted)
  double width = 0.5;       // daggen's "fat": perfect level width floor(n^width)
  double regularity = 0.5;  // level widths vary by +-(100 - 100 * regularity) %
  double density = 0.5;     // parents per task: 1 + U[0, density * |previous level|)
  int jump = 1;             // an edge spans 1 to `jump` levels
  double alpha_min = 0;     // alpha ~ U[alpha_min, alpha_max)
  double alpha_max = 0.20;
  Duration t1_min = 60 * kMicrosPerSecond;  // t1 ~ U[t1_min, t1_max]
  Duration t1_max = 10 * 3600 * kMicrosPerSecond;
  bool single_entry_exit = true;  // add the entry and exit tasks (see the file comment)
  std::uint64_t seed = 1;
};

struct GeneratedDag {
  // Tasks "t0", "t1", ...: the entry (if added), then the levels in order, then the exit.
  Dag dag;
  // levels[i]: indices into dag.tasks of daggen's level i; entry and exit are in no level.
  std::vector<std::vector<int>> levels;
  int entry = -1;  // index of the added entry task, -1 without single_entry_exit
  int exit = -1;
};

// Errors: INVALID_ARGUMENT naming the option and its limit.
absl::StatusOr<GeneratedDag> GenerateDag(const DagGeneratorOptions& options);

}  // namespace resched
