// Helpers for the offline planner tests: problems built from models, every plan checked by the
// validator against the problem's fixed bookings, and the exhaustive optimum of tiny instances.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/metrics/validate.h"
#include "core/offline/offline_planner.h"
#include "tests/testing/status.h"
#include "tests/testing/units.h"

namespace resched::testing {

inline OfflineJob JobOf(const std::string& id, RuntimeModel model, double weight = 1) {
  return OfflineJob{id, std::move(model), weight};
}

// An empty machine of `m` processors from time 0 (the papers' setting) with `jobs`.
inline OfflineProblem Problem(int m, std::vector<OfflineJob> jobs) {
  OfflineProblem problem;
  problem.free = Timeline(m);
  problem.jobs = std::move(jobs);
  return problem;
}

inline RuntimeModel Rigid(int k, Duration seconds) {
  return RuntimeModel(RigidModel{k, seconds * kMicrosPerSecond});
}

inline RuntimeModel Amdahl(Duration t1_seconds, double alpha) {
  return RuntimeModel(AmdahlModel{t1_seconds * kMicrosPerSecond, alpha, 1, 0});
}

// The plan against the problem: every job placed once, from now, on one of its widths for its
// model's time, within capacity around `holds` (the fixed bookings of `problem.free`).
inline void ExpectValidPlan(const OfflineProblem& problem, const OfflinePlan& plan,
                            const std::vector<Allocation>& holds = {}) {
  ASSERT_EQ(plan.allocations.size(), problem.jobs.size());
  ScheduleToValidate s;
  s.capacity = problem.free.capacity();
  s.holds = holds;
  for (std::size_t i = 0; i < problem.jobs.size(); ++i) {
    ScheduledItem item;
    item.id = problem.jobs[i].id;
    item.allocation = plan.allocations[i];
    item.release = std::max(problem.now, problem.jobs[i].release);
    item.model = &problem.jobs[i].model;
    s.items.push_back(item);
  }
  EXPECT_OK(ValidateSchedule(s));
}

inline Time Makespan(const OfflinePlan& plan) {
  Time end = 0;
  for (const Allocation& a : plan.allocations) end = std::max(end, a.end);
  return end;
}

// The optimal makespan of a tiny problem on an empty machine: every width choice and every
// order, each job at its earliest start in that order (serial schedules include an optimal one
// for a regular objective).
inline Time ExhaustiveMakespan(const OfflineProblem& problem) {
  const int m = problem.free.capacity();
  const std::size_t n = problem.jobs.size();
  std::vector<std::vector<int>> widths;
  for (const OfflineJob& job : problem.jobs) widths.push_back(job.model.Widths(m));
  Time best = kTimeMax;
  std::vector<int> choice(n, 0);
  while (true) {
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    do {
      Timeline timeline = problem.free.Copy();
      Time end = problem.now;
      for (int i : order) {
        const int k = widths[i][choice[i]];
        const Duration t = problem.jobs[i].model.TimeOn(k);
        const Time start = *timeline.EarliestStart(problem.now, t, k);
        (void)timeline.Add(start, start + t, k);
        end = std::max(end, start + t);
      }
      best = std::min(best, end);
    } while (std::next_permutation(order.begin(), order.end()));
    std::size_t j = 0;
    while (j < n && ++choice[j] == static_cast<int>(widths[j].size())) choice[j++] = 0;
    if (j == n) break;
  }
  return best;
}

// The optimal sum of w (C - now) of a tiny problem, the same way (serial schedules include an
// optimal one for every regular objective).
inline double ExhaustiveWeightedCompletion(const OfflineProblem& problem) {
  const int m = problem.free.capacity();
  const std::size_t n = problem.jobs.size();
  std::vector<std::vector<int>> widths;
  for (const OfflineJob& job : problem.jobs) widths.push_back(job.model.Widths(m));
  double best = std::numeric_limits<double>::max();
  std::vector<int> choice(n, 0);
  while (true) {
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    do {
      Timeline timeline = problem.free.Copy();
      double sum = 0;
      for (int i : order) {
        const int k = widths[i][choice[i]];
        const Duration t = problem.jobs[i].model.TimeOn(k);
        const Time start = *timeline.EarliestStart(problem.now, t, k);
        (void)timeline.Add(start, start + t, k);
        sum += problem.jobs[i].weight * static_cast<double>(start + t - problem.now);
      }
      best = std::min(best, sum);
    } while (std::next_permutation(order.begin(), order.end()));
    std::size_t j = 0;
    while (j < n && ++choice[j] == static_cast<int>(widths[j].size())) choice[j++] = 0;
    if (j == n) break;
  }
  return best;
}

}  // namespace resched::testing
