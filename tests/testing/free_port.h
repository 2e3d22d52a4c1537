// A loopback TCP port that was free a moment ago (the kernel's choice for a socket bound to port
// 0): for a helper process the test starts on it, or an address where nothing must listen.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

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

// `count` distinct free ports: each socket stays bound until all are picked, so the kernel cannot
// hand out one port twice. Empty when the kernel gives too few.
inline std::vector<int> FreeLoopbackPorts(int count) {
  std::vector<int> sockets;
  std::vector<int> ports;
  for (int i = 0; i < count; ++i) {
    const int sock = socket(AF_INET, SOCK_STREAM, 0);
    if (sock < 0) break;
    sockets.push_back(sock);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        getsockname(sock, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      break;
    }
    ports.push_back(ntohs(address.sin_port));
  }
  for (const int sock : sockets) close(sock);
  if (static_cast<int>(ports.size()) != count) ports.clear();
  return ports;
}

}  // namespace resched::testing
