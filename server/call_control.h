// The deadline and cancellation of the call a worker thread is running, for handlers that plan
// for long (Replan, ReserveDAG, QueryDeadline): they stop planning once the caller has given up,
// and answer so.
#pragma once

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "server/auth/tokens.h"

namespace resched::server {

// Makes `context` the current call of this thread while in scope (ReschedService::Dispatch),
// made by `principal` (null when the server does not authenticate calls).
class CurrentCallScope {
 public:
  CurrentCallScope(grpc::CallbackServerContext* context, const auth::Principal* principal);
  ~CurrentCallScope();
  CurrentCallScope(const CurrentCallScope&) = delete;
  CurrentCallScope& operator=(const CurrentCallScope&) = delete;

 private:
  grpc::CallbackServerContext* previous_;
  const auth::Principal* previous_principal_;
};

// OK while the current call may go on (or outside any call); DEADLINE_EXCEEDED once its
// deadline has passed; CANCELLED once the client cancelled it.
absl::Status CurrentCallStatus();

// Who makes the current call: null outside a call, or when the server does not authenticate.
const auth::Principal* CurrentPrincipal();

}  // namespace resched::server
