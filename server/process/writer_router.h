// The routes of calls when replicas share a journal in etcd with one writer
// (server/store/etcd_journal_store.h): the writer serves every call; a standby forwards each to
// the writer at the address its member key gives, and refuses with UNAVAILABLE and a retry
// delay while no replica writes (a takeover under way) or while it reads the journal itself.
#pragma once

#include <atomic>
#include <string>

#include "server/app/call_route.h"
#include "server/store/etcd_journal_store.h"

namespace resched::server {

class WriterRouter final : public CallRouter {
 public:
  // `store` outlives the router.
  explicit WriterRouter(const EtcdJournalStore& store);

  // This replica took the writer key and has read the journal: it serves every call from now on.
  void Serve() { serving_ = true; }

  CallRoute Route(absl::string_view cluster) const override;
  const std::string& replica_id() const override { return store_.replica_id(); }

 private:
  const EtcdJournalStore& store_;
  std::atomic<bool> serving_{false};
};

}  // namespace resched::server
