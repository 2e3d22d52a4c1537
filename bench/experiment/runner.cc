#include "bench/experiment/runner.h"

#include <cmath>

namespace resched::experiment {

absl::StatusOr<RunFigures> RunOne(const Workload& workload, int processors,
                                  const Contender& contender) {
  ClusterSpec spec{"experiment", {{"", processors, 1.0}}, ClockKind::kSimulated, contender.policy};
  auto result = Simulate(workload, spec, contender.params);
  if (!result.ok()) return result.status();
  return RunFigures{contender.label, result->metrics, result->fairness, result->policy_seconds};
}

MeanStd Summarize(const std::vector<double>& values) {
  if (values.empty()) return {};
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return {mean, std::sqrt(squares / static_cast<double>(values.size()))};
}

}  // namespace resched::experiment
