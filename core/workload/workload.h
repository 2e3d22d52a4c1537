// A workload: jobs to replay online, each with how long it really runs compared with its
// runtime model (logs record both a requested and an actual time).
#pragma once

#include <string>
#include <vector>

#include "core/model/job.h"

namespace resched {

struct WorkloadJob {
  Job job;  // release, model (the estimate), weight, owner
  // Actual run time / estimated run time, in (0, 1]: the job ends that much into its
  // allocation (an early finish). Jobs never run past their estimate: a scheduler kills them
  // at their reservation's end, as batch systems do at the requested wall time.
  double runtime_fraction = 1.0;
};

struct Workload {
  std::string name;
  int processors = 0;             // the machine the workload was recorded on or generated for
  std::vector<WorkloadJob> jobs;  // in release order
};

}  // namespace resched
