// The bridge's rounds: read both sides, reconcile, apply; every `interval`, until stopped. A
// change one side refuses is asked for again at the next round, which starts from what the
// sides then show, so nothing half-applied outlives a round.
#pragma once

#include <atomic>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bridge/batch_system.h"
#include "bridge/reconcile.h"
#include "bridge/resched_cluster.h"
#include "bridge/wakeup.h"

namespace resched::bridge {

struct RoundCounts {
  int reports = 0;  // job and DAG task events reported to resched
  int holds_added = 0;
  int holds_removed = 0;
  int batch_changes = 0;  // reservations created, moved or deleted in the batch system
  int refused = 0;        // changes either side refused (asked again next round)
  bool in_step() const { return reports + holds_added + holds_removed + batch_changes == 0; }
};

class SyncLoop {
 public:
  SyncLoop(BatchSystem& batch, ReschedCluster& resched, SyncOptions options);

  absl::StatusOr<RoundCounts> Round();
  // Rounds every `interval`, or sooner when `wakeup` is notified, until `stop`; a round that
  // fails (a side unreachable) is logged and the next one tries again.
  void Run(absl::Duration interval, Wakeup& wakeup, const std::atomic<bool>& stop);

 private:
  // Logs a refusal once until its message changes, so a change refused every round logs once.
  void Refused(const std::string& what, const absl::Status& status);

  BatchSystem& batch_;
  ReschedCluster& resched_;
  SyncOptions options_;
  SyncMemory memory_;
  std::map<std::string, std::string> last_refusal_;
};

}  // namespace resched::bridge
