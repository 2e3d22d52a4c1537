// The short-sequence-mapping workload of Saule et al. §7 (third scenario) and §7.2: moldable tasks
// that map S short reads onto a reference genome of G bases, parallelized over a three-dimensional
// space cut into x, y and z parts on x*y*z processors; the run time on p processors is the best
// over x*y*z <= p, so the speedup has steps (a prime p often runs best on fewer processors).
// Inter-arrival times are exponential, with the rate tuned to a target load; sequential times span
// 30 s to 2.5 days in the paper.
//
// The paper defers the cost model and the size distributions to its refs [6] and [9], which we do
// not have. Our reading, to be replaced if those papers disagree:
// - dimensions: x splits the reads, y the genome, z the K seed patterns (K = 6 by default);
// - per processor, for each of its ceil(K / z) patterns: index its genome part (a * G / y), hash
//   its reads (b * S / x, repeated on every genome part) and verify candidate hits (c * (S / x) *
//   (G / y)):  t(x, y, z) = ceil(K / z) * (a G / y + b S / x + c S G / (x y));
// - G log-uniform in [1e5, 3e9] bases (a targeted segment to a human genome), S log-uniform in
//   [1e6, 5e8] reads ("a few million" to "hundreds of millions", §7);
// - a, b, c calibrated so that the smallest corner (G, S minimal) takes 30 s sequentially and the
//   largest takes 2.5 days, with indexing a third of the largest task's time.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/runtime_model.h"
#include "core/workload/workload.h"

namespace resched {

struct SsmWorkloadOptions {
  int tasks = 8000;
  int processors = 512;
  double load = 300;  // target load (§4 definition); the paper uses 153 to 509
  std::uint64_t seed = 1;
  int seed_patterns = 6;  // K
  double genome_min = 1e5, genome_max = 3e9;
  double reads_min = 1e6, reads_max = 5e8;
  double sequential_min_seconds = 30;      // t(1,1,1) at (genome_min, reads_min)
  double sequential_max_seconds = 216000;  // t(1,1,1) at (genome_max, reads_max): 2.5 days
  double index_share = 1.0 / 3;            // of the largest task's sequential time
  // List only the widths where the time drops (the others waste processors); by default every width
  // 1..P is listed so that algorithms see the steps, as in the paper.
  bool pareto_widths_only = false;
};

// Per-pattern costs in seconds.
struct SsmCostModel {
  double index_per_base = 0;   // a
  double hash_per_read = 0;    // b
  double verify_per_pair = 0;  // c
  int seed_patterns = 6;       // K
};

struct SsmDecomposition {
  int x = 1, y = 1, z = 1;
  double seconds = 0;
};

// Errors: INVALID_ARGUMENT when the calibration has no positive solution.
absl::StatusOr<SsmCostModel> CalibrateSsmCostModel(const SsmWorkloadOptions& options);

// t(x, y, z) in seconds for a task of `genome` bases and `reads` reads.
double SsmSeconds(const SsmCostModel& cost, double genome, double reads, int x, int y, int z);

// For p = 1..processors, the decomposition with x*y*z <= p of least time (element p - 1).
std::vector<SsmDecomposition> SsmBestDecompositions(const SsmCostModel& cost, double genome,
                                                    double reads, int processors);

// The table model of those times, rounded up to the microsecond.
RuntimeModel SsmRuntimeModel(const SsmCostModel& cost, double genome, double reads, int processors,
                             bool pareto_widths_only = false);

// Tasks "t0", "t1", ... released from 0 in order, TableModel each, runtime_fraction 1 (the paper:
// run times are predicted accurately). Errors: INVALID_ARGUMENT naming the option.
absl::StatusOr<Workload> GenerateSsmWorkload(const SsmWorkloadOptions& options);

}  // namespace resched
