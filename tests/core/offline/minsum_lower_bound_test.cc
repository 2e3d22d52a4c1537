// dutot §3.3's LP lower bound on sum w C (Clp): exact for a single job, never above the
// exhaustive optimum of tiny instances, and raised by the capacity reservations take.
#include "core/offline/minsum_lower_bound.h"

#include <random>

#include "tests/core/offline/offline_testing.h"

namespace resched::testing {
namespace {

TEST(MinsumLowerBoundTest, ASingleJobIsChargedItsShortestTime) {
  const OfflineProblem problem = Problem(4, {JobOf("a", Amdahl(40, 0), 3)});
  absl::StatusOr<double> bound = WeightedCompletionLowerBound(problem, {});
  ASSERT_OK(bound);
  EXPECT_NEAR(*bound, 3.0 * 10 * kS, 1.0);  // 10 s on 4 processors, weight 3
}

TEST(MinsumLowerBoundTest, NeverAboveTheOptimumOfTinyInstances) {
  std::mt19937_64 rng(11);
  for (int instance = 0; instance < 120; ++instance) {
    const int m = 2 + static_cast<int>(rng() % 3);
    std::vector<OfflineJob> jobs;
    const int n = 2 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
      const Duration t1 = 1 + static_cast<Duration>(rng() % 30);
      const double weight = 1 + static_cast<double>(rng() % 10);
      if (rng() % 2 == 0) {
        jobs.push_back(JobOf(absl::StrCat(i), Rigid(1 + static_cast<int>(rng() % m), t1), weight));
      } else {
        jobs.push_back(
            JobOf(absl::StrCat(i), Amdahl(t1, static_cast<double>(rng() % 11) / 10), weight));
      }
    }
    OfflineProblem problem = Problem(m, jobs);
    if (instance % 3 == 0) {  // a reservation ahead
      ASSERT_OK(problem.free.Add(5 * kS, 20 * kS, 1));
    }
    SCOPED_TRACE(instance);
    absl::StatusOr<double> bound = WeightedCompletionLowerBound(problem, {});
    ASSERT_OK(bound);
    const double optimum = ExhaustiveWeightedCompletion(problem);
    EXPECT_LE(*bound, optimum * (1 + 1e-9)) << "optimum " << optimum;
    EXPECT_GT(*bound, 0);
  }
}

TEST(MinsumLowerBoundTest, ReservationsRaiseTheBound) {
  std::vector<OfflineJob> jobs;
  for (int i = 0; i < 12; ++i) jobs.push_back(JobOf(absl::StrCat(i), Amdahl(100 + 10 * i, 0.1)));
  OfflineProblem open = Problem(8, jobs);
  OfflineProblem held = Problem(8, jobs);
  ASSERT_OK(held.free.Add(0, 10'000 * kS, 6));  // 6 of 8 processors held for hours
  absl::StatusOr<double> open_bound = WeightedCompletionLowerBound(open, {});
  absl::StatusOr<double> held_bound = WeightedCompletionLowerBound(held, {});
  ASSERT_OK(open_bound);
  ASSERT_OK(held_bound);
  EXPECT_GT(*held_bound, *open_bound * 1.5);
}

}  // namespace
}  // namespace resched::testing
