// What the workflow readers (WfCommons JSON, Pegasus DAX) share: turning a recorded sequential
// run time into the Amdahl model of Aida & Casanova 2008, §3.1. The traces record one run, not a
// speedup curve, so the recorded run time becomes t1 and alpha is a single configurable value
// (default 0.1, inside the paper's Table 1 range .05-.20). A recorded run time of 0 (rounded to
// microseconds) becomes min_t1 (default 1 microsecond, the smallest legal length, so that the
// order of short tasks is kept). Data sizes and transfer costs are ignored (edge transfer 0), as
// the paper models no communication.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "core/model/runtime_model.h"
#include "core/model/time.h"

namespace resched {

inline constexpr int kMaxWorkflowTasks = 1'000'000;
// Longest recorded run time accepted, in seconds (about 31 years): keeps microseconds in range.
inline constexpr double kMaxRecordedRuntimeSeconds = 1e9;

struct WorkflowImportOptions {
  double alpha = 0.1;   // Amdahl serial fraction given to every task
  Duration min_t1 = 1;  // t1 for tasks whose recorded run time rounds to 0
  int k_max = 0;        // Amdahl k_max of every task; 0: up to the cluster's capacity
};

// INVALID_ARGUMENT naming the bad option and its limit.
absl::Status CheckWorkflowImportOptions(const WorkflowImportOptions& options);

// The Amdahl model for a recorded run time of `seconds`. Errors: INVALID_ARGUMENT "<field> must be
// in [0, 1e9] seconds, got ..." where <field> is `field` (e.g. a JSON path).
absl::StatusOr<RuntimeModel> RecordedRuntimeModel(double seconds, std::string_view field,
                                                  const WorkflowImportOptions& options);

}  // namespace resched
