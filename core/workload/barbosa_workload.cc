// Barbosa & Monteiro §5.2 workloads; choices are listed in barbosa_workload.h.
#include "core/workload/barbosa_workload.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/workload/random.h"

namespace resched {
namespace {

constexpr LinearAlgebraKernel kKernels[] = {LinearAlgebraKernel::kTrd, LinearAlgebraKernel::kQ,
                                            LinearAlgebraKernel::kQr,
                                            LinearAlgebraKernel::kCorrelation};

// Uniform integer in [lo, hi].
int UniformInt(WorkloadRng& rng, int lo, int hi) {
  const int v = lo + static_cast<int>(rng.Uniform01() * (hi - lo + 1));
  return std::min(v, hi);
}

}  // namespace

KernelWeights Table1Weights(LinearAlgebraKernel kernel) {
  switch (kernel) {
    case LinearAlgebraKernel::kTrd:
      return {1, 1};
    case LinearAlgebraKernel::kQ:
      return {0.82, 0.125};
    case LinearAlgebraKernel::kQr:
      return {2, 0.25};
    case LinearAlgebraKernel::kCorrelation:
      return {3, 0.5};
  }
  return {1, 1};
}

const char* KernelName(LinearAlgebraKernel kernel) {
  switch (kernel) {
    case LinearAlgebraKernel::kTrd:
      return "TRD";
    case LinearAlgebraKernel::kQ:
      return "Q";
    case LinearAlgebraKernel::kQr:
      return "QR";
    case LinearAlgebraKernel::kCorrelation:
      return "C";
  }
  return "?";
}

RuntimeModel KernelModel(LinearAlgebraKernel kernel, int n, const BarbosaWorkloadOptions& options) {
  const KernelWeights w = Table1Weights(kernel);
  const double size = n;
  CommunicationModel m;
  m.flops = w.computation * options.flops_per_n3 * size * size * size;
  m.matrix_size = size * std::sqrt(w.communication);  // n^2 b elements per grid hop
  m.latency_s = options.latency_s;
  m.bandwidth = options.bandwidth_bits / options.bits_per_element;
  m.processor_speed = options.processor_flops;
  return RuntimeModel(m);
}

std::vector<std::pair<int, int>> ShivleDagEdges(int tasks, std::uint64_t seed,
                                                const BarbosaWorkloadOptions& options) {
  WorkloadRng rng(seed);
  const int na = options.entry_nodes;
  const int nc = options.exit_nodes;
  const int first_exit = tasks - nc;  // ids [first_exit, tasks) are exit nodes
  std::vector<std::vector<char>> linked(tasks, std::vector<char>(tasks, 0));
  std::vector<int> out(tasks, 0);
  std::vector<int> in(tasks, 0);
  std::vector<std::pair<int, int>> edges;
  auto link = [&](int a, int b) {
    linked[a][b] = 1;
    ++out[a];
    ++in[b];
    edges.emplace_back(a, b);
  };
  for (int a = 0; a < first_exit; ++a) {
    // Later non-entry nodes: ids in [max(a + 1, na), tasks).
    std::vector<int> pool;
    for (int b = std::max(a + 1, na); b < tasks; ++b) pool.push_back(b);
    const int degree = std::min(UniformInt(rng, options.min_out_degree, options.max_out_degree),
                                static_cast<int>(pool.size()));
    for (int d = 0; d < degree; ++d) {  // partial Fisher-Yates: distinct successors
      const int x = UniformInt(rng, d, static_cast<int>(pool.size()) - 1);
      std::swap(pool[d], pool[x]);
      link(a, pool[d]);
    }
  }
  for (int b = na; b < tasks; ++b) {
    if (in[b] > 0) continue;
    std::vector<int> from;
    for (int a = 0; a < std::min(b, first_exit); ++a) {
      if (out[a] < options.max_out_degree) from.push_back(a);
    }
    if (from.empty()) {
      for (int a = 0; a < std::min(b, first_exit); ++a) from.push_back(a);
    }
    link(from[UniformInt(rng, 0, static_cast<int>(from.size()) - 1)], b);
  }
  std::sort(edges.begin(), edges.end());
  return edges;
}

Dag KernelDag(int tasks, const std::vector<std::pair<int, int>>& edges, std::uint64_t seed,
              const BarbosaWorkloadOptions& options) {
  // A stream apart from the structure's, so the same seed can drive both.
  WorkloadRng rng(seed ^ 0x9e3779b97f4a7c15ULL);
  Dag dag;
  for (int i = 0; i < tasks; ++i) {
    const LinearAlgebraKernel kernel = kKernels[UniformInt(rng, 0, 3)];
    const int n = UniformInt(rng, options.min_size, options.max_size);
    dag.tasks.push_back({absl::StrCat("t", i + 1, "-", KernelName(kernel), "-", n),
                         KernelModel(kernel, n, options)});
  }
  for (const auto& [a, b] : edges) {
    const double seconds = static_cast<double>(dag.tasks[a].model.TimeOn(1)) / kMicrosPerSecond;
    dag.edges.push_back({a, b, CeilMicros(options.communication_ratio * seconds)});
  }
  return dag;
}

Dag BarbosaRandomDag(int tasks, std::uint64_t seed, const BarbosaWorkloadOptions& options) {
  return KernelDag(tasks, ShivleDagEdges(tasks, seed, options), seed, options);
}

namespace {

struct Fig3Edge {
  int from, to, weight;  // 1-based, as in the paper
};
constexpr Fig3Edge kFig3Edges[] = {{1, 2, 18}, {1, 3, 12}, {1, 4, 9},   {1, 5, 11},  {1, 6, 14},
                                   {2, 8, 19}, {2, 9, 16}, {3, 7, 23},  {4, 8, 27},  {4, 9, 23},
                                   {5, 9, 13}, {6, 8, 15}, {7, 10, 17}, {8, 10, 11}, {9, 10, 13}};
constexpr int kFig3Costs[10][3] = {{14, 16, 9},  {13, 19, 18}, {11, 13, 19}, {13, 8, 17},
                                   {12, 13, 10}, {13, 16, 9},  {7, 15, 11},  {5, 11, 14},
                                   {18, 12, 20}, {21, 7, 16}};

}  // namespace

Dag BarbosaTopcuogluDag(std::uint64_t seed, const BarbosaWorkloadOptions& options) {
  std::vector<std::pair<int, int>> edges;
  for (const Fig3Edge& e : kFig3Edges) edges.emplace_back(e.from - 1, e.to - 1);
  return KernelDag(10, edges, seed, options);
}

TopcuogluExample TopcuogluFig3() {
  TopcuogluExample ex;
  for (int i = 0; i < 10; ++i) {
    std::vector<Duration> row;
    Duration sum = 0;
    for (int c : kFig3Costs[i]) {
      row.push_back(c * kMicrosPerSecond);
      sum += c * kMicrosPerSecond;
    }
    ex.costs.push_back(row);
    ex.dag.tasks.push_back({absl::StrCat("n", i + 1), RuntimeModel(RigidModel{1, sum / 3})});
  }
  for (const Fig3Edge& e : kFig3Edges) {
    ex.dag.edges.push_back({e.from - 1, e.to - 1, e.weight * kMicrosPerSecond});
  }
  return ex;
}

}  // namespace resched
