// The server's boundary between protobuf and core types (core never sees protobuf; the core ->
// wire parts shared with the CLI are in proto/resched/core_to_proto.h). Conversions from the
// wire validate as they go and name the offending field in INVALID_ARGUMENT errors.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/plan/cluster_plan.h"
#include "core/registry/registry.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "resched/v1/service.pb.h"

namespace resched::server {

namespace pb = ::resched::v1;

// Timestamps map to microseconds since the Unix epoch, which is also a SIMULATED clock's zero.
absl::StatusOr<Time> FromProto(const google::protobuf::Timestamp& ts, const std::string& field);
absl::StatusOr<Duration> FromProto(const google::protobuf::Duration& d, const std::string& field);
google::protobuf::Timestamp ToTimestamp(Time t);
google::protobuf::Duration ToDurationProto(Duration d);

absl::StatusOr<RuntimeModel> FromProto(const pb::RuntimeModel& model, const std::string& field);
absl::StatusOr<ClusterSpec> FromProto(const pb::ClusterSpec& spec);
AlgorithmParams FromProto(const pb::AlgorithmSpec& spec);
// A DAG from the wire: edges by task name become indices; errors name "dag.tasks[i]..." or
// "dag.edges[i]...". Structure (cycles, widths) is checked later by the planners.
absl::StatusOr<Dag> FromProto(const pb::Dag& dag);
// A job from the wire; `now` fills an unset release.
absl::StatusOr<Job> FromProto(const pb::JobSpec& spec, Time now);

pb::RuntimeModel ToProto(const RuntimeModel& model);
pb::JobSpec ToProto(const Job& job);
pb::ClusterSpec ToProto(const ClusterSpec& spec, const AlgorithmParams& params);
pb::Job ToProto(const JobRecord& record, const std::string& cluster);
pb::Reservation ToProto(const ExternalReservation& r, const std::string& cluster);
pb::JobState ToProto(JobState state);
pb::DagReservation ToProto(const DagReservation& d, const std::string& cluster);
pb::TaskPlacement ToProto(const std::string& task, const Allocation& a);

}  // namespace resched::server
