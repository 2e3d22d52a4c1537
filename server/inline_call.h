// A unary call that gRPC's own thread answers itself, without the hop to a worker thread (a
// futex wake and two context switches, a sixth of a cheap call's cost on two cores). Only when
// nothing in it can wait: the service tries it for the calls whose work is bounded (SubmitJob
// without dry_run, GetJob), and the cluster declines it, before touching anything, when its lock
// is held, when its answer would block for a journal sync (one deferred, as calls' are, holds
// nothing: server/deferred_durability.h), when its record may make a snapshot due (a copy of
// the whole plan), or when its last change was slow. A
// declined call then runs on a worker as any other.
#pragma once

#include "absl/status/status.h"

namespace resched::server {

class InlineCall {
 public:
  // Marks the calling thread's call as inline for the scope.
  InlineCall();
  ~InlineCall();
  InlineCall(const InlineCall&) = delete;
  InlineCall& operator=(const InlineCall&) = delete;

  // Whether the call was declined: the handler then changed nothing and must run on a worker.
  bool declined() const { return declined_; }

  // Whether the calling thread is running an inline call.
  static bool Running();
  // Declines the calling thread's inline call; returns the status the handler passes up (never
  // seen by a client).
  static absl::Status Decline();

 private:
  bool declined_ = false;
};

}  // namespace resched::server
