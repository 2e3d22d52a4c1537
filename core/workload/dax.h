// Reader for Pegasus DAX workflows (XML, DAX 2.1 as produced by the Pegasus workflow generator and
// shipped with WorkflowSim; DAX 3 files with the same elements also work): <job id= runtime=>
// elements and <child ref=><parent ref=/></child> dependencies. Every job becomes an Amdahl task
// of Aida & Casanova 2008, §3.1 with the recorded runtime (seconds) as t1 (workflow_import.h says
// how). The Task's name is the job id. A job without a runtime attribute may give it as
// <profile namespace="pegasus" key="runtime">. <uses> elements (files and their sizes) are
// ignored: the paper models no communication, so edge transfers are 0. Edges are deduplicated and
// sorted by (from, to). Element names are matched without their namespace.
#pragma once

#include <istream>

#include "absl/status/statusor.h"
#include "core/model/dag.h"
#include "core/workload/workflow_import.h"

namespace resched {

// Errors: INVALID_ARGUMENT "line N: ..." naming the element, the attribute and the problem
// (XML syntax errors with expat's message), an unknown job in a ref, cycles as ValidateDag
// reports them.
absl::StatusOr<Dag> ReadDax(std::istream& in, const WorkflowImportOptions& options = {});

}  // namespace resched
