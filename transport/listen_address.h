// Which gRPC listen addresses only this machine can reach: the server's secure default binds
// nothing else without TLS and tokens (server/process/listen_security.h).
#pragma once

#include <string_view>

namespace resched::transport {

// True for "127.x.y.z:PORT", "localhost:PORT", "[::1]:PORT" and Unix domain sockets ("unix:",
// "unix-abstract:"); false for wildcard addresses ("0.0.0.0:PORT", "[::]:PORT", ":PORT"), any
// other host name or address, and anything that does not parse as one of these.
bool IsLoopbackOnly(std::string_view address);

}  // namespace resched::transport
