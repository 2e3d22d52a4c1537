// A loopback TCP port that was free a moment ago (the kernel's choice for a socket bound to port
// 0): for a helper process the test starts on it, or an address where nothing must listen.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace resched::testing {

// 0 when the kernel gives none.
inline int FreeLoopbackPort() {
  const int sock = socket(AF_INET, SOCK_STREAM, 0);
  if (sock < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(sock, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(sock);
  return port;
}

}  // namespace resched::testing
