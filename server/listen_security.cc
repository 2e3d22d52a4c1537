#include "server/listen_security.h"

#include "absl/strings/str_cat.h"
#include "transport/listen_address.h"

namespace resched::server {

absl::StatusOr<std::string> CheckListenSecurity(const std::string& listen,
                                                const ListenProtections& protections) {
  if (transport::IsLoopbackOnly(listen) || (protections.tls && protections.tokens)) return "";
  const std::string missing = protections.tls ? "bearer tokens (--tokens-file)"
                              : protections.tokens
                                  ? "TLS (--tls-cert, --tls-key)"
                                  : "TLS (--tls-cert, --tls-key) and bearer tokens (--tokens-file)";
  if (protections.insecure) {
    return absl::StrCat("--insecure: listening on ", listen, " without ", missing,
                        ": anyone who reaches this address can change every cluster");
  }
  return absl::FailedPreconditionError(
      absl::StrCat("refusing to listen on ", listen, " without ", missing,
                   ": anyone who reaches it could change every cluster. Listen on a loopback "
                   "address (127.0.0.1:PORT), add the missing protection, or pass --insecure to "
                   "accept the risk"));
}

}  // namespace resched::server
