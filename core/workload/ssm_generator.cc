#include "core/workload/ssm_generator.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/workload/random.h"

namespace resched {
namespace {

constexpr int kMaxTasks = 1'000'000;
constexpr int kMaxProcessors = 1 << 14;  // tables hold one entry per width
constexpr int kMaxSeedPatterns = 64;

struct Triple {
  int x, y, z;
};

// Every (x, y, z) with x*y*z <= processors and z <= K (more pattern groups than patterns only idles
// processors), grouped by product so the caller can take prefix minima.
std::vector<std::vector<Triple>> TriplesByProduct(int processors, int k) {
  std::vector<std::vector<Triple>> by_product(processors + 1);
  for (int z = 1; z <= k && z <= processors; ++z) {
    for (int y = 1; y * z <= processors; ++y) {
      for (int x = 1; x * y * z <= processors; ++x) by_product[x * y * z].push_back({x, y, z});
    }
  }
  return by_product;
}

std::vector<SsmDecomposition> BestFromTriples(const SsmCostModel& cost, double genome, double reads,
                                              const std::vector<std::vector<Triple>>& triples) {
  const int processors = static_cast<int>(triples.size()) - 1;
  std::vector<SsmDecomposition> best(processors);
  SsmDecomposition current{1, 1, 1, SsmSeconds(cost, genome, reads, 1, 1, 1)};
  for (int p = 1; p <= processors; ++p) {
    for (const Triple& t : triples[p]) {
      const double s = SsmSeconds(cost, genome, reads, t.x, t.y, t.z);
      if (s < current.seconds) current = {t.x, t.y, t.z, s};
    }
    best[p - 1] = current;
  }
  return best;
}

RuntimeModel TableFrom(const std::vector<SsmDecomposition>& best, bool pareto_only) {
  TableModel table;
  table.entries.reserve(best.size());
  for (std::size_t i = 0; i < best.size(); ++i) {
    const Duration t = CeilMicros(best[i].seconds);
    if (pareto_only && !table.entries.empty() && table.entries.back().time <= t) continue;
    table.entries.push_back({static_cast<int>(i) + 1, t});
  }
  return RuntimeModel(std::move(table));
}

absl::Status CheckOptions(const SsmWorkloadOptions& o) {
  if (o.tasks < 2 || o.tasks > kMaxTasks) {
    return absl::InvalidArgumentError(
        absl::StrCat("tasks must be in [2, ", kMaxTasks, "], got ", o.tasks));
  }
  if (o.processors < 1 || o.processors > kMaxProcessors) {
    return absl::InvalidArgumentError(
        absl::StrCat("processors must be in [1, ", kMaxProcessors, "], got ", o.processors));
  }
  if (!(o.load > 0 && o.load <= 1e9)) {
    return absl::InvalidArgumentError(absl::StrFormat("load must be in (0, 1e9], got %g", o.load));
  }
  if (o.seed_patterns < 1 || o.seed_patterns > kMaxSeedPatterns) {
    return absl::InvalidArgumentError(absl::StrCat("seed_patterns must be in [1, ",
                                                   kMaxSeedPatterns, "], got ", o.seed_patterns));
  }
  if (!(o.genome_min >= 1 && o.genome_min <= o.genome_max && o.genome_max <= 1e12)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("genome range must satisfy 1 <= genome_min <= "
                        "genome_max <= 1e12, got [%g, %g]",
                        o.genome_min, o.genome_max));
  }
  if (!(o.reads_min >= 1 && o.reads_min <= o.reads_max && o.reads_max <= 1e12)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("reads range must satisfy 1 <= reads_min <= reads_max "
                        "<= 1e12, got [%g, %g]",
                        o.reads_min, o.reads_max));
  }
  const double max_seconds = static_cast<double>(kMaxJobDuration) / kMicrosPerSecond;
  if (!(o.sequential_min_seconds > 0 && o.sequential_min_seconds < o.sequential_max_seconds &&
        o.sequential_max_seconds <= max_seconds)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("sequential times must satisfy 0 < min < max <= %g s, got [%g, %g]",
                        max_seconds, o.sequential_min_seconds, o.sequential_max_seconds));
  }
  if (!(o.index_share >= 0 && o.index_share < 1)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("index_share must be in [0, 1), got %g", o.index_share));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SsmCostModel> CalibrateSsmCostModel(const SsmWorkloadOptions& o) {
  if (absl::Status status = CheckOptions(o); !status.ok()) return status;
  const double k = o.seed_patterns;
  // Per-pattern sequential times of the two corners.
  const double small = o.sequential_min_seconds / k;
  const double large = o.sequential_max_seconds / k;
  SsmCostModel cost;
  cost.seed_patterns = o.seed_patterns;
  cost.index_per_base = o.index_share * large / o.genome_max;
  // Solve b S + c G S = rest at both corners (2 x 2 linear system in b, c).
  const double rest_small = small - cost.index_per_base * o.genome_min;
  const double rest_large = large - cost.index_per_base * o.genome_max;
  const double det =
      o.reads_min * o.genome_max * o.reads_max - o.reads_max * o.genome_min * o.reads_min;
  if (det > 0) {
    cost.verify_per_pair = (o.reads_min * rest_large - o.reads_max * rest_small) / det;
    cost.hash_per_read =
        (rest_small - cost.verify_per_pair * o.genome_min * o.reads_min) / o.reads_min;
  } else {
    cost.hash_per_read = rest_small / o.reads_min;  // G fixed: no separate verify term
  }
  if (!(cost.hash_per_read > 0 && cost.verify_per_pair >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("no positive cost model reaches %g s and %g s at the size corners with "
                        "index_share %g",
                        o.sequential_min_seconds, o.sequential_max_seconds, o.index_share));
  }
  return cost;
}

double SsmSeconds(const SsmCostModel& cost, double genome, double reads, int x, int y, int z) {
  const int patterns = (cost.seed_patterns + z - 1) / z;  // ceil(K / z)
  const double genome_part = genome / y;
  const double reads_part = reads / x;
  return patterns * (cost.index_per_base * genome_part + cost.hash_per_read * reads_part +
                     cost.verify_per_pair * reads_part * genome_part);
}

std::vector<SsmDecomposition> SsmBestDecompositions(const SsmCostModel& cost, double genome,
                                                    double reads, int processors) {
  if (processors < 1) return {};
  return BestFromTriples(cost, genome, reads, TriplesByProduct(processors, cost.seed_patterns));
}

RuntimeModel SsmRuntimeModel(const SsmCostModel& cost, double genome, double reads, int processors,
                             bool pareto_widths_only) {
  return TableFrom(SsmBestDecompositions(cost, genome, reads, processors), pareto_widths_only);
}

absl::StatusOr<Workload> GenerateSsmWorkload(const SsmWorkloadOptions& o) {
  absl::StatusOr<SsmCostModel> cost = CalibrateSsmCostModel(o);
  if (!cost.ok()) return cost.status();
  const std::vector<std::vector<Triple>> triples =
      TriplesByProduct(o.processors, cost->seed_patterns);

  WorkloadRng rng(o.seed);
  Workload workload;
  workload.name = absl::StrFormat("saule-ssm-l%g-s%d", o.load, o.seed);
  workload.processors = o.processors;
  workload.jobs.reserve(o.tasks);
  double total_seconds = 0;
  for (int i = 0; i < o.tasks; ++i) {
    const double genome = rng.LogUniform(o.genome_min, o.genome_max);
    const double reads = rng.LogUniform(o.reads_min, o.reads_max);
    WorkloadJob wj;
    wj.job.id = absl::StrCat("t", i);
    wj.job.model = TableFrom(BestFromTriples(*cost, genome, reads, triples), o.pareto_widths_only);
    total_seconds += static_cast<double>(wj.job.model.SequentialTime()) / kMicrosPerSecond;
    workload.jobs.push_back(std::move(wj));
  }
  // As in §7: lambda tuned to the target load, here from the drawn sizes (see sequential
  // generator): the expected span (n - 1) / lambda gives the target exactly.
  const double rate = o.load * (o.tasks - 1) / total_seconds;
  double release_seconds = 0;
  for (int i = 0; i < o.tasks; ++i) {
    if (i > 0) release_seconds += rng.Exponential(rate);
    const Time release = CeilMicros(release_seconds);
    if (release > kTimeMax / 2) {
      return absl::InvalidArgumentError(
          absl::StrFormat("releases exceed %d microseconds: load %g is too low for %d tasks",
                          kTimeMax / 2, o.load, o.tasks));
    }
    workload.jobs[i].job.release = release;
  }
  return workload;
}

}  // namespace resched
