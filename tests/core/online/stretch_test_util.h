// Helpers for the DASEDF and DBOS tests: random online runs driven to completion, their stretch and
// CPU work, and queued jobs built by hand for the search functions.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/metrics/validate.h"
#include "core/online/stretch_search.h"
#include "core/plan/cluster_plan.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/testing/status.h"

namespace resched::testing {

struct RunOutcome {
  double max_stretch = 0;
  double mean_stretch = 0;
  double cpu_seconds = 0;  // sum of k * (end - start)
};

// Submits each job at its release (AdvanceTo, then Submit), runs the clock until every job has
// ended, validates the final schedule and measures it.
inline RunOutcome RunOnline(const std::string& policy, const AlgorithmParams& params,
                            int processors, const std::vector<Job>& jobs) {
  ClusterSpec spec{"test", {{"", processors, 1.0}}, ClockKind::kSimulated, policy, {}};
  auto created = ClusterPlan::Create(spec, params, 0);
  EXPECT_OK(created);
  if (!created.ok()) return {};
  ClusterPlan& plan = **created;
  for (const Job& job : jobs) {
    EXPECT_OK(plan.AdvanceTo(std::max(plan.now(), job.release)));
    EXPECT_OK(plan.Submit(job));
  }
  // Every job has ended once the work alone would have, run one after another.
  Time horizon = plan.now();
  for (const Job& job : jobs) horizon += job.model.SequentialTime();
  EXPECT_OK(plan.AdvanceTo(horizon));
  const absl::Status valid = ValidateSchedule(plan.ToValidate());
  EXPECT_OK(valid) << policy << ": " << valid;
  RunOutcome out;
  int n = 0;
  for (const JobRecord* job : plan.Jobs()) {
    EXPECT_EQ(job->state, JobState::kFinished) << job->job.id;
    const double s = static_cast<double>(job->allocation.end - job->job.release) /
                     static_cast<double>(job->job.model.SequentialTime());
    out.max_stretch = std::max(out.max_stretch, s);
    out.mean_stretch += s;
    out.cpu_seconds += static_cast<double>(job->allocation.k) *
                       static_cast<double>(job->allocation.end - job->allocation.start) / kS;
    ++n;
  }
  if (n > 0) out.mean_stretch /= n;
  return out;
}

// Sequential jobs of 1 to `delta` seconds, Poisson arrivals at `load` busy processors on average.
inline std::vector<Job> SequentialWorkload(std::mt19937_64& rng, int n, int delta, double load) {
  std::uniform_int_distribution<int> size(1, delta);
  std::exponential_distribution<double> gap(load / ((1.0 + delta) / 2));
  std::vector<Job> jobs;
  double t = 0;
  for (int i = 0; i < n; ++i) {
    t += gap(rng);
    Job job = RigidJob(1, size(rng));
    job.release = static_cast<Time>(t * kS);
    jobs.push_back(job);
  }
  return jobs;
}

// Queued jobs built by hand, for the search functions without a ClusterPlan.
class HandQueue {
 public:
  JobRecord& Add(RuntimeModel model, Time release) {
    auto record = std::make_unique<JobRecord>();
    record->job.model = std::move(model);
    record->job.release = release;
    record->sequence = static_cast<std::int64_t>(records_.size()) + 1;
    records_.push_back(std::move(record));
    queue_.push_back(records_.back().get());
    return *records_.back();
  }
  std::vector<JobRecord*>& queue() { return queue_; }

 private:
  std::vector<std::unique_ptr<JobRecord>> records_;
  std::vector<JobRecord*> queue_;
};

// A plan of the search functions, as the validator sees it (on an otherwise idle machine).
inline ScheduleToValidate PlanToValidate(const StretchInstance& instance,
                                         const std::vector<Allocation>& plan) {
  ScheduleToValidate s;
  s.capacity = instance.capacity();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const JobRecord& job = *instance.jobs()[i].record;
    ScheduledItem item;
    item.id = absl::StrCat("q", i);
    item.allocation = plan[i];
    item.release = std::max(job.job.release, instance.now());
    item.model = &job.job.model;
    s.items.push_back(item);
  }
  return s;
}

}  // namespace resched::testing
