// What an audit line names besides the method and cluster: the object a call acted on (the job,
// reservation or DAG reservation id), the flags that change what it does (force, dry_run, commit,
// displace_queued), and the id of what a creating call made.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "google/protobuf/message.h"

namespace resched::server {

using AuditTargets = std::vector<std::pair<std::string, std::string>>;

// From the request: {"job", "j7"}, {"force", "true"}, ...; flags only when set.
AuditTargets RequestTargets(const google::protobuf::Message& request);

// From the answer of a call that succeeded: {"made_job", "j8"}, {"made_reservation", "r2"},
// {"made_dag", "d3"}; nothing for a dry run, whose answer names no id.
AuditTargets MadeTargets(const google::protobuf::Message& response);

}  // namespace resched::server
