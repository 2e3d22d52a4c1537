// The web view's what-if calls: dry runs that show where work would go, committing nothing.
// - POST /api/v1/clusters/NAME/what-if/job: the body is a JobSpec in protobuf's JSON mapping;
//   the answer is SubmitJob's with dry_run set (the job's placement, the queued jobs it moves).
// - POST /api/v1/clusters/NAME/what-if/dag: the body is a DAG file (a resched Dag in JSON or
//   YAML, a WfCommons workflow, a Pegasus DAX), read as the CLI reads it
//   (proto/resched/dag_import.h); the answer is QueryDeadline's with commit unset: the plan,
//   and the tightest deadline when none is asked. Query parameters: algorithm, deadline
//   (RFC 3339), format (dag, wfcommons or dax; default: detected), alpha (the Amdahl serial
//   fraction given to workflow tasks), file (the file's name, for the detection).
#pragma once

#include <map>
#include <string>

#include "resched/v1/service.grpc.pb.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

HttpReply WhatIfJob(resched::v1::Resched::Stub& stub, const std::string& cluster,
                    const std::string& body, const WebCaller& caller);

HttpReply WhatIfDag(resched::v1::Resched::Stub& stub, const std::string& cluster,
                    const std::multimap<std::string, std::string>& params, const std::string& body,
                    const WebCaller& caller);

}  // namespace resched::server::web
