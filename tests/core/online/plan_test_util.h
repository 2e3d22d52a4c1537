// Helpers for tests that drive a ClusterPlan: a SIMULATED cluster at time 0 and jobs in seconds.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "absl/numeric/int128.h"
#include "core/dag/dag_planner.h"
#include "core/metrics/validate.h"
#include "core/plan/cluster_plan.h"
#include "tests/testing/status.h"
#include "tests/testing/units.h"

namespace resched::testing {

inline std::unique_ptr<ClusterPlan> MakePlan(const std::string& policy, int processors) {
  ClusterSpec spec{"test", {{"", processors, 1.0}}, ClockKind::kSimulated, policy, {}};
  return OkValue(ClusterPlan::Create(spec, {}, 0));
}

// A cluster of processor groups, e.g. of several speeds.
inline std::unique_ptr<ClusterPlan> MakePlanOn(const std::string& policy,
                                               std::vector<ProcessorGroup> groups,
                                               const AlgorithmParams& params = {}) {
  ClusterSpec spec{"test", std::move(groups), ClockKind::kSimulated, policy, {}};
  return OkValue(ClusterPlan::Create(spec, params, 0));
}

// A DAG planner's input on `plan` as it is now: its timeline and clock, the historical q over
// the last hour, and on processor groups of different speeds each group's free capacity.
inline DagPlanningInput DagInputOn(const ClusterPlan& plan, const Dag& dag) {
  DagPlanningInput input;
  input.dag = &dag;
  input.timeline = &plan.timeline();
  input.release = plan.now();
  input.historical_q = plan.HistoricalAvailable(3600 * kS);
  if (!plan.spec().homogeneous()) {
    input.groups = plan.spec().groups;
    input.group_free = plan.FreeByGroup();
  }
  return input;
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

// The reference for ClusterPlan::UsageOf (each of `owners`) and PastUtilization: a scan of every
// retained job.
template <class Owners>
void ExpectSumsMatchAScan(const ClusterPlan& plan, const Owners& owners) {
  const Time now = plan.now();
  for (const auto& name : owners) {
    const std::string owner(name);
    ClusterPlan::OwnerUsage scanned;
    for (const JobRecord* job : plan.Jobs()) {
      if (job->job.owner != owner) continue;
      if (job->state != JobState::kQueued && job->state != JobState::kRunning) continue;
      ++scanned.active_jobs;
      const Allocation& a = job->allocation;
      const Time from = std::max(a.start, now);
      if (a.end > from) scanned.processor_micros_ahead += absl::int128(a.k) * (a.end - from);
    }
    const ClusterPlan::OwnerUsage kept = plan.UsageOf(owner);
    EXPECT_EQ(kept.active_jobs, scanned.active_jobs) << "owner '" << owner << "'";
    EXPECT_EQ(kept.processor_micros_ahead, scanned.processor_micros_ahead)
        << "owner '" << owner << "'";
  }
  double busy = 0;
  Time first = now;
  for (const JobRecord* job : plan.Jobs()) {
    const Allocation& a = job->allocation;
    if (a.k == 0 || a.start >= now) continue;
    first = std::min(first, a.start);
    busy += static_cast<double>(a.k) * static_cast<double>(std::min(a.end, now) - a.start);
  }
  const double span = static_cast<double>(now - first) * plan.capacity();
  EXPECT_NEAR(plan.PastUtilization(), span > 0 ? busy / span : 0.0, 1e-12);
}

}  // namespace resched::testing
