// Slurm's advance reservations are created, moved and deleted with scontrol: slurmrestd's API of
// Slurm 22.05 (v0.0.38) only lists them. One scontrol process takes a whole round's commands on
// its standard input, so a round costs one process, not one per reservation; whether each one
// held is read back from slurmrestd's JSON at the next round, never from scontrol's messages.
#pragma once

#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bridge/batch_system.h"

namespace resched::bridge::slurm {

// The AdminComment of a job the bridge took out of a reservation it is moving (Slurm 22.05
// cannot move a core-based reservation: it is deleted and made again, and a reservation with a
// job waiting in it cannot be deleted). The job is held meanwhile, so it cannot start elsewhere;
// the note, kept by Slurm, lets a restarted bridge put back a job a failed move left out.
inline constexpr char kParkedNote[] = "resched-bridge: waiting for reservation ";

struct ParkedJob {
  std::string job;
  std::string reservation;
};

// One round's scontrol commands, one per line, times in UTC (scontrol runs with TZ=UTC); a start
// at or before `now` is "now". Parked jobs whose reservation is in `existing` go back first; a
// deleted reservation's parked jobs are released as they are.
std::string ScontrolScript(std::span<const ReservationChange> changes,
                           const std::vector<ParkedJob>& parked,
                           const std::set<std::string>& existing, const std::string& partition,
                           Time now);

struct CommandResult {
  int exit_code = 0;
  std::string output;  // standard error, for the log
};

// Runs `program` with `input` on its standard input, killing it after `timeout` (its standard
// output is dropped); `environment`
// entries ("NAME=value") are set on top of the bridge's own.
absl::StatusOr<CommandResult> RunWithInput(const std::vector<std::string>& argv,
                                           const std::string& input,
                                           const std::vector<std::string>& environment,
                                           absl::Duration timeout);

}  // namespace resched::bridge::slurm
