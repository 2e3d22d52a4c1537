#include "core/offline/minsum_lower_bound.h"

#include <ClpSimplex.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/offline/mrt.h"

namespace resched {
namespace {

// The processor time free on the timeline over [from, to), in processor x seconds.
double FreeArea(const Timeline& timeline, Time from, Time to) {
  double area = 0;
  timeline.ForEachStep(from, to, [&](const TimelineStep& step) {
    const Time start = std::max(from, step.start);
    const Time end = std::min(to, step.end);
    if (end > start)
      area += static_cast<double>(step.free) * static_cast<double>(end - start) / 1e6;
  });
  return area;
}

}  // namespace

absl::StatusOr<double> WeightedCompletionLowerBound(const OfflineProblem& problem,
                                                    const PlanControl& control) {
  const std::size_t n = problem.jobs.size();
  if (n == 0) return 0.0;
  const int m = problem.free.capacity();
  absl::StatusOr<MrtShelves> mrt = MrtDualApproximation(problem.jobs, m, 1e-2, control);
  if (!mrt.ok()) return mrt.status();

  // Per job: its widths, shortest and longest times (seconds).
  std::vector<std::vector<int>> widths(n);
  std::vector<double> shortest(n);
  double t_min = std::numeric_limits<double>::max();
  for (std::size_t i = 0; i < n; ++i) {
    widths[i] = problem.jobs[i].model.Widths(m);
    double fastest = std::numeric_limits<double>::max();
    for (int k : widths[i]) {
      fastest = std::min(fastest, static_cast<double>(problem.jobs[i].model.TimeOn(k)) / 1e6);
    }
    shortest[i] = fastest;
    t_min = std::min(t_min, fastest);
  }

  // t_0 .. t_{K+1} = 2d, doubling; I_j = (t_j, t_{j+1}] for j <= K, and a last interval
  // (t_{K+1}, infinity) without a capacity row.
  const double d = static_cast<double>(mrt->d) / 1e6;
  const int k_levels = std::max(0, static_cast<int>(std::floor(std::log2(d / t_min))));
  std::vector<double> t = {d / std::ldexp(1.0, k_levels)};
  while (t.size() < static_cast<std::size_t>(k_levels) + 2) t.push_back(2 * t.back());
  t.push_back(std::numeric_limits<double>::infinity());
  const int intervals = static_cast<int>(t.size()) - 2;  // the bounded ones

  // Columns x_ij (column-major), rows: one per job (>= 1), one per interval (capacity).
  std::vector<CoinBigIndex> starts = {0};
  std::vector<int> rows;
  std::vector<double> values;
  std::vector<double> objective;
  for (std::size_t i = 0; i < n; ++i) {
    for (int j = 0; j <= intervals; ++j) {
      double area = std::numeric_limits<double>::infinity();
      for (int k : widths[i]) {
        const double length = static_cast<double>(problem.jobs[i].model.TimeOn(k)) / 1e6;
        if (length <= t[j + 1]) area = std::min(area, k * length);
      }
      if (!std::isfinite(area)) continue;  // cannot end by t_{j+1}
      rows.push_back(static_cast<int>(i));
      values.push_back(1);
      for (int l = j; l < intervals; ++l) {
        rows.push_back(static_cast<int>(n) + l);
        values.push_back(area);
      }
      starts.push_back(static_cast<CoinBigIndex>(rows.size()));
      objective.push_back(problem.jobs[i].weight * std::max(j == 0 ? 0.0 : t[j], shortest[i]));
    }
  }
  const int columns = static_cast<int>(objective.size());
  std::vector<double> column_lower(columns, 0);
  std::vector<double> column_upper(columns, 1);
  std::vector<double> row_lower(n + intervals, -COIN_DBL_MAX);
  std::vector<double> row_upper(n + intervals, COIN_DBL_MAX);
  for (std::size_t i = 0; i < n; ++i) row_lower[i] = 1;
  for (int j = 0; j < intervals; ++j) {
    row_upper[n + j] = FreeArea(problem.free, problem.now,
                                problem.now + static_cast<Time>(std::ceil(t[j + 1] * 1e6)));
  }
  if (control.Stop()) return absl::CancelledError("the LP bound: planning was stopped");

  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.loadProblem(columns, static_cast<int>(n) + intervals, starts.data(), rows.data(),
                 values.data(), column_lower.data(), column_upper.data(), objective.data(),
                 row_lower.data(), row_upper.data());
  lp.setOptimizationDirection(1);  // minimize
  lp.dual();
  if (!lp.isProvenOptimal()) {
    return absl::InternalError(absl::StrFormat(
        "Clp did not solve the sum-wC lower bound LP (status %d, %d jobs, %d intervals)",
        lp.status(), n, intervals));
  }
  return lp.objectiveValue() * 1e6;
}

}  // namespace resched
