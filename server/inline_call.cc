#include "server/inline_call.h"

namespace resched::server {
namespace {

thread_local InlineCall* current_inline_call = nullptr;

}  // namespace

InlineCall::InlineCall() { current_inline_call = this; }

InlineCall::~InlineCall() { current_inline_call = nullptr; }

bool InlineCall::Running() { return current_inline_call != nullptr; }

absl::Status InlineCall::Decline() {
  if (current_inline_call != nullptr) current_inline_call->declined_ = true;
  return absl::UnavailableError("declined to run on the transport's thread");
}

}  // namespace resched::server
