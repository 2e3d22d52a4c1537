// resched-server's secure default: anyone who reaches the port can change every cluster unless
// the channel is encrypted and callers prove who they are, so without TLS and bearer tokens the
// server listens on loopback only. Binding another address then takes an explicit --insecure,
// and the server warns at start.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace resched::server {

struct ListenProtections {
  bool tls = false;       // --tls-cert and --tls-key
  bool tokens = false;    // --tokens-file: callers authenticated by bearer tokens
  bool insecure = false;  // --insecure: the operator accepts an unprotected reachable port
  // The listener serves plain HTTP (the web view): the server's TLS does not cover it, and a
  // token sent to it would cross the network in clear, so only loopback or --insecure will do.
  bool plain_http = false;
  // The listener is the metrics endpoint: plain HTTP, read-only and without authentication, so
  // only loopback, --insecure or --metrics-insecure (a NetworkPolicy or firewall decides who
  // reaches it) will do.
  bool metrics = false;
};

// FAILED_PRECONDITION naming the address and the ways out when `listen` is reachable from other
// machines without TLS and tokens and without --insecure. Otherwise the warning to log at start
// (empty when there is nothing to warn about).
absl::StatusOr<std::string> CheckListenSecurity(const std::string& listen,
                                                const ListenProtections& protections);

// The web view (--http-listen) calls the service in process, past the gRPC port's TLS: on a
// server that requires client certificates (--tls-client-ca) and has no tokens file, it would
// serve anyone who reaches it what the gRPC port serves only to holders of a certificate.
// FAILED_PRECONDITION saying so, unless `insecure` (then the warning to log); empty otherwise.
absl::StatusOr<std::string> CheckWebViewAccess(bool client_certificates, bool tokens,
                                               bool insecure);

}  // namespace resched::server
