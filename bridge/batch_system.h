// What the bridge needs of a batch system, apart from how it is reached: a snapshot of its
// capacity, nodes, advance reservations and jobs, and a way to create, move and delete advance
// reservations. bridge/slurm implements it for Slurm; another batch system implements it alone.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/model/time.h"

namespace resched::bridge {

// Instants are resched's (microseconds since the Unix epoch on a WALL cluster); a batch system
// that counts seconds converts at its boundary.
struct BatchReservation {
  std::string name;
  Time start = 0;
  Time end = 0;
  int cores = 0;
  // Who may run in it (the batch system's user and account lists, comma-separated; empty: none).
  std::string users;
  std::string accounts;
};

struct BatchNode {
  std::string name;
  int cpus = 0;
  int allocated_cpus = 0;
  // Down, drained or draining: its free CPUs take no new work.
  bool unavailable = false;
};

enum class BatchJobState { kPending, kRunning, kCompleted, kFailed };

struct BatchJob {
  std::string id;
  BatchJobState state = BatchJobState::kPending;
  // Pending: the batch system's estimate (0 when it has none); running or ended: the actual start.
  Time start = 0;
  // Running: start + time limit (0 when unlimited); ended: the actual end.
  Time end = 0;
  int cpus = 0;
  std::string reservation;  // the advance reservation it was submitted into; empty: none
  std::string note;         // a note for administrators the batch system keeps with the job
};

struct BatchSnapshot {
  Time now = 0;      // the batch system's clock when it answered
  int capacity = 0;  // CPUs of the partition resched plans
  std::vector<BatchNode> nodes;
  std::vector<BatchReservation> reservations;
  std::vector<BatchJob> jobs;  // pending, running and recently ended
};

struct ReservationChange {
  enum class Kind { kCreate, kUpdate, kDelete };
  Kind kind = Kind::kCreate;
  BatchReservation reservation;  // kDelete needs only the name
  // kUpdate on a reservation that already began: its start cannot move, only its end and cores.
  bool keep_start = false;
  // kUpdate: the batch jobs waiting in it, which must still wait in it once it moved.
  std::vector<std::string> waiting_jobs;
};

class BatchSystem {
 public:
  virtual ~BatchSystem() = default;
  virtual absl::StatusOr<BatchSnapshot> Read() = 0;
  // Applies the changes in order, as many as the batch system accepts (none: it may still finish
  // a repair of its own, such as a move that failed half-way). One it refuses is not an
  // error of the call: the next Read shows what holds, and the next round asks again. The answer
  // is the batch system's own words about what it refused, for the log (empty: nothing); an
  // error means the batch system could not be reached.
  virtual absl::StatusOr<std::string> Apply(std::span<const ReservationChange> changes) = 0;
};

}  // namespace resched::bridge
