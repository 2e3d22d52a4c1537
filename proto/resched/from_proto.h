// Wire to core: the API's messages as core types. Every conversion validates as it goes and
// names the offending field in its INVALID_ARGUMENT error. Part of the one protobuf <-> core
// boundary (resched_convert, proto/resched/convert.h); the core never sees protobuf.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/model/cluster.h"
#include "core/model/dag.h"
#include "core/model/job.h"
#include "core/registry/registry.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "resched/v1/service.pb.h"

namespace resched {

namespace pb = ::resched::v1;

// Timestamps map to microseconds since the Unix epoch, which is also a SIMULATED clock's zero.
absl::StatusOr<Time> FromProto(const google::protobuf::Timestamp& ts, const std::string& field);
absl::StatusOr<Duration> FromProto(const google::protobuf::Duration& d, const std::string& field);

absl::StatusOr<RuntimeModel> FromProto(const pb::RuntimeModel& model, const std::string& field);
absl::StatusOr<ClusterSpec> FromProto(const pb::ClusterSpec& spec);
// UNSPECIFIED: BICRITERIA for the "bicriteria" planner, MAKESPAN for the others.
absl::StatusOr<ReplanObjective> FromProto(pb::ReplanObjective objective, const std::string& planner,
                                          const std::string& field);
AlgorithmParams FromProto(const pb::AlgorithmSpec& spec);
// A DAG from the wire: edges by task name become indices; errors name "dag.tasks[i]..." or
// "dag.edges[i]...". Structure (cycles, widths) is checked later by the planners.
absl::StatusOr<Dag> FromProto(const pb::Dag& dag);
// A job from the wire; `now` fills an unset release.
absl::StatusOr<Job> FromProto(const pb::JobSpec& spec, Time now);

}  // namespace resched
