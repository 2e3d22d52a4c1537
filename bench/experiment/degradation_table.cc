#include "bench/experiment/degradation_table.h"

#include <algorithm>
#include <cmath>

namespace resched::experiment {

void DegradationTable::Add(const std::string& scenario, const std::string& instance,
                           const std::string& algorithm, double value) {
  values_[scenario][instance][algorithm] = value;
}

std::vector<DegradationTable::Row> DegradationTable::Summarize(
    const std::vector<std::string>& algorithms, const std::string& prefix,
    const std::vector<std::string>& reference) const {
  const std::vector<std::string>& best_of = reference.empty() ? algorithms : reference;
  std::vector<Row> rows(algorithms.size());
  for (std::size_t a = 0; a < algorithms.size(); ++a) rows[a].algorithm = algorithms[a];
  std::vector<double> sum_of_squares(algorithms.size(), 0);
  for (const auto& [scenario, instances] : values_) {
    if (scenario.rfind(prefix, 0) != 0) continue;
    std::vector<double> sum(algorithms.size(), 0);
    std::vector<int> count(algorithms.size(), 0);
    for (const auto& [instance, by_algorithm] : instances) {
      double best = INFINITY;
      for (const std::string& name : best_of) {
        auto it = by_algorithm.find(name);
        if (it != by_algorithm.end() && std::isfinite(it->second))
          best = std::min(best, it->second);
      }
      if (!std::isfinite(best) || best <= 0) continue;
      for (std::size_t a = 0; a < algorithms.size(); ++a) {
        auto it = by_algorithm.find(algorithms[a]);
        if (it == by_algorithm.end() || !std::isfinite(it->second)) continue;
        sum[a] += (it->second - best) / best;
        count[a] += 1;
      }
    }
    double lowest = INFINITY;
    std::vector<double> degradation(algorithms.size(), NAN);
    for (std::size_t a = 0; a < algorithms.size(); ++a) {
      if (count[a] == 0) continue;
      degradation[a] = sum[a] / count[a];
      rows[a].mean_degradation += degradation[a];
      sum_of_squares[a] += degradation[a] * degradation[a];
      rows[a].scenarios += 1;
      if (std::find(best_of.begin(), best_of.end(), algorithms[a]) != best_of.end()) {
        lowest = std::min(lowest, degradation[a]);
      }
    }
    for (std::size_t a = 0; a < algorithms.size(); ++a) {
      const bool competes =
          std::find(best_of.begin(), best_of.end(), algorithms[a]) != best_of.end();
      if (competes && !std::isnan(degradation[a]) && degradation[a] <= lowest + 1e-9) {
        rows[a].wins += 1;
      }
    }
  }
  for (std::size_t a = 0; a < rows.size(); ++a) {
    Row& r = rows[a];
    if (r.scenarios == 0) continue;
    const double n = r.scenarios;
    r.mean_degradation /= n;
    if (r.scenarios > 1) {
      const double variance = std::max(
          0.0, (sum_of_squares[a] - n * r.mean_degradation * r.mean_degradation) / (n - 1));
      r.ci95 = 1.96 * std::sqrt(variance / n);
    }
  }
  return rows;
}

}  // namespace resched::experiment
