// Slurm's REST answers (slurmrestd, OpenAPI plugin v0.0.38, which Slurm 22.05 serves) read into
// the bridge's batch-system model: the pure half of the Slurm adapter, testable on recorded
// answers.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bridge/batch_system.h"

namespace resched::bridge::slurm {

// The path prefix of the API version the bridge speaks.
inline constexpr absl::string_view kApiPath = "/slurm/v0.0.38";

// GET {kApiPath}/partition/NAME: its CPUs and node names.
struct PartitionInfo {
  int cpus = 0;
  std::string nodes;  // Slurm's host list expression, e.g. "node[1-4]"
};
absl::StatusOr<PartitionInfo> ParsePartition(absl::string_view body, absl::string_view partition);

// GET {kApiPath}/nodes: the nodes in `partition`.
absl::StatusOr<std::vector<BatchNode>> ParseNodes(absl::string_view body,
                                                  absl::string_view partition);

// GET {kApiPath}/reservations: every reservation (a reservation given by node names only, such
// as a maintenance of whole nodes, counts all their cores).
absl::StatusOr<std::vector<BatchReservation>> ParseReservations(absl::string_view body);

// GET {kApiPath}/jobs: the jobs of `partition`, pending, running, or ended and still listed.
absl::StatusOr<std::vector<BatchJob>> ParseJobs(absl::string_view body,
                                                absl::string_view partition);

}  // namespace resched::bridge::slurm
