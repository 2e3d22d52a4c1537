// The token table the server authenticates against, replaced whole when the tokens file is
// reloaded (server/process/credential_reloader.h): a call reads one table from its start to its
// end, the old one or the new.
#pragma once

#include <memory>

#include "server/auth/tokens.h"
#include "server/base/mutex.h"

namespace resched::server::auth {

class TokenStore {
 public:
  explicit TokenStore(std::shared_ptr<const TokenTable> table) : table_(std::move(table)) {}

  std::shared_ptr<const TokenTable> Current() const {
    MutexLock lock(&mu_);
    return table_;
  }
  void Replace(std::shared_ptr<const TokenTable> table) {
    MutexLock lock(&mu_);
    table_ = std::move(table);
  }

 private:
  mutable Mutex mu_;
  std::shared_ptr<const TokenTable> table_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server::auth
