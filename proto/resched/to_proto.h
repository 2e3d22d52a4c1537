// Core to wire: core types in their API form, for the server's answers and the CLI's imported
// workflows (WfCommons, DAX). Part of the one protobuf <-> core boundary (resched_convert,
// proto/resched/convert.h).
#pragma once

#include <string>

#include "core/model/cluster.h"
#include "core/model/dag.h"
#include "core/model/job.h"
#include "core/model/runtime_model.h"
#include "core/plan/cluster_plan.h"
#include "core/registry/params.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "resched/v1/service.pb.h"

namespace resched {

namespace pb = ::resched::v1;

google::protobuf::Timestamp ToTimestamp(Time t);
google::protobuf::Duration ToDurationProto(Duration micros);

pb::RuntimeModel ToProto(const RuntimeModel& model);
// Edges by task name; an edge index out of range keeps an empty name, which the server rejects
// naming the edge.
pb::Dag ToProto(const Dag& dag);
pb::JobSpec ToProto(const Job& job);
pb::ClusterSpec ToProto(const ClusterSpec& spec, const AlgorithmParams& params);
pb::ProcessorGroup ToProto(const ProcessorGroup& group);
pb::ReplanObjective ToProto(ReplanObjective objective);
pb::Job ToProto(const JobRecord& record, const std::string& cluster);
pb::Reservation ToProto(const ExternalReservation& r, const std::string& cluster);
pb::JobState ToProto(JobState state);
pb::DagReservation ToProto(const DagReservation& d, const std::string& cluster);
pb::Allocation ToProto(const Allocation& a);
// `group`: the task's processor group on a cluster of several speeds; -1 leaves it unset.
pb::TaskPlacement ToProto(const std::string& task, const Allocation& a, int group = -1);

}  // namespace resched
