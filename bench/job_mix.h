// The job mix of the submission benchmarks: rigid and Amdahl jobs of 1 to 32 processors and
// 1 minute to 2 hours (an Amdahl job's t1 is 8 times its time, alpha 0.05 to 0.24, up to 32
// processors), half of each when mixed.
#pragma once

#include <random>

#include "core/model/job.h"
#include "core/model/runtime_model.h"
#include "core/model/time.h"

namespace resched::bench {

enum class JobKind { kMixed, kRigid, kMoldable };

inline Job RandomJob(std::mt19937_64& rng, JobKind kind = JobKind::kMixed) {
  const Duration time = (60 + static_cast<Duration>(rng() % 7200)) * kMicrosPerSecond;
  const bool rigid = kind == JobKind::kMixed ? rng() % 2 == 0 : kind == JobKind::kRigid;
  Job job;
  if (rigid) {
    job.model = RuntimeModel(RigidModel{1 + static_cast<int>(rng() % 32), time});
  } else {
    job.model =
        RuntimeModel(AmdahlModel{time * 8, 0.05 + static_cast<double>(rng() % 20) / 100.0, 1, 32});
  }
  return job;
}

}  // namespace resched::bench
