// Why the server cannot listen on an address. gRPC only reports that binding failed; a user who
// started a second server on a busy port needs to read "Address already in use".
#pragma once

#include <string>

namespace resched::server {

// Binds a TCP socket to `address` (HOST:PORT, [V6]:PORT) without SO_REUSEPORT, as the server
// does, and returns the system's reason when that fails; "" when it succeeds or the address is
// of a form this check does not resolve (the caller then reports gRPC's failure alone).
std::string ListenError(const std::string& address);

}  // namespace resched::server
