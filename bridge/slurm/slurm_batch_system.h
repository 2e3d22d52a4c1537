// The bridge's BatchSystem for one Slurm partition: reads through slurmrestd (JSON, OpenAPI
// v0.0.38), writes reservations through one scontrol process per round (scontrol.h).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bridge/batch_system.h"
#include "bridge/slurm/rest_client.h"
#include "bridge/slurm/scontrol.h"

namespace resched::bridge::slurm {

struct SlurmOptions {
  RestEndpoint rest;
  std::string partition = "batch";
  std::string scontrol = "scontrol";  // the program; SLURM_CONF from the environment
  absl::Duration scontrol_timeout = absl::Seconds(30);
};

class SlurmBatchSystem : public BatchSystem {
 public:
  static absl::StatusOr<std::unique_ptr<SlurmBatchSystem>> Open(SlurmOptions options);

  absl::StatusOr<BatchSnapshot> Read() override;
  absl::StatusOr<std::string> Apply(std::span<const ReservationChange> changes) override;

 private:
  SlurmBatchSystem(SlurmOptions options, std::unique_ptr<RestClient> rest);

  SlurmOptions options_;
  std::unique_ptr<RestClient> rest_;
  // From the last Read: the reservations there were, and the jobs a move left out of theirs.
  std::set<std::string> existing_;
  std::vector<ParkedJob> parked_;
};

}  // namespace resched::bridge::slurm
