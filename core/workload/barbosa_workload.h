// The DAGs of Barbosa & Monteiro §5.2: linear algebra kernels (Table 1) on the random DAG generator
// of Shivle et al. [8], and the 10-task DAG of Topcuoglu et al.'s Fig. 3 [20].
//
// Followed: N_a = N_c = 4 entry/exit nodes, out-degree in [2, 5], edges from smaller to larger ids;
// kernels TRD, Q, QR, C drawn uniformly with Table 1's relative computation and intra-task
// communication weights, size n uniform in [100, 400]; processors of 404 Mflop/s on 100 Mbit/s
// Ethernet; an edge costs 30% of its predecessor's computation time. Choices (the paper's times
// were measured on its cluster and are not given):
// - A kernel of weights (a, b) and size n is eq. (1)'s model: f(n) = a * flops_per_n3 * n^3 flops
//   (default 2 n^3, the matrix product of eq. (1), the only cost function the paper gives), b * n^2
//   (r + c - 2) elements of 64 bits exchanged (CommunicationModel::matrix_size = n sqrt(b)), a
//   latency T_L of 100 us (not given in the paper).
// - "Computation time" of the predecessor (edge cost) is its time on one processor.
// - Generator [8] as §5.2 summarizes it: every non-exit node draws its out-degree in [2, 5] (capped
//   by the nodes after it) and picks distinct successors among the later non-entry nodes; a
//   non-entry node left without a predecessor then gets one, drawn among the earlier non-exit nodes
//   whose out-degree is below 5 (any earlier non-exit node if none is).
// - Fig. 3 of Topcuoglu et al. is rebuilt from the HEFT paper (its computation-cost table and edge
//   weights, which give the published rank_u values, e.g. 108 for n1, and HEFT's schedule length
//   80); Barbosa keeps its structure and draws kernels as for the random DAGs.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dag/heft.h"
#include "core/model/dag.h"
#include "core/model/runtime_model.h"

namespace resched {

enum class LinearAlgebraKernel { kTrd, kQ, kQr, kCorrelation };

struct KernelWeights {
  double computation = 1;    // Table 1, relative computational weight
  double communication = 1;  // Table 1, relative intra-task communication weight
};

KernelWeights Table1Weights(LinearAlgebraKernel kernel);
const char* KernelName(LinearAlgebraKernel kernel);  // "TRD", "Q", "QR", "C"

struct BarbosaWorkloadOptions {
  double processor_flops = 404e6;  // §5.1: 404 Mflop/s
  double bandwidth_bits = 100e6;   // §5.1: 100 Mbit/s switched Ethernet
  double bits_per_element = 64;
  double latency_s = 1e-4;
  double flops_per_n3 = 2;
  int min_size = 100;  // §5.2
  int max_size = 400;
  double communication_ratio = 0.3;  // §5.2: edges cost 30% of the predecessor's computation
  int entry_nodes = 4;               // N_a
  int exit_nodes = 4;                // N_c
  int min_out_degree = 2;
  int max_out_degree = 5;
};

// Eq. (1) for `kernel` of size n (see the header comment).
RuntimeModel KernelModel(LinearAlgebraKernel kernel, int n, const BarbosaWorkloadOptions& options);

// Edges (from, to) of a random DAG of `tasks` >= entry + exit + 1 nodes ([8], 0-based ids).
std::vector<std::pair<int, int>> ShivleDagEdges(int tasks, std::uint64_t seed,
                                                const BarbosaWorkloadOptions& options = {});

// Kernels and sizes drawn for the given structure, edge transfers set from the predecessors.
Dag KernelDag(int tasks, const std::vector<std::pair<int, int>>& edges, std::uint64_t seed,
              const BarbosaWorkloadOptions& options = {});

// §5.2's random DAGs (30 and 90 tasks in Table 2).
Dag BarbosaRandomDag(int tasks, std::uint64_t seed, const BarbosaWorkloadOptions& options = {});

// §5.2's DAG10: Topcuoglu's Fig. 3 structure with random kernels.
Dag BarbosaTopcuogluDag(std::uint64_t seed, const BarbosaWorkloadOptions& options = {});

// Topcuoglu, Hariri & Wu 2002, Fig. 3: 10 tasks, 3 processors, one time unit = 1 s. The DAG's
// models are rigid on one processor for the mean cost (HEFT reads `costs`).
struct TopcuogluExample {
  Dag dag;
  TaskCosts costs;  // [task][processor]
};
TopcuogluExample TopcuogluFig3();

}  // namespace resched
