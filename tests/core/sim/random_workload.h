// Random workloads for simulator tests: rigid and Amdahl jobs, bursts of simultaneous releases,
// early finishes. Integer draws only, so a seed gives the same workload everywhere.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/workload/workload.h"

namespace resched::testing {

// Releases come in bursts separated by gaps below `max_gap`: the default keeps 16 processors
// overloaded, so queues grow long.
inline Workload RandomWorkload(std::uint64_t seed, int jobs, int processors,
                               Duration max_gap = 120 * kMicrosPerSecond) {
  std::mt19937_64 rng(seed);
  Workload w;
  w.name = absl::StrCat("random-", seed);
  w.processors = processors;
  Time release = 0;
  for (int i = 0; i < jobs; ++i) {
    if (rng() % 4 != 0) release += static_cast<Time>(rng() % max_gap);
    WorkloadJob wj;
    wj.job.release = release;
    wj.job.name = absl::StrCat("job", i);
    // Microsecond-odd lengths so that ceil(fraction x length) really rounds.
    const Duration length = (1 + static_cast<Duration>(rng() % 900)) * kMicrosPerSecond +
                            static_cast<Duration>(rng() % 1000);
    if (rng() % 2 == 0) {
      const int k = 1 + static_cast<int>(rng() % processors);
      wj.job.model = RuntimeModel(RigidModel{k, length});
    } else {
      const int k_max = rng() % 3 == 0 ? 0 : 1 + static_cast<int>(rng() % processors);
      wj.job.model = RuntimeModel(AmdahlModel{4 * length, (rng() % 101) / 100.0, 1, k_max});
    }
    wj.runtime_fraction = rng() % 3 == 0 ? 1.0 : (1 + rng() % 1000) / 1000.0;
    w.jobs.push_back(std::move(wj));
  }
  return w;
}

}  // namespace resched::testing
