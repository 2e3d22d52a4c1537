#include "server/app/deferred_durability.h"

#include <algorithm>
#include <utility>

#include "server/trace/tracer.h"

namespace resched::server {

void DeferredDurability::Defer(Journal& journal, std::int64_t lsn, bool own_change) {
  journal_ = &journal;  // a server has one journal
  lsns_.push_back(lsn);
  if (trace::Span* parent = trace::CurrentSpan()) {
    std::unique_ptr<trace::Span> span = parent->tracer()->StartChild(
        *parent, own_change ? "resched.journal.commit" : "resched.journal.wait",
        {{"resched.journal.lsn", lsn}});
    spans_.push_back(std::move(span));
  }
}

void DeferredDurability::Then(absl::AnyInvocable<void(absl::Status) &&> done) && {
  if (lsns_.empty()) {
    std::move(done)(absl::OkStatus());
    return;
  }
  // Commits go in LSN order: once the last is settled, every earlier one is too.
  const std::int64_t last = *std::max_element(lsns_.begin(), lsns_.end());
  journal_->WhenDurable(last,
                        [journal = journal_, lsns = std::move(lsns_), spans = std::move(spans_),
                         done = std::move(done)](absl::Status status) mutable {
                          // Settled already, so these do not block.
                          for (std::int64_t lsn : lsns) {
                            if (status.ok()) status = journal->WaitDurable(lsn);
                          }
                          for (auto& span : spans) {
                            if (!status.ok()) span->SetError(std::string(status.message()));
                            span->End();
                          }
                          std::move(done)(std::move(status));
                        });
}

}  // namespace resched::server
