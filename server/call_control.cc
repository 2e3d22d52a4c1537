#include "server/call_control.h"

#include <chrono>

namespace resched::server {
namespace {

thread_local grpc::CallbackServerContext* current_call = nullptr;
thread_local const auth::Principal* current_principal = nullptr;

}  // namespace

CurrentCallScope::CurrentCallScope(grpc::CallbackServerContext* context,
                                   const auth::Principal* principal)
    : previous_(current_call), previous_principal_(current_principal) {
  current_call = context;
  current_principal = principal;
}

CurrentCallScope::~CurrentCallScope() {
  current_call = previous_;
  current_principal = previous_principal_;
}

const auth::Principal* CurrentPrincipal() { return current_principal; }

absl::Status CurrentCallStatus() {
  if (current_call == nullptr) return absl::OkStatus();
  // A call without a deadline has the largest time_point as its deadline.
  if (std::chrono::system_clock::now() >= current_call->deadline()) {
    return absl::DeadlineExceededError("the call's deadline passed while planning");
  }
  if (current_call->IsCancelled()) {
    return absl::CancelledError("the client cancelled the call while planning");
  }
  return absl::OkStatus();
}

}  // namespace resched::server
