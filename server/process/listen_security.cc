#include "server/process/listen_security.h"

#include "absl/strings/str_cat.h"
#include "transport/listen_address.h"

namespace resched::server {

absl::StatusOr<std::string> CheckListenSecurity(const std::string& listen,
                                                const ListenProtections& protections) {
  if (transport::IsLoopbackOnly(listen)) return "";
  if (protections.metrics) {
    constexpr char kReads[] =
        "plain HTTP without authentication: anyone who reaches it reads every cluster's and "
        "tenant's metrics";
    if (protections.insecure) {
      return absl::StrCat("metrics on ", listen, " over ", kReads,
                          "; let only the scraper reach it (a NetworkPolicy or a firewall)");
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to serve metrics on ", listen, ": they are served over ", kReads,
        ". Listen on a loopback address (127.0.0.1:PORT), or pass --metrics-insecure where a "
        "NetworkPolicy or a firewall lets only the scraper reach it"));
  }
  if (!protections.plain_http && protections.tls && protections.tokens) return "";
  const std::string missing =
      protections.plain_http
          ? "TLS (it serves plain HTTP, so a bearer token sent to it would cross the network in "
            "clear; put it behind a TLS-terminating proxy)"
      : protections.tls    ? "bearer tokens (--tokens-file)"
      : protections.tokens ? "TLS (--tls-cert, --tls-key)"
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

absl::StatusOr<std::string> CheckWebViewAccess(bool client_certificates, bool tokens,
                                               bool insecure) {
  if (!client_certificates || tokens) return "";
  constexpr char kWhy[] =
      "the gRPC port requires a client certificate (--tls-client-ca) and there is no "
      "--tokens-file, but the web view (plain HTTP) asks for neither";
  if (insecure) {
    return absl::StrCat("--insecure: ", kWhy,
                        ": whoever reaches it can change every cluster without a certificate");
  }
  return absl::FailedPreconditionError(
      absl::StrCat("refusing to serve the web view: ", kWhy,
                   ". Add --tokens-file (the view then needs a bearer token), leave out "
                   "--http-listen, or pass --insecure to accept the risk"));
}

}  // namespace resched::server
