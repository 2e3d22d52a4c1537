// A ClusterPlanImage (core/plan/cluster_plan_image.h) to and from its snapshot message
// (resched/v1/snapshot.proto), and a PlanChange (core/plan/plan_change.h) to and from its journal
// message (resched/v1/journal.proto): part of the one protobuf <-> core boundary
// (resched_convert).
// The spec, the policy parameters and the limits are not in the message: the server keeps the
// cluster's creation record beside it and applies its own limits.
#pragma once

#include "absl/status/statusor.h"
#include "core/plan/cluster_plan_image.h"
#include "core/plan/plan_change.h"
#include "resched/v1/journal.pb.h"
#include "resched/v1/snapshot.pb.h"

namespace resched {

namespace pb = ::resched::v1;

pb::SnapshotPlan ToSnapshot(const ClusterPlanImage& image);
// DATA_LOSS naming the field for what cannot be a plan's (an unknown job state, a bad model);
// FAILED_PRECONDITION naming it when the policy's state has fields this resched does not read
// (another version of resched wrote it). Whether the parts fit together is
// ClusterPlan::FromImage's to check.
absl::StatusOr<ClusterPlanImage> FromSnapshot(const pb::SnapshotPlan& plan);

pb::PlanChange ToJournal(const PlanChange& change);
// DATA_LOSS and FAILED_PRECONDITION naming the field, as FromSnapshot; whether the change fits
// the plan is ClusterPlan::ApplyChange's to check.
absl::StatusOr<PlanChange> FromJournal(const pb::PlanChange& change);

}  // namespace resched
