// One call as the application sees it, passed explicitly from the transport's adapter
// (ReschedService::Dispatch) to every handler and on to the cluster the call acts on: who makes
// it, whether its caller still waits, whether it runs inline, and where its waits for the
// journal go. Nothing about a call travels in thread-locals.
//
// Inline: a unary call that the transport's own thread answers itself, without the hop to a
// worker thread (a futex wake and two context switches, a sixth of a cheap call's cost on two
// cores). Only when nothing in it can wait: the adapter tries it for the calls whose work is
// bounded (SubmitJob without dry_run, GetJob), and the cluster declines it, before touching
// anything, when its lock is held, when its answer would block for a journal sync (a deferred
// one holds nothing), when its record may make a snapshot due (an image of the whole plan), or
// when its last change was slow. A declined call then runs on a worker as any other.
//
// Deferred durability: a handler that blocked until its change's fsync would hold its thread
// meanwhile, so that a commit could only take as many records as there are threads to wait. A
// call with a DeferredDurability notes the LSNs its answer waits for instead, holds no thread,
// and is answered when the journal says they are on disk (server/app/deferred_durability.h).
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "server/app/deferred_durability.h"
#include "server/auth/tokens.h"

namespace resched::server {

class CallContext {
 public:
  // A call the server makes itself (a periodic Replan, a tool, a test): nobody's, with no
  // deadline, waiting on its own thread for locks and for the journal.
  CallContext() = default;
  CallContext(const CallContext&) = delete;
  CallContext& operator=(const CallContext&) = delete;

  // Who makes the call: null when the server does not authenticate calls, or for its own.
  const auth::Principal* principal() const { return principal_; }
  void set_principal(const auth::Principal* principal) { principal_ = principal; }
  // The caller's tenant, which owns what the call makes; empty without a principal.
  std::string tenant() const { return principal_ != nullptr ? principal_->tenant : ""; }

  // OK while the caller still waits; DEADLINE_EXCEEDED once the call's deadline passed, CANCELLED
  // once the client gave up: planners that run long check it between steps and stop.
  absl::Status Status() const { return status_ ? status_() : absl::OkStatus(); }
  // How the transport says so (its deadline and cancellation).
  void set_status_check(std::function<absl::Status()> check) { status_ = std::move(check); }

  // Whether the call runs inline: it never waits for a cluster's lock.
  bool runs_inline() const { return runs_inline_; }
  void set_runs_inline(bool runs_inline) { runs_inline_ = runs_inline; }
  // Declines the inline call (it changed nothing) and returns the status its handler passes up,
  // which no client sees: the adapter runs the call again on a worker.
  absl::Status Decline() {
    declined_ = true;
    return absl::UnavailableError("declined to run on the transport's thread");
  }
  bool declined() const { return declined_; }

  // Where the call's waits for the journal go; null: the call blocks until the commit.
  DeferredDurability* deferred() const { return deferred_; }
  void set_deferred(DeferredDurability* deferred) { deferred_ = deferred; }

 private:
  const auth::Principal* principal_ = nullptr;
  std::function<absl::Status()> status_;
  bool runs_inline_ = false;
  bool declined_ = false;
  DeferredDurability* deferred_ = nullptr;
};

}  // namespace resched::server
