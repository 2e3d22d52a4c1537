// The waits for the journal of one call, noted instead of waited for (server/app/call_context.h):
// the handler returns, and the call is answered when the journal's thread says its records are on
// disk (Journal::WhenDurable).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "server/store/journal.h"
#include "server/trace/span.h"

namespace resched::server {

class DeferredDurability {
 public:
  DeferredDurability() = default;
  DeferredDurability(const DeferredDurability&) = delete;
  DeferredDurability& operator=(const DeferredDurability&) = delete;

  // Notes that the call's answer waits for `lsn` of `journal`: the call's own change
  // (`own_change`), or an earlier change that what it read depends on. Traced calls get the span
  // a blocking wait would have (resched.journal.commit or resched.journal.wait), ended when the
  // LSN is durable.
  void Defer(Journal& journal, std::int64_t lsn, bool own_change);

  // Whether anything was deferred.
  bool pending() const { return !lsns_.empty(); }
  // Calls `done` once every deferred LSN is durable (OK) or one of them failed (the journal's
  // UNAVAILABLE): at once on this thread when nothing waits, else where Journal::WhenDurable
  // calls back.
  void Then(absl::AnyInvocable<void(absl::Status) &&> done) &&;

 private:
  Journal* journal_ = nullptr;
  std::vector<std::int64_t> lsns_;
  std::vector<std::unique_ptr<trace::Span>> spans_;
};

}  // namespace resched::server
