#include "bench/experiment/runner.h"

#include <cmath>

namespace resched::experiment {

absl::StatusOr<RunFigures> RunOne(const Workload& workload, int processors,
                                  const Contender& contender) {
  ClusterSpec spec{
      "experiment", {{"", processors, 1.0}}, ClockKind::kSimulated, contender.policy, {}};
  auto result = Simulate(workload, spec, contender.params);
  if (!result.ok()) return result.status();
  RunFigures figures{
      contender.label, result->metrics, result->fairness, result->policy_seconds, {}, 0};
  for (const SimJobRecord& job : result->jobs) {
    if (job.end - job.release > figures.longest_flow.end - figures.longest_flow.release) {
      figures.longest_flow = job;
    }
  }
  std::size_t smaller = 0;
  for (const SimJobRecord& job : result->jobs) {
    smaller += job.sequential_time < figures.longest_flow.sequential_time ? 1 : 0;
  }
  if (!result->jobs.empty()) {
    figures.longest_flow_size_rank =
        static_cast<double>(smaller) / static_cast<double>(result->jobs.size());
  }
  return figures;
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
