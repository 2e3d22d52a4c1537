// Core types to their wire form, for every side that sends them: the server's answers and the
// CLI's imported workflows (WfCommons, DAX). The reverse direction, with its validation, is the
// server's boundary (server/convert.h).
#pragma once

#include "core/model/dag.h"
#include "core/model/runtime_model.h"
#include "google/protobuf/duration.pb.h"
#include "resched/v1/types.pb.h"

namespace resched::api {

namespace pb = ::resched::v1;

google::protobuf::Duration ToDurationProto(Duration micros);
pb::RuntimeModel ToProto(const RuntimeModel& model);
// Edges by task name; an edge index out of range keeps an empty name, which the server rejects
// naming the edge.
pb::Dag ToProto(const Dag& dag);

}  // namespace resched::api
