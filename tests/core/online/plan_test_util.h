// Helpers for tests that drive a ClusterPlan: a SIMULATED cluster at time 0 and jobs in seconds.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/metrics/validate.h"
#include "core/plan/cluster_plan.h"
#include "tests/testing/status.h"
#include "tests/testing/units.h"

namespace resched::testing {

inline std::unique_ptr<ClusterPlan> MakePlan(const std::string& policy, int processors) {
  ClusterSpec spec{"test", {{"", processors, 1.0}}, ClockKind::kSimulated, policy, {}};
  return OkValue(ClusterPlan::Create(spec, {}, 0));
}

inline Job RigidJob(int k, Duration seconds, Time release = 0) {
  Job job;
  job.model = RuntimeModel(RigidModel{k, seconds * kS});
  job.release = release * kS;
  return job;
}

// Submits and returns the job's id; the schedule is validated after every change.
inline JobId Submit(ClusterPlan& plan, Job job) {
  auto placed = plan.Submit(std::move(job));
  EXPECT_OK(placed);
  EXPECT_OK(ValidateSchedule(plan.ToValidate()));
  return placed.ok() ? (*placed)->job.id : JobId();
}

inline Allocation AllocationOf(const ClusterPlan& plan, const JobId& id) {
  const JobRecord* job = plan.FindJob(id);
  EXPECT_NE(job, nullptr) << id;
  return job ? job->allocation : Allocation{};
}

inline void ExpectAllocation(const ClusterPlan& plan, const JobId& id, int k, Duration start_s,
                             Duration end_s) {
  const Allocation a = AllocationOf(plan, id);
  EXPECT_EQ(a.k, k) << id;
  EXPECT_EQ(a.start, start_s * kS) << id;
  EXPECT_EQ(a.end, end_s * kS) << id;
}

}  // namespace resched::testing
