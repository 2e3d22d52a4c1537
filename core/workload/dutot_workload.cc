#include "core/workload/dutot_workload.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/workload/random.h"

namespace resched {
namespace {

constexpr Duration kMinute = 60 * kMicrosPerSecond;
constexpr double kSmallShare = 0.7;  // mixed workloads: the share of small tasks

// A gaussian draw redrawn until it lies in [lo, hi].
double TruncatedNormal(WorkloadRng& rng, double mean, double deviation, double lo, double hi) {
  while (true) {
    const double x = rng.Normal(mean, deviation);
    if (x >= lo && x <= hi) return x;
  }
}

}  // namespace

absl::StatusOr<Workload> GenerateDutotWorkload(const DutotWorkloadOptions& options) {
  if (options.tasks < 1 || options.tasks > 100'000) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tasks must be in [1, 100000], got %d", options.tasks));
  }
  if (options.processors < 1 || options.processors > 4096) {
    return absl::InvalidArgumentError(
        absl::StrFormat("processors must be in [1, 4096], got %d", options.processors));
  }
  WorkloadRng rng(options.seed);
  Workload workload;
  workload.processors = options.processors;
  switch (options.parallelism) {
    case DutotParallelism::kWeak:
      workload.name = "dutot-weakly-parallel";
      break;
    case DutotParallelism::kHigh:
      workload.name = "dutot-highly-parallel";
      break;
    case DutotParallelism::kMixed:
      workload.name = "dutot-mixed";
      break;
  }
  for (int i = 0; i < options.tasks; ++i) {
    double sequential = 0;  // minutes
    bool weak = options.parallelism == DutotParallelism::kWeak;
    if (options.parallelism == DutotParallelism::kMixed) {
      const bool small = rng.Uniform01() < kSmallShare;
      weak = small;
      sequential =
          small ? TruncatedNormal(rng, 1, 0.5, 1e-3, 1e9) : TruncatedNormal(rng, 10, 5, 1e-3, 1e9);
    } else {
      sequential = rng.Uniform(1, 10);
    }
    const double x = TruncatedNormal(rng, weak ? 0.9 : 0.1, 0.2, 0, 1);
    TableModel table;
    double time = sequential * static_cast<double>(kMinute);
    for (int k = 1; k <= options.processors; ++k) {
      if (k > 1) time *= (x + k) / (1.0 + k);
      table.entries.push_back({k, std::max<Duration>(1, std::llround(time))});
    }
    WorkloadJob job;
    job.job.id = absl::StrCat("t", i);
    job.job.model = RuntimeModel(std::move(table));
    job.job.weight = rng.Uniform(1, 10);
    workload.jobs.push_back(std::move(job));
  }
  return workload;
}

}  // namespace resched
