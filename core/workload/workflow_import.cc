// Recorded run time -> Amdahl model (Aida & Casanova 2008, §3.1), shared by the workflow readers.
#include "core/workload/workflow_import.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/model/cluster.h"
#include "core/model/job.h"

namespace resched {

absl::Status CheckWorkflowImportOptions(const WorkflowImportOptions& o) {
  if (!(o.alpha >= 0 && o.alpha <= 1)) {
    return absl::InvalidArgumentError(absl::StrFormat("alpha must be in [0, 1], got %g", o.alpha));
  }
  if (o.min_t1 < 1 || o.min_t1 > kMaxJobDuration) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_t1 must be in [1, ", kMaxJobDuration, "] microseconds, got ", o.min_t1));
  }
  if (o.k_max < 0 || o.k_max > kMaxClusterProcessors) {
    return absl::InvalidArgumentError(
        absl::StrCat("k_max must be in [0, ", kMaxClusterProcessors, "], got ", o.k_max));
  }
  return absl::OkStatus();
}

absl::StatusOr<RuntimeModel> RecordedRuntimeModel(double seconds, std::string_view field,
                                                  const WorkflowImportOptions& o) {
  if (!(seconds >= 0 && seconds <= kMaxRecordedRuntimeSeconds)) {
    return absl::InvalidArgumentError(absl::StrFormat("%s must be in [0, %g] seconds, got %g",
                                                      field, kMaxRecordedRuntimeSeconds, seconds));
  }
  AmdahlModel m;
  m.t1 = std::max(CeilMicros(seconds), o.min_t1);
  m.alpha = o.alpha;
  m.k_max = o.k_max;
  return RuntimeModel(m);
}

}  // namespace resched
