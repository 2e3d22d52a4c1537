#include "bridge/slurm/slurm_batch_system.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bridge/slurm/slurm_json.h"

namespace resched::bridge::slurm {

absl::StatusOr<std::unique_ptr<SlurmBatchSystem>> SlurmBatchSystem::Open(SlurmOptions options) {
  auto rest = RestClient::Open(options.rest);
  if (!rest.ok()) return rest.status();
  return std::unique_ptr<SlurmBatchSystem>(
      new SlurmBatchSystem(std::move(options), *std::move(rest)));
}

SlurmBatchSystem::SlurmBatchSystem(SlurmOptions options, std::unique_ptr<RestClient> rest)
    : options_(std::move(options)), rest_(std::move(rest)) {}

absl::StatusOr<BatchSnapshot> SlurmBatchSystem::Read() {
  BatchSnapshot snapshot;
  snapshot.now = absl::ToUnixMicros(absl::Now());
  auto partition = rest_->Get(absl::StrCat(kApiPath, "/partition/", options_.partition));
  if (!partition.ok()) return partition.status();
  auto info = ParsePartition(*partition, options_.partition);
  if (!info.ok()) return info.status();
  snapshot.capacity = info->cpus;
  auto nodes = rest_->Get(absl::StrCat(kApiPath, "/nodes"));
  if (!nodes.ok()) return nodes.status();
  auto parsed_nodes = ParseNodes(*nodes, options_.partition);
  if (!parsed_nodes.ok()) return parsed_nodes.status();
  snapshot.nodes = *std::move(parsed_nodes);
  auto reservations = rest_->Get(absl::StrCat(kApiPath, "/reservations"));
  if (!reservations.ok()) return reservations.status();
  auto parsed_reservations = ParseReservations(*reservations);
  if (!parsed_reservations.ok()) return parsed_reservations.status();
  snapshot.reservations = *std::move(parsed_reservations);
  auto jobs = rest_->Get(absl::StrCat(kApiPath, "/jobs"));
  if (!jobs.ok()) return jobs.status();
  auto parsed_jobs = ParseJobs(*jobs, options_.partition);
  if (!parsed_jobs.ok()) return parsed_jobs.status();
  snapshot.jobs = *std::move(parsed_jobs);
  existing_.clear();
  for (const BatchReservation& r : snapshot.reservations) existing_.insert(r.name);
  parked_.clear();
  for (BatchJob& job : snapshot.jobs) {
    if (job.state != BatchJobState::kPending || !job.reservation.empty()) continue;
    if (!absl::StartsWith(job.note, kParkedNote)) continue;
    // Still the work of the reservation it waits for.
    job.reservation = job.note.substr(std::string(kParkedNote).size());
    parked_.push_back({job.id, job.reservation});
  }
  return snapshot;
}

absl::StatusOr<std::string> SlurmBatchSystem::Apply(std::span<const ReservationChange> changes) {
  const std::string input = ScontrolScript(changes, parked_, existing_, options_.partition,
                                           absl::ToUnixMicros(absl::Now()));
  if (input.empty()) return std::string();
  auto result = RunWithInput({options_.scontrol}, input, {"TZ=UTC"}, options_.scontrol_timeout);
  if (!result.ok()) return result.status();
  // scontrol echoes each command it reads; only a failed run's output says what was refused.
  if (result->exit_code == 0) return std::string();
  return result->output;
}

}  // namespace resched::bridge::slurm
