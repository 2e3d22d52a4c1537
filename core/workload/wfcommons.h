// Reader for WfCommons workflow instances (WfFormat JSON, https://wfcommons.org; the real
// Pegasus/Makeflow executions of shared/data/workflows). Every task becomes an Amdahl task of
// Aida & Casanova 2008, §3.1 with the recorded run time as t1 (workflow_import.h says how).
//
// Schema versions: 1.5 keeps the graph under workflow.specification.tasks (id, name, parents,
// children) and the run times under workflow.execution.tasks (id, runtimeInSeconds); 1.3-1.4 keep
// both in workflow.tasks; WorkflowHub 0.x used workflow.jobs with "runtime". All are accepted. A
// task is identified by "id", or by "name" when it has no id (older files); that identifier is
// the Task's name. Edges are the union of the parents and children lists, without duplicates,
// sorted by (from, to). Files, machines and data sizes are ignored.
#pragma once

#include <istream>

#include "absl/status/statusor.h"
#include "core/model/dag.h"
#include "core/workload/workflow_import.h"

namespace resched {

// Reads one WfCommons JSON document. Errors: INVALID_ARGUMENT naming the JSON path and the
// problem ("workflow.execution.tasks[3].runtimeInSeconds must be a number", "...parents[0]: unknown
// task 'x'"), for JSON syntax errors the byte offset; cycles as ValidateDag reports them.
absl::StatusOr<Dag> ReadWfCommons(std::istream& in, const WorkflowImportOptions& options = {});

}  // namespace resched
