#include "server/process/process_settings.h"

#include "absl/synchronization/mutex.h"

namespace resched::server {

void ApplyServingProcessSettings() {
  // Debian's Abseil is built without NDEBUG, so every absl::Mutex acquisition (gRPC's locks are
  // absl::Mutex) records lock-order edges, with stack traces, in one global graph for deadlock
  // detection: a debugging aid that perf showed at 1-2 % of a SubmitJob's CPU. Tests keep it on.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

}  // namespace resched::server
