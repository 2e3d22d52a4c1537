// Small random DAGs and reservation timelines for the DAG planner tests, and the validator
// check every produced plan goes through.
#pragma once

#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/dag/dag_plan.h"
#include "core/metrics/validate.h"
#include "core/model/dag.h"
#include "core/timeline/timeline.h"
#include "gtest/gtest.h"
#include "tests/testing/status.h"

namespace resched::testing {

inline constexpr Duration kMinute = 60 * kMicrosPerSecond;
inline constexpr Duration kHour = 60 * kMinute;

inline RuntimeModel Amdahl(Duration t1, double alpha) {
  return RuntimeModel(AmdahlModel{t1, alpha, 1, 0});
}

// n tasks; each later task gets 1-3 random earlier parents (so it is acyclic), Amdahl times.
inline Dag RandomDag(std::mt19937_64& rng, int n, double max_alpha = 0.2,
                     Duration max_transfer = 0) {
  Dag dag;
  std::uniform_int_distribution<Duration> t1(kMinute, 10 * kHour);
  std::uniform_real_distribution<double> alpha(0, max_alpha);
  for (int i = 0; i < n; ++i)
    dag.tasks.push_back({absl::StrCat("t", i), Amdahl(t1(rng), alpha(rng))});
  for (int i = 1; i < n; ++i) {
    std::uniform_int_distribution<int> parent(0, i - 1);
    const int parents = 1 + static_cast<int>(rng() % 3);
    std::vector<int> used;
    for (int j = 0; j < parents; ++j) {
      const int p = parent(rng);
      if (std::find(used.begin(), used.end(), p) != used.end()) continue;
      used.push_back(p);
      const Duration transfer =
          max_transfer > 0 ? static_cast<Duration>(rng() % static_cast<std::uint64_t>(max_transfer))
                           : 0;
      dag.edges.push_back({p, i, transfer});
    }
  }
  return dag;
}

// A timeline of `capacity` with `count` random reservations over [0, horizon) that fit.
inline Timeline RandomTimeline(std::mt19937_64& rng, int capacity, int count, Time horizon) {
  Timeline t(capacity);
  std::uniform_int_distribution<Time> start(0, horizon);
  std::uniform_int_distribution<Duration> length(kMinute, 12 * kHour);
  std::uniform_int_distribution<int> width(1, capacity);
  for (int i = 0; i < count; ++i) {
    const Time s = start(rng);
    (void)t.Add(s, s + length(rng), width(rng));  // a reservation that does not fit is skipped
  }
  return t;
}

inline void ExpectValidPlan(const Dag& dag, const DagPlan& plan, const Timeline& timeline,
                            Time release, std::optional<Time> deadline = std::nullopt) {
  ASSERT_EQ(plan.tasks.size(), dag.tasks.size());
  const absl::Status s =
      ValidateSchedule(DagPlanToValidate(dag, plan, timeline, release, deadline));
  EXPECT_OK(s);
}

}  // namespace resched::testing
