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
  for (Row& r : rows) {
    if (r.scenarios > 0) r.mean_degradation /= r.scenarios;
  }
  return rows;
}

}  // namespace resched::experiment
