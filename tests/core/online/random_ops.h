// Random operations on ClusterPlans for the partitioned and iterative policies' tests: the same
// seeded sequence of submissions, cancels, early finishes, holds and clock moves, applied to
// one plan or to several in lockstep, with every schedule validated.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/registry/registry.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/testing/status.h"

namespace resched::testing {

inline std::unique_ptr<ClusterPlan> MakePlanWith(const std::string& policy, int processors,
                                                 const AlgorithmParams& params) {
  ClusterSpec spec{"test", {{"", processors, 1.0}}, ClockKind::kSimulated, policy, {}};
  auto plan = ClusterPlan::Create(spec, params, 0);
  EXPECT_OK(plan);
  return plan.ok() ? *std::move(plan) : nullptr;
}

// The parameters the tests give each policy that needs some (none for the others).
inline AlgorithmParams PolicyTestParams(const std::string& policy) {
  static const std::map<std::string, AlgorithmParams> params = {
      {"dbos", {{"rho", 1.5}}},
      {"split", {{"rho", 3}, {"p_min", 1}, {"p_max", 60}}},
      {"reserve-aux-fcfs", {{"x", 3}, {"t", 1.5}}},
      {"reserve-aux-dasedf", {{"x", 3}, {"t", 1.5}}},
  };
  const auto it = params.find(policy);
  return it == params.end() ? AlgorithmParams{} : it->second;
}

// Rigid, Amdahl, Downey or ceil-model jobs of widths up to `max_k` and 1 s to `max_s` s.
inline Job RandomJob(std::mt19937_64& rng, Time now, int max_k, int max_s) {
  Job job;
  job.release = now + static_cast<Time>(rng() % 4 == 0 ? rng() % (30 * kS) : 0);
  const Duration t = (1 + static_cast<Duration>(rng() % max_s)) * kS;
  switch (rng() % 4) {
    case 0:
      job.model = RuntimeModel(RigidModel{1 + static_cast<int>(rng() % max_k), t});
      break;
    case 1:
      job.model = RuntimeModel(AmdahlModel{t, (rng() % 100) / 100.0, 1, max_k});
      break;
    case 2:
      job.model = RuntimeModel(DowneyModel{t, 1.0 + rng() % 8, (rng() % 200) / 100.0, 1, max_k});
      break;
    default:
      job.model = RuntimeModel(CeilModel{1 + static_cast<int>(rng() % max_k), t / 4 + 1});
  }
  return job;
}

struct RandomOptions {
  int steps = 200;
  int max_k = 4;
  int max_s = 60;
  bool holds = true;
  bool cancels = true;
  bool early_ends = true;
};

// Applies one seeded sequence of operations to every plan (all on clusters of the same size),
// validating each schedule; `check` runs after every step on the plans.
inline void RunRandomOps(const std::vector<ClusterPlan*>& plans, std::uint64_t seed,
                         const RandomOptions& options,
                         const std::function<void(int step)>& check = nullptr) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> holds;
  ClusterPlan& first = *plans.front();
  for (int step = 0; step < options.steps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const auto op = rng() % 10;
    if (op < 5) {
      const Job job = RandomJob(rng, first.now(), options.max_k, options.max_s);
      for (ClusterPlan* plan : plans) ASSERT_OK(plan->Submit(job));
    } else if (op == 5 && options.cancels) {
      const auto jobs = first.Jobs();
      const JobId id = jobs.empty() ? "" : jobs[rng() % jobs.size()]->job.id;
      for (ClusterPlan* plan : plans) (void)plan->Cancel(id);
    } else if (op == 6 && options.early_ends) {
      JobId id;
      for (const JobRecord* job : first.Jobs()) {
        if (job->state == JobState::kRunning && rng() % 2 == 0) {
          id = job->job.id;
          break;
        }
      }
      for (ClusterPlan* plan : plans) {
        if (!id.empty()) {
          ASSERT_OK(plan->ReportEnded(id, plan->now(), false));
        }
      }
    } else if (op == 7 && options.holds) {
      const Time start = first.now() + static_cast<Time>(rng() % (100 * kS));
      const int k = 1 + static_cast<int>(rng() % 3);
      const Time end = start + (1 + static_cast<Time>(rng() % 50)) * kS;
      const bool displace = rng() % 2 == 0;
      std::string id;
      for (ClusterPlan* plan : plans) {
        auto held = plan->AddReservation(k, start, end, "random", displace);
        if (held.ok()) id = (*held)->id;
      }
      if (!id.empty()) holds.push_back(id);
    } else if (op == 8 && !holds.empty()) {
      for (ClusterPlan* plan : plans) (void)plan->RemoveReservation(holds.back());
      holds.pop_back();
    } else {
      const Time t = first.now() + static_cast<Time>(rng() % (40 * kS));
      for (ClusterPlan* plan : plans) ASSERT_OK(plan->AdvanceTo(t));
    }
    for (ClusterPlan* plan : plans) {
      ASSERT_OK(ValidateSchedule(plan->ToValidate()))
          << plan->policy().DecidesAtEvents() << ValidateSchedule(plan->ToValidate());
      for (const JobRecord* job : plan->Jobs()) {
        if (job->state != JobState::kQueued) continue;
        EXPECT_TRUE(job->placed) << job->job.id;
        EXPECT_GT(job->allocation.start, plan->now()) << job->job.id;
      }
    }
    if (check) check(step);
    if (::testing::Test::HasFailure()) return;
  }
}

// Every job's allocation and state, for comparing plans.
inline std::vector<std::tuple<JobId, int, int, Time, Time>> Outcome(const ClusterPlan& plan) {
  std::vector<std::tuple<JobId, int, int, Time, Time>> out;
  for (const JobRecord* job : plan.Jobs()) {
    out.emplace_back(job->job.id, static_cast<int>(job->state), job->allocation.k,
                     job->allocation.start, job->allocation.end);
  }
  return out;
}

}  // namespace resched::testing
