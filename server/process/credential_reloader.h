// Re-reads the tokens file and the TLS files while the server runs: when told to (main does on
// SIGHUP) and when a file's contents change (checked at a fixed period, for a Kubernetes Secret
// updated in place). Files that load are put in use at once: the next call is checked against
// the new tokens, the next TLS handshake uses the new certificate. Files that do not load are
// refused with a log line naming them, and what is in use stays. Either outcome is logged once
// per new content of the files.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "server/auth/token_store.h"
#include "server/base/mutex.h"
#include "server/base/periodic_timer.h"
#include "transport/reloadable_server_tls.h"

namespace resched::server {

class CredentialReloader {
 public:
  struct Sources {
    std::string tokens_file;                              // empty: no tokens
    std::shared_ptr<auth::TokenStore> tokens;             // where the tokens file's table goes
    std::shared_ptr<transport::ReloadableServerTls> tls;  // null: no TLS
  };
  // Checks the files for changes every `poll`.
  CredentialReloader(Sources sources, std::chrono::milliseconds poll);
  CredentialReloader(const CredentialReloader&) = delete;
  CredentialReloader& operator=(const CredentialReloader&) = delete;

  // Re-reads every file now, changed or not.
  void ReloadAll();

 private:
  void Reload(bool only_if_changed);
  void ReloadTokens(bool only_if_changed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReloadTls(bool only_if_changed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Sources sources_;
  Mutex mu_;  // one reload at a time: the timer's and a SIGHUP's
  // The files' contents when last read, so that a change is noticed and each is logged once.
  std::string tokens_seen_ ABSL_GUARDED_BY(mu_);
  std::string tls_seen_ ABSL_GUARDED_BY(mu_);
  PeriodicTimer timer_;  // last: ticks once the rest is built
};

}  // namespace resched::server
