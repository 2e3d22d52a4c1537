// Runtime models from the job submit flags, and one-line descriptions of models.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "resched/v1/runtime_model.pb.h"

namespace resched::cli {

// The flags that choose a model, without dashes: rigid, amdahl, downey, table, pow2, ceil.
absl::Span<const absl::string_view> ModelFlagNames();

// Parses the value of one model flag into `model` (replacing any model it had):
//   rigid  K:DUR                  amdahl T1:ALPHA[:KMIN[:KMAX]]
//   downey T1:A:SIGMA[:KMIN[:KMAX]]  table  K:DUR,K:DUR,...
//   pow2   DUR,DUR,...            ceil   REQPROCS:DUR
// Only the syntax is checked here; the server validates the values.
absl::Status ParseModelFlag(absl::string_view flag, absl::string_view value,
                            resched::v1::RuntimeModel* model);

// E.g. "rigid k=4 t=1h", "amdahl t1=2h alpha=0.1 k=1..P".
std::string DescribeModel(const resched::v1::RuntimeModel& model);

}  // namespace resched::cli
